-- statement: rename_column
-- description: Renames a loaded column From (its name in the input) To the
-- description: control's name for it (the spec's rename:).
ALTER TABLE {{q .Table}} RENAME COLUMN {{q .From}} TO {{q .To}}
