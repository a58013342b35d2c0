-- fragment: sorted_list
-- description: The distinct values of text expression .Expr over a group as 'a;b;c', in Trino's dialect: sorted
-- description: numerically where both values are integers (up to 38 digits), integers before other text, else as
-- description: text — the order of DuckDB's sortedlist (TRY_CAST to HUGEINT, NULLS LAST, then the text). NULL values
-- description: are left out, and a group of NULLs only is NULL, as DuckDB's string_agg gives it (not the empty text).
-- returns: VARCHAR
array_join(array_sort(array_distinct(array_agg(CAST({{.Expr}} AS VARCHAR)) FILTER (WHERE {{.Expr}} IS NOT NULL)), (x, y) -> CASE
    WHEN try_cast(x AS DECIMAL(38,0)) IS NOT NULL AND try_cast(y AS DECIMAL(38,0)) IS NOT NULL AND try_cast(x AS DECIMAL(38,0)) <> try_cast(y AS DECIMAL(38,0))
        THEN IF(try_cast(x AS DECIMAL(38,0)) < try_cast(y AS DECIMAL(38,0)), -1, 1)
    WHEN try_cast(x AS DECIMAL(38,0)) IS NOT NULL AND try_cast(y AS DECIMAL(38,0)) IS NULL THEN -1
    WHEN try_cast(x AS DECIMAL(38,0)) IS NULL AND try_cast(y AS DECIMAL(38,0)) IS NOT NULL THEN 1
    WHEN x < y THEN -1 WHEN x > y THEN 1 ELSE 0 END), ';')
