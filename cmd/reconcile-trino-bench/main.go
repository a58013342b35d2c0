// Command reconcile-trino-bench is the benchmark of docs/trino.md: the same
// reconciliation of ROWS × ROWS ledger records held as Iceberg tables,
// measured in one run three ways —
//
//	(a) embedded   reconcile reading both tables (iceberg+sql:, through
//	               iceberg-go) into its DuckDB session
//	(b) on Trino   reconcile --engine trino://…: the checks run in the
//	               cluster, the exceptions travel
//	(c) by hand    the same checks hand-written in Trino SQL
//	               (queries/bench/trino_records), run through the Go driver,
//	               every result row fetched
//
// — with the wall time of each, reconcile's peak RSS in (a) and (b), and
// what the cluster's two processes (coordinator and worker) used during
// (b) and (c): their peak RSS and CPU seconds. The tables are generated
// once in the cluster (queries/bench/trino_generate) and kept in schema
// -schema of catalog iceberg. It needs the cluster of .ci/trino (make trino)
// and a build of reconcile (make build).
//
//	go run -tags duckdb_arrow ./cmd/reconcile-trino-bench -rows 10000000
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/trinodb/trino-go-client/trino"

	"github.com/reconcile-dev/reconcile/internal/sqlfile"
	"github.com/reconcile-dev/reconcile/queries"
)

type options struct {
	rows                        int
	schema, bin, trinoURL, dir  string
	catalog, cluster, contender string
}

func main() {
	home, _ := os.UserHomeDir()
	var o options
	flag.IntVar(&o.rows, "rows", 1_000_000, "source records (a multiple of 10,000); the sink has as many, 1% dropped, 1% twice, 0.1% altered")
	flag.StringVar(&o.schema, "schema", "reconcile_bench", "schema of catalog iceberg holding the tables (kept between runs)")
	flag.StringVar(&o.bin, "reconcile", "bin/reconcile", "the reconcile binary measured")
	flag.StringVar(&o.trinoURL, "trino", "http://127.0.0.1:18080", "the coordinator (.ci/trino)")
	flag.StringVar(&o.catalog, "catalog", "postgres://root@127.0.0.1:5432/trino_iceberg", "the Iceberg JDBC catalog's database, which the embedded run reads (iceberg+sql:)")
	flag.StringVar(&o.cluster, "cluster", filepath.Join(home, ".cache/reconcile/trino/cluster-476"), "the cluster's folder (.ci/trino), for its processes' pid files")
	flag.StringVar(&o.dir, "dir", "/tmp/reconcile-trino-bench", "folder for the specs, the evidence and the logs")
	flag.StringVar(&o.contender, "only", "abc", "the contenders to run: any of a, b, c")
	flag.Parse()
	if err := run(context.Background(), o); err != nil {
		fmt.Fprintln(os.Stderr, "reconcile-trino-bench:", err)
		os.Exit(1)
	}
}

// result is one contender's measurement.
type result struct {
	name       string
	wall       time.Duration
	rss        int64 // reconcile's peak RSS (0: not a reconcile process)
	cluster    map[string]usage
	exceptions int64
}

// usage is what one cluster process used while a contender ran.
type usage struct {
	peakRSS int64
	cpu     time.Duration
}

func run(ctx context.Context, o options) error {
	if o.rows <= 0 || o.rows%10000 != 0 {
		return fmt.Errorf("-rows %d: want a positive multiple of 10,000", o.rows)
	}
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return err
	}
	u, err := url.Parse(o.trinoURL)
	if err != nil {
		return err
	}
	u.User = url.User("reconcile-bench")
	conn, err := trino.NewConnector(&trino.Config{ServerURI: u.String(), TimeZone: "UTC", Source: "reconcile-bench", DisableExplicitPrepare: true})
	if err != nil {
		return err
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	source, sink := fmt.Sprintf("source_%d", o.rows), fmt.Sprintf("sink_%d", o.rows)
	if err := generate(ctx, db, o, source, sink); err != nil {
		return err
	}
	engine := "trino://reconcile@" + u.Host
	common := "id: [entry_id]\nmeasures: [amount]\ngroup_by: [account]\ncheckpoint: checkpoint_id\nlogical_key: [entry_id]\n"
	var results []result
	if strings.Contains(o.contender, "a") {
		cat, err := url.Parse(o.catalog)
		if err != nil {
			return err
		}
		q := func(t string) string {
			c := *cat
			c.RawQuery = "table=" + o.schema + "." + t + "&catalog=iceberg"
			return "iceberg+sql:" + c.String()
		}
		spec := fmt.Sprintf("name: bench-embedded\nsource: %q\nsink: %q\n%s", q(source), q(sink), common)
		r, err := child(o, "a-embedded", spec)
		if err != nil {
			return err
		}
		r.name = "(a) reconcile, embedded (iceberg+sql:)"
		results = append(results, r)
	}
	if strings.Contains(o.contender, "b") {
		spec := fmt.Sprintf("name: bench-trino\nsource: trino:iceberg.%s.%s\nsink: trino:iceberg.%s.%s\nengine: %s\n%s", o.schema, source, o.schema, sink, engine, common)
		r, err := child(o, "b-trino", spec)
		if err != nil {
			return err
		}
		r.name = "(b) reconcile --engine trino"
		results = append(results, r)
	}
	if strings.Contains(o.contender, "c") {
		r, err := byHand(ctx, db, o, source, sink)
		if err != nil {
			return err
		}
		results = append(results, r)
	}
	fmt.Printf("%d × %d records (Iceberg tables iceberg.%s.%s and %s), %s\n", o.rows, o.rows, o.schema, source, sink, time.Now().UTC().Format(time.RFC3339))
	fmt.Printf("%-42s %10s %12s %11s %22s %22s\n", "contender", "wall (s)", "exceptions", "RSS (MB)", "coordinator RSS/CPU", "worker RSS/CPU")
	for _, r := range results {
		rss := "-"
		if r.rss > 0 {
			rss = strconv.FormatInt(r.rss>>20, 10)
		}
		node := func(n string) string {
			u, ok := r.cluster[n]
			if !ok {
				return "-"
			}
			return fmt.Sprintf("%d MB / %.0f s", u.peakRSS>>20, u.cpu.Seconds())
		}
		fmt.Printf("%-42s %10.1f %12d %11s %22s %22s\n", r.name, r.wall.Seconds(), r.exceptions, rss, node("coordinator"), node("worker"))
	}
	return nil
}

// generate writes the benchmark's tables in the cluster unless they exist.
func generate(ctx context.Context, db *sql.DB, o options, source, sink string) error {
	set := queries.MustSet("bench/trino_generate", sqlfile.Funcs())
	exec := func(id string, data any) error {
		q, err := set.SQL(id, data)
		if err != nil {
			return err
		}
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			return fmt.Errorf("%s: %w", id, err)
		}
		defer rows.Close()
		for rows.Next() {
		}
		return rows.Err()
	}
	if err := exec(queries.BenchTrinoGenerateSchema, map[string]any{"Schema": o.schema}); err != nil {
		return err
	}
	for _, t := range []struct{ id, table string }{{queries.BenchTrinoGenerateSource, source}, {queries.BenchTrinoGenerateSink, sink}} {
		q, err := set.SQL(queries.BenchTrinoGenerateExists, map[string]any{"Schema": o.schema, "Table": t.table})
		if err != nil {
			return err
		}
		var n int
		if err := db.QueryRowContext(ctx, q).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			continue
		}
		t0 := time.Now()
		if err := exec(t.id, map[string]any{"Schema": o.schema, "Table": t.table, "Rows": o.rows}); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "generated iceberg.%s.%s in %s\n", o.schema, t.table, time.Since(t0).Round(time.Second))
	}
	return nil
}

// child runs reconcile on spec as a child process, with the cluster
// sampled, and reads the exceptions it counted from its summary.json.
func child(o options, name, spec string) (result, error) {
	specPath := filepath.Join(o.dir, name+".yaml")
	out := filepath.Join(o.dir, name)
	if err := os.WriteFile(specPath, []byte(spec+"out: "+out+"\n"), 0o644); err != nil {
		return result{}, err
	}
	logf, err := os.Create(filepath.Join(o.dir, name+".log"))
	if err != nil {
		return result{}, err
	}
	defer logf.Close()
	cmd := exec.Command(o.bin, "run", "--config", specPath, "--force", "--progress", "--format", "json")
	cmd.Stdout, cmd.Stderr = logf, logf
	stop := sample(o)
	t0 := time.Now()
	err = cmd.Run()
	r := result{wall: time.Since(t0), cluster: stop()}
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		err = nil // exceptions found: the expected verdict
	}
	if err != nil {
		return r, fmt.Errorf("%s: %w (log %s)", name, err, logf.Name())
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.rss = ru.Maxrss * 1024
	}
	data, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		return r, err
	}
	var sum struct {
		Checks []struct {
			ID         string `json:"id"`
			Exceptions int64  `json:"exceptions"`
		} `json:"checks"`
	}
	if err := json.Unmarshal(data, &sum); err != nil {
		return r, err
	}
	for _, c := range sum.Checks {
		if !strings.HasPrefix(c.ID, "commit_history") {
			r.exceptions += c.Exceptions
		}
	}
	return r, nil
}

// byHand runs the hand-written checks (queries/bench/trino_records) over
// the tables' current snapshots, fetching every row, with the cluster
// sampled.
func byHand(ctx context.Context, db *sql.DB, o options, source, sink string) (result, error) {
	rel := func(t string) (string, error) {
		var snap string
		q := fmt.Sprintf(`SELECT CAST(snapshot_id AS varchar) FROM iceberg.%s."%s$refs" WHERE name = 'main'`, sqlfile.Ident(o.schema), t)
		if err := db.QueryRowContext(ctx, q).Scan(&snap); err != nil {
			return "", err
		}
		return fmt.Sprintf("iceberg.%s.%s FOR VERSION AS OF %s", sqlfile.Ident(o.schema), sqlfile.Ident(t), snap), nil
	}
	s, err := rel(source)
	if err != nil {
		return result{}, err
	}
	k, err := rel(sink)
	if err != nil {
		return result{}, err
	}
	set := queries.MustSet("bench/trino_records", sqlfile.Funcs())
	r := result{name: "(c) the checks hand-written in Trino SQL"}
	stop := sample(o)
	t0 := time.Now()
	for _, id := range set.IDs() {
		q, err := set.SQL(id, map[string]any{"Source": s, "Sink": k})
		if err != nil {
			return r, err
		}
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			return r, fmt.Errorf("%s: %w", id, err)
		}
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				rows.Close()
				return r, err
			}
			if id != queries.BenchTrinoRecordsTotals {
				r.exceptions++
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return r, fmt.Errorf("%s: %w", id, err)
		}
	}
	r.wall = time.Since(t0)
	r.cluster = stop()
	return r, nil
}

// sample starts reading the peak RSS and the CPU time of the cluster's two
// processes (their launcher pid files) every 200 ms; the returned function
// stops and returns what each used since.
func sample(o options) func() map[string]usage {
	pids := map[string]int{}
	for _, n := range []string{"coordinator", "worker"} {
		data, err := os.ReadFile(filepath.Join(o.cluster, n, "data/var/run/launcher.pid"))
		if err != nil {
			continue
		}
		if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
			pids[n] = pid
		}
	}
	start := map[string]time.Duration{}
	for n, pid := range pids {
		start[n] = cpuOf(pid)
	}
	out := map[string]usage{}
	var mu sync.Mutex
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			mu.Lock()
			for n, pid := range pids {
				u := out[n]
				u.peakRSS = max(u.peakRSS, rssOf(pid))
				out[n] = u
			}
			mu.Unlock()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() map[string]usage {
		close(done)
		wg.Wait()
		for n, pid := range pids {
			u := out[n]
			u.cpu = cpuOf(pid) - start[n]
			out[n] = u
		}
		return out
	}
}

// rssOf is a process's resident set (VmRSS of /proc/PID/status), in bytes.
func rssOf(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// cpuOf is a process's user and system CPU time (/proc/PID/stat).
func cpuOf(pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ
}
