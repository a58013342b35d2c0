# reconcile needs DuckDB's Arrow interface, compiled only with this build tag.
TAGS   := -tags duckdb_arrow
BIN    := bin/reconcile

.PHONY: build test sample samples nightly bench bench-scale vet

# -buildvcs=auto (overriding a GOFLAGS=-buildvcs=false) stamps the VCS
# revision that manifest.json and --version report.
build:
	go build $(TAGS) -buildvcs=auto -o $(BIN) ./cmd/reconcile

vet:
	go vet $(TAGS) ./...

# The test command (README, .ci/run). Tests that need PostgreSQL read
# RECONCILE_PG_URL (default postgres://root@127.0.0.1:5432/test) and skip
# with a one-line reason when it is unreachable, unless RECONCILE_REQUIRE_PG=1;
# tests that need MySQL or MariaDB do the same with RECONCILE_MYSQL_URL
# (default mysql://root@127.0.0.1:3306/test) and RECONCILE_REQUIRE_MYSQL=1.
test: vet
	go test $(TAGS) -count=1 ./...

# The main job on the bundled ledger sample: the at-least-once sink (exit 1,
# exceptions found) and the exactly-once sink (exit 0).
sample: build
	@$(BIN) run --config samples/ledger/at-least-once.yaml --force; echo "exit code $$? (1 = exceptions found)"
	@$(BIN) run --config samples/ledger/exactly-once.yaml --force; echo "exit code $$? (0 = every check passed)"

# Every bundled sample, the replay-forensics ones included (see README).
samples: sample
	@$(BIN) run --config samples/hourly-report/spec.yaml --force; echo "exit code $$? (1 = exceptions found)"
	@$(BIN) run --config samples/session-counts/spec.yaml --force; echo "exit code $$? (1 = exceptions found)"
	@$(BIN) run --config samples/filesink/spec.yaml --force; echo "exit code $$? (1 = exceptions found: the last hour is not committed yet)"

# The README's Nightly operation: three nights of the ledger as a suite with
# one run history (evidence/nightly/ is this target's own, made afresh).
nightly: build
	@rm -rf evidence/nightly
	@for day in 2026-11-28 2026-11-29 2026-11-30; do \
		$(BIN) run samples/nightly/controls --param day=$$day --metrics evidence/nightly/reconcile.prom --quiet; echo "exit code $$?"; \
	done
	@$(BIN) history --history evidence/nightly/history.duckdb --control ledger-nightly

bench:
	go test $(TAGS) -run '^$$' -bench . -benchtime 1x ./...

# Issue 15's side-by-side benchmark (cmd/reconcile-bench): generates the
# records (Parquet and CSV), the raw events and the windowed sinks at
# BENCH_ROWS/BENCH_EVENTS into BENCH_DIR (kept for the next run), then runs
# the hand-written SQL and reconcile as child processes and prints wall
# time, peak RSS and the ratios. BENCH_ARGS adds flags: -pg (the PostgreSQL
# contenders), -memory-limit 4GB or default, -suites parquet,csv, -repeat 3.
BENCH_DIR    ?= /tmp/reconcile-bench
BENCH_ROWS   ?= 10000000
BENCH_EVENTS ?= 10000000
bench-scale: build
	go build $(TAGS) -o bin/reconcile-bench ./cmd/reconcile-bench
	bin/reconcile-bench run -dir $(BENCH_DIR) -rows $(BENCH_ROWS) -events $(BENCH_EVENTS) $(BENCH_ARGS)
