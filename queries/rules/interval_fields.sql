-- fragment: interval_fields
-- description: The INTERVAL expression .Value as the three fields DuckDB stores an interval in, a STRUCT of
-- description: months, days and micros (BIGINT each; NULL for a NULL interval): months = datepart('year') * 12 +
-- description: datepart('month'), days = datepart('day'), micros = datepart('hour') * 3,600,000,000 +
-- description: datepart('minute') * 60,000,000 + datepart('microseconds') (which holds the seconds). Two intervals
-- description: are compared by these fields, so that a month is never 30 days nor a day 24 hours: DuckDB's own
-- description: equality (and its GROUP BY, DISTINCT and joins) normalises, INTERVAL '1 month' = INTERVAL '30 days'.
-- description: Template helper intervalfields.
-- returns: STRUCT(months BIGINT, days BIGINT, micros BIGINT)
CASE WHEN ({{.Value}}) IS NOT NULL THEN {'months': datepart('year', {{.Value}}) * 12 + datepart('month', {{.Value}}), 'days': datepart('day', {{.Value}}), 'micros': datepart('hour', {{.Value}}) * 3600000000 + datepart('minute', {{.Value}}) * 60000000 + datepart('microseconds', {{.Value}})} END
