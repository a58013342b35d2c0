-- statement: file_enum_column
-- description: Makes the __file column of table .Table, text as a Go reader's Arrow batches bring it, of the ENUM
-- description: type .Enum made of its distinct values (file_enum.sql): the same text wherever text is wanted, one
-- description: or two bytes a row instead of a 30–60 character label on 10 M rows. Measured on the issue-15
-- description: benchmark (10 M × 10 M): missing_ids 2.4–3.1 s over a text __file, 1.1–1.2 s over the ENUM; the
-- description: conversion 0.4 s a table.
ALTER TABLE {{q .Table}} ALTER COLUMN __file SET DATA TYPE {{q .Enum}} USING CAST(__file AS {{q .Enum}})
