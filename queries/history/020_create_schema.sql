-- statement: create_schema
-- description: Creates the tables of a new history database .DB (schema version .Version, described in package
-- description: history) and its identity row: magic .Magic, the version, when and by which reconcile it was made.
CREATE TABLE {{q .DB}}.reconcile_history (
    magic          VARCHAR NOT NULL,
    schema_version INTEGER NOT NULL,
    created_at     TIMESTAMP WITH TIME ZONE NOT NULL,
    created_by     VARCHAR NOT NULL
);
CREATE TABLE {{q .DB}}.runs (
    run_seq             BIGINT PRIMARY KEY,
    run_id              VARCHAR NOT NULL UNIQUE,
    control             VARCHAR NOT NULL,
    started_at          TIMESTAMP WITH TIME ZONE NOT NULL,
    finished_at         TIMESTAMP WITH TIME ZONE NOT NULL,
    status              VARCHAR NOT NULL,
    params              VARCHAR NOT NULL,
    evidence            VARCHAR NOT NULL,
    manifest_sha256     VARCHAR NOT NULL,
    source_rows         BIGINT NOT NULL,
    sink_rows           BIGINT NOT NULL,
    source_distinct_ids BIGINT NOT NULL,
    sink_distinct_ids   BIGINT NOT NULL,
    sink_rows_per_key   DOUBLE,
    restarts            INTEGER,
    summary             VARCHAR NOT NULL
);
CREATE TABLE {{q .DB}}.run_inputs (
    run_seq  BIGINT NOT NULL,
    role     VARCHAR NOT NULL,
    kind     VARCHAR NOT NULL,
    location VARCHAR NOT NULL,
    rows     BIGINT NOT NULL,
    path     VARCHAR,
    bytes    BIGINT,
    sha256   VARCHAR
);
CREATE TABLE {{q .DB}}.run_measures (
    run_seq    BIGINT NOT NULL,
    measure    VARCHAR NOT NULL,
    type       VARCHAR NOT NULL,
    source_sum VARCHAR NOT NULL,
    sink_sum   VARCHAR NOT NULL,
    difference VARCHAR NOT NULL
);
CREATE TABLE {{q .DB}}.run_checks (
    run_seq        BIGINT NOT NULL,
    check_id       VARCHAR NOT NULL,
    status         VARCHAR NOT NULL,
    exceptions     BIGINT NOT NULL,
    key_columns    VARCHAR[] NOT NULL,
    compared       BOOLEAN NOT NULL,
    new_keys       BIGINT NOT NULL,
    recurring_keys BIGINT NOT NULL,
    resolved_keys  BIGINT NOT NULL,
    PRIMARY KEY (run_seq, check_id)
);
CREATE TABLE {{q .DB}}.exceptions (
    run_seq        BIGINT NOT NULL,
    check_id       VARCHAR NOT NULL,
    key            VARCHAR[] NOT NULL,
    rows           BIGINT NOT NULL,
    since_last_run VARCHAR NOT NULL,
    first_seen_seq BIGINT NOT NULL,
    open_runs      INTEGER NOT NULL
);
INSERT INTO {{q .DB}}.reconcile_history VALUES ({{lit .Magic}}, {{.Version}}, now(), {{lit .Tool}})
