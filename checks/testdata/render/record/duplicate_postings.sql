-- check: duplicate_postings
-- assertion: accuracy
-- description: Postings on more than one row of one input: every combination of values of the duplicates: columns
-- description: that more than one row of the source, or of the sink, holds (each input that has all of those
-- description: columns is checked; no id is needed), once per input, with its number of copies and the location of
-- description: every copy. Values are compared as the input types them: numbers by value (a DECIMAL holds 10.0 and
-- description: 10.00 as one value; a measure is an exact decimal whatever it is stored as), text as written (the
-- description: CSV texts 10.0 and 10.00 differ unless types: or measures: make the column a number; an empty text
-- description: counts as NULL), timestamps as stored, intervals field by field. NULL equals NULL: two rows with
-- description: NULL in the same column are one posting repeated; NULL and a value differ.
-- requires: duplicates
-- columns: locations=location
-- writes: side, copies
WITH
"repeated_source" AS (
    -- The combinations on more than one row, in one pass: no location is
    -- built for a row that is not repeated.
    SELECT NULLIF(CAST(x."account" AS VARCHAR), '') AS "__k0", x."amount" AS "__k1", x."posted_at" AS "__k2"
    FROM "source" AS x
    GROUP BY ALL
    HAVING count(*) > 1
), "copies_source" AS (
    -- Each combination's key (__k), and an interval's value too (__v: its
    -- key is its fields), for the rows of the repeated ones only.
    SELECT NULLIF(CAST(x."account" AS VARCHAR), '') AS "__k0",
           x."amount" AS "__k1",
           x."posted_at" AS "__k2",
           (x."__file" || ':' || x."__line") AS __location, x.__row AS __input_row
    FROM "source" AS x
    SEMI JOIN "repeated_source" AS r
      ON NULLIF(CAST(x."account" AS VARCHAR), '') IS NOT DISTINCT FROM r."__k0"
     AND x."amount" IS NOT DISTINCT FROM r."__k1"
     AND x."posted_at" IS NOT DISTINCT FROM r."__k2"
), "found_source" AS (
    SELECT any_value(c."__k0") AS "account",
           any_value(c."__k1") AS "amount",
           CAST(any_value(c."__k2") AS VARCHAR) AS "posted_at",
           'source' AS side,
           count(*) AS copies,
           string_agg(c.__location, ';' ORDER BY c.__input_row) AS locations
    FROM "copies_source" AS c
    GROUP BY c."__k0", c."__k1", c."__k2"
),
"repeated_sink" AS (
    -- The combinations on more than one row, in one pass: no location is
    -- built for a row that is not repeated.
    SELECT NULLIF(CAST(x."account" AS VARCHAR), '') AS "__k0", x."amount" AS "__k1", x."posted_at" AS "__k2"
    FROM "sink" AS x
    GROUP BY ALL
    HAVING count(*) > 1
), "copies_sink" AS (
    -- Each combination's key (__k), and an interval's value too (__v: its
    -- key is its fields), for the rows of the repeated ones only.
    SELECT NULLIF(CAST(x."account" AS VARCHAR), '') AS "__k0",
           x."amount" AS "__k1",
           x."posted_at" AS "__k2",
           (x."__file" || ':' || x."__line") AS __location, x.__row AS __input_row
    FROM "sink" AS x
    SEMI JOIN "repeated_sink" AS r
      ON NULLIF(CAST(x."account" AS VARCHAR), '') IS NOT DISTINCT FROM r."__k0"
     AND x."amount" IS NOT DISTINCT FROM r."__k1"
     AND x."posted_at" IS NOT DISTINCT FROM r."__k2"
), "found_sink" AS (
    SELECT any_value(c."__k0") AS "account",
           any_value(c."__k1") AS "amount",
           CAST(any_value(c."__k2") AS VARCHAR) AS "posted_at",
           'sink' AS side,
           count(*) AS copies,
           string_agg(c.__location, ';' ORDER BY c.__input_row) AS locations
    FROM "copies_sink" AS c
    GROUP BY c."__k0", c."__k1", c."__k2"
)
SELECT * FROM "found_source"
UNION ALL
SELECT * FROM "found_sink"
