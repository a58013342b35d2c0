-- statement: sink
-- description: The Trino benchmark's sink: every source entry written under checkpoint i / 100000, except 1% dropped
-- description: (i mod 100 = 3), 1% replayed once more under the next checkpoint (i mod 100 = 5) and 0.1% altered by
-- description: one cent (i mod 1000 = 7), as an Iceberg table iceberg.Schema.Table written by Trino.
CREATE TABLE iceberg.{{q .Schema}}.{{q .Table}} AS
SELECT format('E%010d', i) AS entry_id,
       format('ACC-%03d', i % 200) AS account,
       CAST(format('%d.%02d', ((i * 7919) % 400000) / 100 - 2000, (i * 7919) % 100) AS DECIMAL(18,2))
         + CASE WHEN i % 1000 = 7 THEN DECIMAL '0.01' ELSE DECIMAL '0.00' END AS amount,
       i / 100000 + c AS checkpoint_id
FROM (SELECT a * 10000 + b AS i
      FROM UNNEST(sequence(0, {{.Rows}} / 10000 - 1)) AS x(a) CROSS JOIN UNNEST(sequence(0, 9999)) AS y(b))
CROSS JOIN UNNEST(CASE WHEN i % 100 = 3 THEN CAST(ARRAY[] AS array(bigint)) WHEN i % 100 = 5 THEN ARRAY[BIGINT '0', 1] ELSE ARRAY[BIGINT '0'] END) AS u(c)
