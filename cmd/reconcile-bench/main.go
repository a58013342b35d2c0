//go:build duckdb_arrow

// Command reconcile-bench measures reconcile against hand-written SQL over
// the same generated data, side by side in one run (this machine is shared
// and noisy, so only ratios measured together mean anything). It is the
// harness of issue 15 and of the README's performance section:
//
//	reconcile-bench gen   -dir D [-rows N] [-events E] [-seed S]
//	reconcile-bench run   -dir D [-rows N] [-events E] [-suites parquet,csv,reperform,sliding] [-pg]
//	                      [-memory-limit 4GB] [-baseline BIN] [-reconcile bin/reconcile] [-repeat 1]
//	reconcile-bench anchor -suite records|reperform …   (a child of run: one hand-written contender)
//
// gen writes, deterministically from the seed (DuckDB's hash of the row
// number and the seed; the statements are queries/bench/generate):
// source.parquet (N ledger entries) and sink.parquet (1% dropped, 1%
// replayed under the next checkpoint, 0.1% altered by a cent), the same as
// source.csv and sink.csv, events.parquet (E raw events over one day on 200
// accounts, event_time a TIMESTAMPTZ), and the windowed sinks hourly.parquet
// (tumbling 1 h) and sliding.parquet (10 min sliding by 5 min), each with
// two wrong aggregates and four rows replayed. Files already generated for
// the same parameters are kept (gen.json records them).
//
// run runs, for each suite, the hand-written anchor (queries/bench/records
// or queries/bench/reperform, as a child process of this program through
// duckdb-go, its memory_limit the DuckDB share of reconcile's budget, so
// both DuckDBs may hold as much before they spill) and `reconcile run` (a
// child process, --memory-limit as given), and prints each one's wall
// time, peak RSS (the child's wait4 rusage ru_maxrss: the whole process, Go
// heap and DuckDB alike) and the ratios reconcile/anchor. -baseline BIN
// runs a second reconcile binary (a build of main) in the same run, for
// before/after ratios, into D/runs/<suite>-baseline-evidence, and says
// whether the two runs' exception files are identical byte for byte (the
// answers must not change with the speed). With -pg the records are also loaded into
// PostgreSQL (tables speed_bench_source, speed_bench_sink) and the same
// checks run inside PostgreSQL (queries/bench/pg_records) and by reconcile
// with both inputs in PostgreSQL. Each reconcile run's log (per-check
// timings) is kept in D/runs/<suite>-reconcile.log.
package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/jackc/pgx/v5"

	"github.com/reconcile-dev/reconcile/internal/memory"
	"github.com/reconcile-dev/reconcile/internal/sqlfile"
	"github.com/reconcile-dev/reconcile/queries"
	"github.com/reconcile-dev/reconcile/sources/fileset"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = cmdGen(os.Args[2:])
	case "run":
		err = cmdRun(os.Args[2:])
	case "anchor":
		err = cmdAnchor(os.Args[2:])
	case "exec":
		err = cmdExec(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "reconcile-bench:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: reconcile-bench gen|run|anchor [flags] (see go doc ./cmd/reconcile-bench)")
	os.Exit(2)
}

// genParams are what the generated files depend on (gen.json).
type genParams struct {
	Rows, Events, Seed int64
	// Postings and Accounts size the ledger suite's data (postings.parquet,
	// balances.parquet).
	Postings, Accounts int64
	NoCSV              bool `json:"-"`
}

func genFlags(fs *flag.FlagSet) (*string, *genParams) {
	dir := fs.String("dir", "/tmp/reconcile-bench", "folder of the generated data and the runs")
	p := &genParams{}
	fs.Int64Var(&p.Rows, "rows", 10_000_000, "source records (the sink holds as many: 1% dropped, 1% replayed)")
	fs.Int64Var(&p.Events, "events", 10_000_000, "raw events for re-performance")
	fs.Int64Var(&p.Seed, "seed", 15, "seed of the generated values")
	fs.Int64Var(&p.Postings, "postings", 10_000_000, "postings of the ledger suite (no posting id)")
	fs.Int64Var(&p.Accounts, "accounts", 1_000_000, "accounts of the ledger suite (one balance row each)")
	fs.BoolVar(&p.NoCSV, "no-csv", false, "leave out source.csv and sink.csv (the csv suite needs them)")
	return dir, p
}

func cmdGen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	dir, p := genFlags(fs)
	fs.Parse(args)
	return generate(*dir, *p)
}

// generate writes the data files of p into dir. A file already there is
// kept when gen.json records the same parameters (each file is written
// under a temporary name and renamed when complete); other parameters
// remove them all first. p.NoCSV leaves the CSV files out (a 100 M run of
// the Parquet suite does not need them).
func generate(dir string, p genParams) error {
	stamp := filepath.Join(dir, "gen.json")
	want, _ := json.Marshal(genParams{Rows: p.Rows, Events: p.Events, Seed: p.Seed, Postings: p.Postings, Accounts: p.Accounts})
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if have, err := os.ReadFile(stamp); err != nil || string(have) != string(want) {
		for _, f := range []string{"source.parquet", "sink.parquet", "source.csv", "sink.csv", "events.parquet", "hourly.parquet", "sliding.parquet", "postings.parquet", "balances.parquet"} {
			os.Remove(filepath.Join(dir, f))
		}
		if err := os.WriteFile(stamp, want, 0o644); err != nil {
			return err
		}
	}
	set := queries.MustSet("bench/generate", sqlfile.Funcs())
	db, err := memDuck()
	if err != nil {
		return err
	}
	defer db.Close()
	path := func(n string) string { return filepath.Join(dir, n) }
	type W struct{ Size, Slide, Windows int64 }
	hour, sliding := W{3_600_000_000, 3_600_000_000, 1}, W{600_000_000, 300_000_000, 2}
	steps := []struct {
		id   string
		data map[string]any
	}{
		{queries.BenchGenerateSourceParquet, map[string]any{"Rows": p.Rows, "Seed": p.Seed, "Path": path("source.parquet")}},
		{queries.BenchGenerateSinkParquet, map[string]any{"Rows": p.Rows, "Seed": p.Seed, "Path": path("sink.parquet")}},
		{queries.BenchGenerateAsCSV, map[string]any{"From": path("source.parquet"), "Path": path("source.csv")}},
		{queries.BenchGenerateAsCSV, map[string]any{"From": path("sink.parquet"), "Path": path("sink.csv")}},
		{queries.BenchGenerateEventsParquet, map[string]any{"Events": p.Events, "Seed": p.Seed, "Path": path("events.parquet")}},
		{queries.BenchGenerateWindowsParquet, map[string]any{"From": path("events.parquet"), "Path": path("hourly.parquet"), "Size": hour.Size, "Slide": hour.Slide, "Windows": hour.Windows}},
		{queries.BenchGenerateWindowsParquet, map[string]any{"From": path("events.parquet"), "Path": path("sliding.parquet"), "Size": sliding.Size, "Slide": sliding.Slide, "Windows": sliding.Windows}},
		{queries.BenchGeneratePostingsParquet, map[string]any{"Postings": p.Postings, "Accounts": p.Accounts, "Seed": p.Seed, "Path": path("postings.parquet")}},
		{queries.BenchGenerateBalancesParquet, map[string]any{"From": path("postings.parquet"), "Accounts": p.Accounts, "Path": path("balances.parquet")}},
	}
	for _, st := range steps {
		out := st.data["Path"].(string)
		if _, err := os.Stat(out); err == nil || (p.NoCSV && st.id == queries.BenchGenerateAsCSV) {
			continue
		}
		st.data["Path"] = out + ".partial"
		q, err := set.SQL(st.id, st.data)
		if err != nil {
			return err
		}
		t0 := time.Now()
		if _, err := db.Exec(q); err != nil {
			return fmt.Errorf("generate %s: %w", st.id, err)
		}
		if err := os.Rename(out+".partial", out); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "generated %s in %s\n", filepath.Base(out), time.Since(t0).Round(time.Millisecond))
	}
	return nil
}

// cmdAnchor runs one hand-written contender: every statement of
// queries/bench/<suite>, in file order, in one in-memory DuckDB.
func cmdAnchor(args []string) error {
	fs := flag.NewFlagSet("anchor", flag.ExitOnError)
	suite := fs.String("suite", "records", "records, reperform or ledger")
	data := map[string]any{}
	src := fs.String("source", "", "source file (records)")
	sink := fs.String("sink", "", "sink file")
	events := fs.String("events", "", "events file (reperform)")
	csv := fs.Bool("csv", false, "the record files are CSV")
	out := fs.String("out", "", "folder for the result CSV files")
	mem := fs.String("memory-limit", "512MB", "DuckDB memory_limit")
	size := fs.Int64("size", 3_600_000_000, "window size, µs (reperform)")
	slide := fs.Int64("slide", 3_600_000_000, "window slide, µs (reperform)")
	fs.Parse(args)
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "reconcile-bench-anchor-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	data["Source"], data["Sink"], data["Events"], data["CSV"], data["Out"] = *src, *sink, *events, *csv, *out
	data["MemoryLimit"], data["Temp"], data["Size"], data["Slide"] = *mem, tmp, *size, *slide
	data["Windows"] = (*size + *slide - 1) / *slide
	db, err := memDuck()
	if err != nil {
		return err
	}
	defer db.Close()
	set := queries.MustSet("bench/"+*suite, sqlfile.Funcs())
	for _, id := range set.IDs() {
		q, err := set.SQL(id, data)
		if err != nil {
			return err
		}
		t0 := time.Now()
		res, err := db.Exec(q)
		if err != nil {
			return fmt.Errorf("%s: %w", id, err)
		}
		n, _ := res.RowsAffected()
		fmt.Printf("%s: %d rows in %s\n", id, n, time.Since(t0).Round(time.Millisecond))
	}
	return nil
}

// memDuck opens an in-memory DuckDB on one connection (its settings, such
// as memory_limit, hold for every statement run on it).
func memDuck() (*sql.DB, error) {
	connector, err := duckdb.NewConnector("", nil)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(1)
	return db, nil
}

// cmdExec runs the statements of SQL files (split at a ";" that ends a
// line) in one in-memory DuckDB and prints each one's time: a tool for
// trying out a query's variants (reconcile-bench exec -memory-limit 1GB
// a.sql b.sql), not part of the measured runs.
func cmdExec(args []string) error {
	fs := flag.NewFlagSet("exec", flag.ExitOnError)
	mem := fs.String("memory-limit", "512MB", "DuckDB memory_limit")
	fs.Parse(args)
	db, err := memDuck()
	if err != nil {
		return err
	}
	defer db.Close()
	tmp, err := os.MkdirTemp("", "reconcile-bench-exec-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	setup, err := queries.MustSet("bench/records", sqlfile.Funcs()).SQL(queries.BenchRecordsSetup, map[string]any{"MemoryLimit": *mem, "Temp": tmp})
	if err != nil {
		return err
	}
	if _, err := db.Exec(setup); err != nil {
		return err
	}
	for _, file := range fs.Args() {
		b, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		for _, q := range strings.Split(string(b), ";\n") {
			if strings.TrimSpace(q) == "" {
				continue
			}
			t0 := time.Now()
			rows, err := db.Query(q)
			if err != nil {
				return fmt.Errorf("%s: %w\n%s", file, err, q)
			}
			n := 0
			cols, _ := rows.Columns()
			var first []string
			for rows.Next() {
				if n == 0 {
					vals := make([]sql.NullString, len(cols))
					ptrs := make([]any, len(cols))
					for i := range vals {
						ptrs[i] = &vals[i]
					}
					rows.Scan(ptrs...)
					for _, v := range vals {
						first = append(first, v.String)
					}
				}
				n++
			}
			rows.Close()
			line := strings.TrimSpace(q)
			if i := strings.IndexByte(line, '\n'); i > 0 {
				line = line[:i]
			}
			fmt.Printf("%8.3fs %6d rows %v  %s\n", time.Since(t0).Seconds(), n, first, tail(line, 60))
		}
	}
	return nil
}

// measurement is one contender's run.
type measurement struct {
	name   string
	wall   time.Duration
	maxRSS int64 // bytes
	err    error
	note   string
}

// child runs cmd to completion and measures its wall time and peak RSS.
func child(name string, logPath string, cmd *exec.Cmd) measurement {
	f, err := os.Create(logPath)
	if err != nil {
		return measurement{name: name, err: err}
	}
	defer f.Close()
	fmt.Fprintf(f, "$ %s\n", strings.Join(cmd.Args, " "))
	cmd.Stdout, cmd.Stderr = f, f
	t0 := time.Now()
	err = cmd.Run()
	m := measurement{name: name, wall: time.Since(t0), err: err}
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			m.maxRSS = ru.Maxrss * 1024 // Linux reports KiB
		}
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && name != "anchor" && ee.ExitCode() == 1 {
		m.err = nil // exit 1: the control ran and found the planted exceptions
	}
	return m
}

type runOpts struct {
	dir, reconcile, baseline, mem, self string
	gen                                 genParams
	pg                                  bool
	pgURL                               string
	repeat                              int
	extra                               []string
}

func cmdRun(args []string) error {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	dir, p := genFlags(fs)
	suites := fs.String("suites", "parquet,csv,reperform,sliding,ledger", "comma-separated: parquet, csv, reperform, sliding, ledger")
	mem := fs.String("memory-limit", "4GB", "reconcile's --memory-limit (the whole process's budget); the anchor's memory_limit is DuckDB's share of it; \"default\": reconcile's own default (half the memory available), the anchor at its DuckDB share")
	rec := fs.String("reconcile", "bin/reconcile", "the reconcile binary")
	baseline := fs.String("baseline", "", "a second reconcile binary (such as a build of main) run in the same run, for before/after ratios")
	pg := fs.Bool("pg", false, "also the PostgreSQL contenders (loads the records into PostgreSQL first)")
	pgURL := fs.String("pg-url", pgDefault(), "PostgreSQL for -pg")
	repeat := fs.Int("repeat", 1, "runs of each contender (alternating)")
	extra := fs.String("reconcile-args", "", "extra arguments for reconcile run (space-separated)")
	fs.Parse(args)
	self, err := os.Executable()
	if err != nil {
		return err
	}
	// The data is generated by a child process: a child's peak RSS
	// (wait4's ru_maxrss) includes this process's own when it is started
	// (Linux counts the parent's pages the child shares until exec), so
	// generating here, with DuckDB's memory, gave every contender of a
	// first run the same 0.30 GB.
	gen := exec.Command(self, "gen", "-dir", *dir, "-rows", strconv.FormatInt(p.Rows, 10),
		"-events", strconv.FormatInt(p.Events, 10), "-seed", strconv.FormatInt(p.Seed, 10), "-no-csv="+strconv.FormatBool(p.NoCSV),
		"-postings", strconv.FormatInt(p.Postings, 10), "-accounts", strconv.FormatInt(p.Accounts, 10))
	gen.Stdout, gen.Stderr = os.Stdout, os.Stderr
	if err := gen.Run(); err != nil {
		return fmt.Errorf("generate the data: %w", err)
	}
	o := runOpts{dir: *dir, reconcile: *rec, baseline: *baseline, mem: *mem, self: self, gen: *p, pg: *pg, pgURL: *pgURL, repeat: *repeat, extra: strings.Fields(*extra)}
	if err := os.MkdirAll(filepath.Join(o.dir, "runs"), 0o755); err != nil {
		return err
	}
	fmt.Printf("reconcile-bench: %d records × %d, %d events, memory limit %s, %s\n", p.Rows, p.Rows, p.Events, o.mem, machine())
	fmt.Printf("%-10s %-28s %10s %10s %8s %8s\n", "suite", "contender", "wall", "peak RSS", "wall×", "RSS×")
	for _, s := range strings.Split(*suites, ",") {
		if strings.TrimSpace(s) == "" {
			continue
		}
		if err := o.suite(strings.TrimSpace(s)); err != nil {
			return err
		}
	}
	if o.pg {
		return o.postgres()
	}
	return nil
}

func pgDefault() string {
	if u := os.Getenv("RECONCILE_PG_URL"); u != "" {
		return u
	}
	return "postgres://root@127.0.0.1:5432/test"
}

// machine describes the load the figures were taken under.
func machine() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return "load average " + strings.Join(f[:3], " ")
}

func (o runOpts) path(n string) string { return filepath.Join(o.dir, n) }

func (o runOpts) memArgs() []string {
	if o.mem == "default" {
		return nil
	}
	return []string{"--memory-limit", o.mem}
}

// anchorMem is the anchor's memory_limit: the DuckDB share of the budget
// reconcile runs with (memory.Budget.DuckDB), so that both DuckDBs may hold
// as much before they spill; the peak RSS columns show what each process
// held in all.
func (o runOpts) anchorMem() (string, error) {
	var b memory.Budget
	var err error
	if o.mem == "default" {
		b, err = memory.Machine("/")
	} else {
		b, err = memory.FromFlag(o.mem)
	}
	return memory.DuckDBSize(b.DuckDB), err
}

// suite runs one suite's anchor and reconcile, o.repeat times each,
// alternating, and prints the best of each.
func (o runOpts) suite(name string) error {
	var anchor, rec []string
	switch name {
	case "parquet", "csv":
		ext := map[string]string{"parquet": ".parquet", "csv": ".csv"}[name]
		anchor = []string{"anchor", "-suite", "records", "-source", o.path("source" + ext), "-sink", o.path("sink" + ext)}
		if name == "csv" {
			anchor = append(anchor, "-csv")
		}
		rec = []string{"run", "--source", o.path("source" + ext), "--sink", o.path("sink" + ext), "--id", "entry_id",
			"--measure", "amount", "--group-by", "account", "--checkpoint", "checkpoint_id", "--logical-key", "entry_id"}
	case "reperform", "sliding":
		sink, size, slide, window := "hourly.parquet", "3600000000", "3600000000", "{size: 1h}"
		if name == "sliding" {
			sink, size, slide, window = "sliding.parquet", "600000000", "300000000", "{size: 10m, slide: 5m}"
		}
		anchor = []string{"anchor", "-suite", "reperform", "-events", o.path("events.parquet"), "-sink", o.path(sink), "-size", size, "-slide", slide}
		spec := fmt.Sprintf("name: bench-%s\nsource: %s\nsink: %s\nreperform:\n  event_time: event_time\n  window: %s\n  window_end: window_end\n  group_by: [account]\n  aggregates: {revenue: sum(amount), events: count(*)}\ncheckpoint: checkpoint_id\n",
			name, o.path("events.parquet"), o.path(sink), window)
		specPath := o.path("runs/" + name + ".yaml")
		if err := os.WriteFile(specPath, []byte(spec), 0o644); err != nil {
			return err
		}
		rec = []string{"run", "--config", specPath}
	case "ledger":
		// The balance control of issue 31: postings (no posting id) summed
		// per account against one balance row per account.
		anchor = []string{"anchor", "-suite", "ledger", "-source", o.path("postings.parquet"), "-sink", o.path("balances.parquet")}
		spec := fmt.Sprintf("name: bench-ledger\nsource: %s\nsink: {uri: %s, rename: \"abalance:delta\"}\ngrain: {sink: balance}\ngroup_by: [aid]\nmeasures: [delta]\n",
			o.path("postings.parquet"), o.path("balances.parquet"))
		specPath := o.path("runs/ledger.yaml")
		if err := os.WriteFile(specPath, []byte(spec), 0o644); err != nil {
			return err
		}
		rec = []string{"run", "--config", specPath}
	default:
		return fmt.Errorf("unknown suite %q (want parquet, csv, reperform, sliding or ledger)", name)
	}
	am, err := o.anchorMem()
	if err != nil {
		return err
	}
	anchor = append(anchor, "-out", o.path("runs/"+name+"-anchor"), "-memory-limit", am)
	bins := []string{o.reconcile}
	outs := []string{o.path("runs/" + name + "-evidence")}
	if o.baseline != "" {
		bins = append(bins, o.baseline)
		outs = append(outs, o.path("runs/"+name+"-baseline-evidence"))
	}
	best := make([]measurement, 1+len(bins))
	for i := 0; i < o.repeat; i++ {
		ms := []measurement{child("anchor", o.path("runs/"+name+"-anchor.log"), exec.Command(o.self, anchor...))}
		for j, bin := range bins {
			label := []string{"reconcile", "baseline"}[j]
			args := append(slices.Clip(rec), "--out", outs[j], "--force", "--progress")
			args = append(append(args, o.memArgs()...), o.extra...)
			ms = append(ms, child(label, o.path("runs/"+name+"-"+label+".log"), exec.Command(bin, args...)))
		}
		for j, m := range ms {
			if m.err != nil {
				log, _ := os.ReadFile(o.path("runs/" + name + "-" + m.name + ".log"))
				return fmt.Errorf("%s %s: %w\n%s", name, m.name, m.err, tail(string(log), 2000))
			}
			if best[j].wall == 0 || m.wall < best[j].wall {
				best[j] = m
			}
		}
	}
	best[0].name = "hand-written DuckDB SQL"
	best[1].name = "reconcile run"
	if len(best) > 2 {
		best[2].name = "reconcile run (baseline)"
	}
	if name == "csv" {
		best[0].name = "hand-written read_csv, typed"
	}
	report(name, best[0], best[1:]...)
	if len(outs) > 1 {
		same, err := sameExceptions(outs[0], outs[1])
		if err != nil {
			return err
		}
		fmt.Printf("%-10s exception files of reconcile and the baseline: %s\n", name, same)
	}
	return nil
}

// sameExceptions compares the exception files of two evidence folders byte
// for byte and says so: "identical (N files)", or which files differ or are
// in one folder only (sorted).
func sameExceptions(a, b string) (string, error) {
	names := map[string]bool{}
	for _, dir := range []string{a, b} {
		ents, err := os.ReadDir(filepath.Join(dir, "exceptions"))
		if err != nil {
			return "", err
		}
		for _, e := range ents {
			names[e.Name()] = true
		}
	}
	var differ []string
	for _, n := range slices.Sorted(maps.Keys(names)) {
		// compared by SHA-256 (fileset.Fingerprint, streamed): reading the
		// files whole would raise this process's peak RSS, which every
		// later contender's ru_maxrss would include
		fps, err := fileset.Fingerprint(context.Background(), []string{filepath.Join(a, "exceptions", n), filepath.Join(b, "exceptions", n)})
		if err != nil || fps[0].SHA256 != fps[1].SHA256 {
			differ = append(differ, n)
		}
	}
	if len(differ) > 0 {
		return "DIFFERENT: " + strings.Join(differ, ", "), nil
	}
	return fmt.Sprintf("identical (%d files)", len(names)), nil
}

func report(suite string, anchor measurement, others ...measurement) {
	fmt.Printf("%-10s %-28s %9.2fs %9.2fG %8s %8s\n", suite, anchor.name, anchor.wall.Seconds(), gb(anchor.maxRSS), "1.00", "1.00")
	for _, other := range others {
		rss := "-"
		if anchor.maxRSS > 0 && other.maxRSS > 0 {
			rss = fmt.Sprintf("%.2f", float64(other.maxRSS)/float64(anchor.maxRSS))
		}
		rssCol := "-"
		if other.maxRSS > 0 {
			rssCol = fmt.Sprintf("%.2fG", gb(other.maxRSS))
		}
		fmt.Printf("%-10s %-28s %9.2fs %10s %8.2f %8s%s\n", suite, other.name, other.wall.Seconds(), rssCol, other.wall.Seconds()/anchor.wall.Seconds(), rss, other.note)
	}
}

func gb(b int64) float64 { return float64(b) / (1 << 30) }

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// The PostgreSQL tables of -pg (prefixed, so parallel users of the server
// do not collide).
const pgSource, pgSink = "speed_bench_source", "speed_bench_sink"

// postgres loads the records into PostgreSQL, runs the checks inside it
// (the anchor, timed from the client; the server's RSS is not measured) and
// reconcile with both inputs there.
func (o runOpts) postgres() error {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, o.pgURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	tables := map[string]any{"Source": pgSource, "Sink": pgSink}
	load := queries.MustSet("bench/pg_load", sqlfile.Funcs())
	t0 := time.Now()
	for _, id := range load.IDs() {
		q, err := load.SQL(id, tables)
		if err != nil {
			return err
		}
		switch id {
		case queries.BenchPGLoadCopySource, queries.BenchPGLoadCopySink:
			f, err := os.Open(o.path(map[string]string{queries.BenchPGLoadCopySource: "source.csv", queries.BenchPGLoadCopySink: "sink.csv"}[id]))
			if err != nil {
				return err
			}
			_, err = conn.PgConn().CopyFrom(ctx, bufio.NewReaderSize(f, 1<<20), q)
			f.Close()
			if err != nil {
				return fmt.Errorf("%s: %w", id, err)
			}
		default:
			if _, err := conn.Exec(ctx, q); err != nil {
				return fmt.Errorf("%s: %w", id, err)
			}
		}
	}
	fmt.Fprintf(os.Stderr, "loaded PostgreSQL in %s\n", time.Since(t0).Round(time.Millisecond))
	checks := queries.MustSet("bench/pg_records", sqlfile.Funcs())
	out := o.path("runs/pg-anchor")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	var best [2]measurement
	for i := 0; i < o.repeat; i++ {
		t0 = time.Now()
		for _, id := range checks.IDs() {
			q, err := checks.SQL(id, tables)
			if err != nil {
				return err
			}
			f, err := os.Create(filepath.Join(out, id+".csv"))
			if err != nil {
				return err
			}
			w := bufio.NewWriterSize(f, 1<<20)
			_, err = conn.PgConn().CopyTo(ctx, w, q)
			if err == nil {
				err = w.Flush()
			}
			f.Close()
			if err != nil {
				return fmt.Errorf("pg %s: %w", id, err)
			}
		}
		a := measurement{name: "the checks inside PostgreSQL", wall: time.Since(t0)}
		spec := fmt.Sprintf("name: bench-pg\nsource: {uri: %q, table: %s}\nsink: {uri: %q, table: %s}\nid: [entry_id]\nmeasures: [amount]\ngroup_by: [account]\ncheckpoint: checkpoint_id\nlogical_key: [entry_id]\n",
			o.pgURL, pgSource, o.pgURL, pgSink)
		specPath := o.path("runs/pg.yaml")
		if err := os.WriteFile(specPath, []byte(spec), 0o644); err != nil {
			return err
		}
		args := append([]string{"run", "--config", specPath, "--out", o.path("runs/pg-evidence"), "--force", "--progress"}, o.memArgs()...)
		r := child("reconcile", o.path("runs/pg-reconcile.log"), exec.Command(o.reconcile, append(args, o.extra...)...))
		if r.err != nil {
			log, _ := os.ReadFile(o.path("runs/pg-reconcile.log"))
			return fmt.Errorf("pg reconcile: %w\n%s", r.err, tail(string(log), 2000))
		}
		r.name = "reconcile run, inputs in PG"
		for j, m := range []measurement{a, r} {
			if best[j].wall == 0 || m.wall < best[j].wall {
				best[j] = m
			}
		}
	}
	report("postgres", best[0], best[1])
	return nil
}
