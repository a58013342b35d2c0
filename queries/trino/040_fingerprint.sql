-- statement: fingerprint
-- description: What Trino can attest of relation .Relation's rows in one pass: their count; for each column of
-- description: .Columns, checksum() — an order-insensitive hash of its values — as lower-case hex; and the checksum()
-- description: of every row's xxhash64 over .RowText, the row's columns as one text (each NULL as n, each value as v,
-- description: its length, a colon and its text: no two rows give one text), so that values moved between rows
-- description: (which leave every column's checksum as it was: checksum() sums its values' hashes) change it. Taken
-- description: before the checks and, for an input no version pins, after them too: a difference means the input
-- description: changed.
-- returns: rows BIGINT, then one varchar per column, then the rows' checksum as varchar
SELECT count(*){{range .Columns}}, lower(to_hex(checksum({{q .}}))){{end}},
       lower(to_hex(checksum(xxhash64(to_utf8({{.RowText}})))))
FROM {{.Relation}}
