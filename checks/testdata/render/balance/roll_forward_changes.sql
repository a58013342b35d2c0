-- check: roll_forward_changes
-- assertion: completeness
-- description: Every group opened or closed in the period of a roll-forward: present in the closing balances (the
-- description: sink) but not in the opening (opened), in the opening but not in the closing (closed), or in neither,
-- description: with postings only (postings_only), each with its opening, postings and closing per measure. For
-- description: information: opening or closing an account is not an exception in itself; roll_forward says whether
-- description: each group rolls forward.
-- requires: records, measures, group_by, opening
-- severity: info
-- columns: opening_*=opening, postings_*=source, closing_*=sink, status=finding
-- writes: source_postings
WITH rolled AS (
WITH o AS (
    SELECT "aid", CAST(coalesce(sum("delta"), 0) AS DECIMAL(38,2)) AS "delta", count(*) AS __rows
    FROM opening
    GROUP BY "aid"
), s AS (
    SELECT "aid", CAST(coalesce(sum("delta"), 0) AS DECIMAL(38,2)) AS "delta", count(*) AS __rows
    FROM source
    GROUP BY "aid"
), k AS (
    SELECT "aid", CAST(coalesce(sum("delta"), 0) AS DECIMAL(38,2)) AS "delta", count(*) AS __rows
    FROM sink
    GROUP BY "aid"
), g AS (
    SELECT "aid" FROM o
    UNION SELECT "aid" FROM s
    UNION SELECT "aid" FROM k
)
SELECT g."aid", 
       CAST(coalesce(o."delta", 0) AS DECIMAL(38,2)) AS "opening_delta",
       CAST(coalesce(s."delta", 0) AS DECIMAL(38,2)) AS "postings_delta",
       CAST(coalesce(o."delta", 0) + coalesce(s."delta", 0) AS DECIMAL(38,2)) AS "expected_delta",
       CAST(coalesce(k."delta", 0) AS DECIMAL(38,2)) AS "closing_delta",
       CAST(coalesce(k."delta", 0) - (coalesce(o."delta", 0) + coalesce(s."delta", 0)) AS DECIMAL(38,2)) AS "difference_delta",
       CASE WHEN o.__rows IS NULL AND k.__rows IS NULL THEN 'postings_only'
            WHEN o.__rows IS NULL THEN 'opened' WHEN k.__rows IS NULL THEN 'closed' ELSE 'continuing' END AS status,
       coalesce(s.__rows, 0) AS source_postings
FROM g
LEFT JOIN o ON (g."aid" IS NOT DISTINCT FROM o."aid")
LEFT JOIN s ON (g."aid" IS NOT DISTINCT FROM s."aid")
LEFT JOIN k ON (g."aid" IS NOT DISTINCT FROM k."aid")
)
SELECT r."aid", r.status, r."opening_delta", r."postings_delta", r."closing_delta", r.source_postings
FROM rolled AS r
WHERE r.status <> 'continuing'
