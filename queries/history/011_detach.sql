-- statement: detach
-- description: Detaches the history database .DB, closing its file.
DETACH {{q .DB}}
