# reconcile needs DuckDB's Arrow interface, compiled only with this build tag.
TAGS   := -tags duckdb_arrow
BIN    := bin/reconcile

.PHONY: build test services tools trino trino-stop sample samples nightly kafka-sample bench bench-scale vet docs

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
# (default mysql://root@127.0.0.1:3306/test) and RECONCILE_REQUIRE_MYSQL=1;
# tests that need Trino with RECONCILE_TRINO_URL (default
# http://127.0.0.1:18080, make trino) and RECONCILE_REQUIRE_TRINO=1.
# It first installs (when absent) and starts both servers (make services).
test: services vet
	go test $(TAGS) -count=1 -timeout 30m ./...

# expect CODE WHAT: print the exit code of the command just run and fail
# the target when it is not the sample's documented one.
expect = code=$$?; echo "exit code $$code ($(2))"; test $$code -eq $(1) || { echo "expected exit code $(1)" >&2; exit 1; }

# The main job on the bundled ledger sample: the at-least-once sink (exit 1,
# exceptions found) and the exactly-once sink (exit 0). The target fails
# when a run exits otherwise.
sample: build
	@$(BIN) run --config samples/ledger/at-least-once.yaml --force; $(call expect,1,1 = exceptions found)
	@$(BIN) run --config samples/ledger/exactly-once.yaml --force; $(call expect,0,0 = every check passed)

# Every bundled sample, the replay-forensics ones included (docs/samples.md).
samples: sample
	@$(BIN) run --config samples/hourly-report/spec.yaml --force; $(call expect,1,1 = exceptions found)
	@$(BIN) run --config samples/session-counts/spec.yaml --force; $(call expect,1,1 = exceptions found)
	@$(BIN) run --config samples/filesink/spec.yaml --force; $(call expect,1,1 = exceptions found: the last hour is not committed yet)
	@cd samples/iceberg && go run gen.go
	@$(BIN) run --config samples/iceberg/spec.yaml --force; $(call expect,1,1 = exceptions found: checkpoint 7 committed twice)
	@$(BIN) run --config samples/ledger-balances/roll-forward.yaml --param day=2026-11-28 --param previous=2026-11-27 --force; $(call expect,0,0 = every check passed: one account opened and one closed)
	@$(BIN) run --config samples/ledger-balances/roll-forward.yaml --param day=2026-11-29 --param previous=2026-11-28 --force; $(call expect,1,1 = exceptions found: a lost posting; a posting written twice; a balance edited by hand)
	@$(BIN) run --config samples/ledger-balances/postings-vs-balances.yaml --param day=2026-11-29 --force; $(call expect,1,1 = exceptions found: the same three accounts)
	@$(BIN) run --config samples/ledger-balances/postings-vs-postings.yaml --param day=2026-11-29 --force; $(call expect,1,1 = exceptions found: one posting short and one too many)

# The nightly operation of README.md and docs/nightly.md: three nights of
# the ledger as a suite with one run history (evidence/nightly/ is this
# target's own, made afresh): night 1 passes (exit 0), nights 2 and 3 find
# exceptions (exit 1).
nightly: build
	@rm -rf evidence/nightly
	@$(BIN) run samples/nightly/controls --param day=2026-11-28 --metrics evidence/nightly/reconcile.prom --quiet; $(call expect,0,0 = every check passed)
	@$(BIN) run samples/nightly/controls --param day=2026-11-29 --metrics evidence/nightly/reconcile.prom --quiet; $(call expect,1,1 = exceptions found)
	@$(BIN) run samples/nightly/controls --param day=2026-11-30 --metrics evidence/nightly/reconcile.prom --quiet; $(call expect,1,1 = exceptions found)
	@$(BIN) history --history evidence/nightly/history.duckdb --control ledger-nightly

# The Kafka sample (sources/kafka/README.md): the sample broker (an
# in-process Kafka protocol cluster, franz-go's kfake) started once it has
# written its topics, the read_committed control (exit 0) and the
# read_uncommitted one (exit 1), the broker stopped whatever happens.
kafka-sample: build
	go build $(TAGS) -o bin/kafka-broker ./samples/kafka/broker
	@log=$$(mktemp); bin/kafka-broker > $$log 2>&1 & broker=$$!; trap "kill $$broker 2>/dev/null; rm -f $$log" EXIT; \
	for i in $$(seq 150); do grep -q 'Kafka sample broker at' $$log && break; kill -0 $$broker 2>/dev/null || { cat $$log; exit 1; }; sleep 0.2; done; \
	grep -q 'Kafka sample broker at' $$log || { cat $$log; echo "the sample broker did not start within 30 s" >&2; exit 1; }; \
	cat $$log; \
	$(BIN) run --config samples/kafka/read-committed.yaml --force; $(call expect,0,0 = every check passed); \
	$(BIN) run --config samples/kafka/read-uncommitted.yaml --force; $(call expect,1,1 = exceptions found)

# Installs (from Debian's packages, when absent), configures and starts the
# PostgreSQL and MariaDB servers the tests use (.ci/services; run as root).
services:
	bash .ci/services

# Installs (from Debian's packages, when absent) what the report tests
# render with: LibreOffice Calc (the workbook printed to PDF), poppler-utils
# (the PDF read back) and Chromium (report.html laid out at 1400 px), and
# the fonts they lay out with (.ci/tools; run as root). Without them those
# tests skip, unless RECONCILE_REQUIRE_OFFICE=1 or RECONCILE_REQUIRE_CHROMIUM=1
# (.ci/run sets both).
tools:
	bash .ci/tools
# A Trino cluster for the engine's tests and docs/trino.md (.ci/trino): the
# io.trino:trino-server tarball fetched with Maven into ~/.cache/reconcile
# when absent, a coordinator and a worker, catalogs iceberg, hive,
# postgresql and mysql; prints its URL (RECONCILE_TRINO_URL). Idempotent.
# trino-stop stops both processes.
trino: services
	bash .ci/trino

trino-stop:
	bash .ci/trino stop

# The command reference in docs/cli/, generated from the cobra commands
# with cobra/doc (TestCLIDocs in cmd/reconcile fails when it is not current).
docs:
	go test $(TAGS) -count=1 -run '^TestCLIDocs$$' ./cmd/reconcile -update-cli-docs

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
