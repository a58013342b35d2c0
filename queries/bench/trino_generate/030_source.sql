-- statement: source
-- description: The Trino benchmark's source (cmd/reconcile-trino-bench): .Rows ledger entries as an Iceberg table
-- description: iceberg.Schema.Table written by Trino, entry i with id E<i, 10 digits>, account ACC-<i mod 200> and
-- description: an amount DECIMAL(18,2) drawn from i, in the order of i (cmd/reconcile-bench's records, in Trino).
CREATE TABLE iceberg.{{q .Schema}}.{{q .Table}} AS
SELECT format('E%010d', i) AS entry_id,
       format('ACC-%03d', i % 200) AS account,
       CAST(format('%d.%02d', ((i * 7919) % 400000) / 100 - 2000, (i * 7919) % 100) AS DECIMAL(18,2)) AS amount
FROM (SELECT a * 10000 + b AS i
      FROM UNNEST(sequence(0, {{.Rows}} / 10000 - 1)) AS x(a) CROSS JOIN UNNEST(sequence(0, 9999)) AS y(b))
