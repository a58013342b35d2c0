package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/internal/mysqltest"
	"github.com/reconcile-dev/reconcile/internal/pgtest"
)

// fixin: one file reached by a symbolic link, a hard link or a link inside
// a folder input is read as both source and sink: a usage error (exit 2),
// whatever the paths say; a copy with the same bytes is another file.
func TestFixinSameFileByIdentity(t *testing.T) {
	dir := t.TempDir()
	plain := writeFile(t, filepath.Join(dir, "plain.csv"), "id,amount\n1,1.00\n2,2.00\n")
	copied := writeFile(t, filepath.Join(dir, "copy.csv"), "id,amount\n1,1.00\n2,2.00\n")
	if err := os.Symlink("plain.csv", filepath.Join(dir, "link.csv")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(plain, filepath.Join(dir, "hard.csv")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "lnk"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../plain.csv", filepath.Join(dir, "lnk", "a.csv")); err != nil {
		t.Fatal(err)
	}
	for _, sink := range []string{"link.csv", "hard.csv", "csv:" + filepath.Join(dir, "lnk") + "/", filepath.Join(dir, ".", "plain.csv")} {
		if !strings.HasPrefix(sink, "csv:") && !filepath.IsAbs(sink) {
			sink = filepath.Join(dir, sink)
		}
		code, stdout, stderr := runCLI(t, "run", "--source", plain, "--sink", sink, "--id", "id", "--out", filepath.Join(t.TempDir(), "ev"), "--format", "json")
		if code != exitUsage || !strings.Contains(stderr, "is read as both source and sink") {
			t.Errorf("--sink %s: exit %d, stdout %q, stderr %q; want 2", sink, code, stdout, stderr)
		}
	}
	if code, _, stderr := runCLI(t, "run", "--source", plain, "--sink", copied, "--id", "id", "--out", filepath.Join(t.TempDir(), "ev"), "--format", "json"); code != exitOK {
		t.Errorf("a copy: exit %d: %s", code, stderr)
	}
}

// fixin: one PostgreSQL table (however the location spells it: another
// user, the schema from search_path) or one MySQL table as both inputs is a
// usage error; two tables, or a query over the same table, are not.
func TestFixinSameTableRefused(t *testing.T) {
	t.Run("postgres", func(t *testing.T) {
		schema, conn := pgtest.Schema(t)
		pgtest.Exec(t, conn, fmt.Sprintf(`CREATE TABLE %[1]s.fixin_a (id text); CREATE TABLE %[1]s.fixin_b (id text);
INSERT INTO %[1]s.fixin_a VALUES ('1'); INSERT INTO %[1]s.fixin_b VALUES ('1')`, schema))
		a := pgtest.TableURL(schema, "fixin_a")
		viaPath := pgtest.URL()
		sep := "?"
		if strings.Contains(viaPath, "?") {
			sep = "&"
		}
		viaPath += sep + "table=fixin_a&search_path=" + schema
		for _, sink := range []string{a, viaPath} {
			code, stdout, stderr := runCLI(t, "run", "--source", a, "--sink", sink, "--id", "id", "--out", filepath.Join(t.TempDir(), "ev"), "--format", "json")
			if code != exitUsage || !strings.Contains(stderr, "is read as both source and sink") {
				t.Errorf("--sink %s: exit %d, stdout %q, stderr %q; want 2", sink, code, stdout, stderr)
			}
		}
		query := pgtest.URL() + sep + "query=" + fmt.Sprintf("SELECT id FROM %s.fixin_a", schema)
		for _, sink := range []string{pgtest.TableURL(schema, "fixin_b"), query} {
			if code, _, stderr := runCLI(t, "run", "--source", a, "--sink", sink, "--id", "id", "--out", filepath.Join(t.TempDir(), "ev"), "--format", "json"); code != exitOK {
				t.Errorf("--sink %s: exit %d: %s", sink, code, stderr)
			}
		}
	})
	t.Run("mysql", func(t *testing.T) {
		db, conn := mysqltest.Database(t)
		mysqltest.Exec(t, conn, "CREATE TABLE fixin_a (id varchar(10))")
		mysqltest.Exec(t, conn, "INSERT INTO fixin_a VALUES ('1')")
		a := mysqltest.TableURL(t, db, "fixin_a")
		for _, sink := range []string{a, mysqltest.TableURL(t, db, db+".fixin_a")} {
			code, stdout, stderr := runCLI(t, "run", "--source", a, "--sink", sink, "--id", "id", "--out", filepath.Join(t.TempDir(), "ev"), "--format", "json")
			if code != exitUsage || !strings.Contains(stderr, "is read as both source and sink") {
				t.Errorf("--sink %s: exit %d, stdout %q, stderr %q; want 2", sink, code, stdout, stderr)
			}
		}
	})
}

// fixin: a file sink whose only files are uncommitted holds no committed
// record: population fails (exit 1) and missing_ids carries each id's
// uncommitted_file; with allow_empty: [sink] population passes and
// missing_ids still fails, labelled. The columns come from the uncommitted
// files' headers, which must agree; a folder with no file stays an error.
func TestFixinSinkOnlyUncommitted(t *testing.T) {
	dir := t.TempDir()
	src := writeFile(t, filepath.Join(dir, "plain.csv"), "id,amount\n1,1.00\n2,2.00\n")
	writeFile(t, filepath.Join(dir, "ip", ".part-x-0.inprogress.abcd"), "id,amount\n1,1.00\n")
	writeFile(t, filepath.Join(dir, "ip", "_part-1.pending"), "id,amount\n2,2.00\n")
	want := "id,source_rows,source_location,uncommitted_file\n1,1,plain.csv:2,ip/.part-x-0.inprogress.abcd:2\n2,1,plain.csv:3,ip/_part-1.pending:2\n"
	for _, allow := range []bool{false, true} {
		spec := "source: plain.csv\nsink: {uri: ip/, kind: csv}\nid: id\n"
		if allow {
			spec += "allow_empty: [sink]\n"
		}
		cfg := writeFile(t, filepath.Join(dir, fmt.Sprintf("spec-%v.yaml", allow)), spec)
		out := filepath.Join(t.TempDir(), "ev")
		code, stdout, stderr := runCLI(t, "run", "--config", cfg, "--out", out, "--format", "json")
		if code != exitFailed || !strings.Contains(stdout, "FAIL    missing_ids") || strings.Contains(stdout, "FAIL    population") == allow {
			t.Fatalf("allow_empty %v: exit %d, stdout %q, stderr %q; want 1, missing_ids failing, population failing unless allowed", allow, code, stdout, stderr)
		}
		if b, _ := os.ReadFile(filepath.Join(out, "exceptions", "missing_ids.csv")); string(b) != want {
			t.Errorf("allow_empty %v: missing_ids.csv\n%s\nwant\n%s", allow, b, want)
		}
		summary, _ := os.ReadFile(filepath.Join(out, "summary.json"))
		if !strings.Contains(string(summary), `"path": "ip/_part-1.pending"`) {
			t.Errorf("allow_empty %v: summary.json does not list the skipped files", allow)
		}
		// the terminal summary says so too, where the missing ids are
		if want := "sink: 2 files skipped, 2 of them uncommitted (2 rows not read as records: in-progress or pending output); summary.json skipped_files lists each with its reason\n"; !strings.Contains(stdout, want) {
			t.Errorf("allow_empty %v: stdout lacks %q:\n%s", allow, want, stdout)
		}
	}
	writeFile(t, filepath.Join(dir, "ip", "_part-2.pending"), "id,amt\n3,1\n")
	code, _, stderr := runCLI(t, "run", "--source", src, "--sink", "csv:"+filepath.Join(dir, "ip")+"/", "--id", "id", "--out", filepath.Join(t.TempDir(), "ev"), "--format", "json")
	if code != exitRuntime || !strings.Contains(stderr, "_part-2.pending: header") {
		t.Errorf("uncommitted headers that differ: exit %d, stderr %q; want 3 naming the file", code, stderr)
	}
	if err := os.MkdirAll(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, "run", "--source", src, "--sink", "csv:"+filepath.Join(dir, "empty")+"/", "--id", "id", "--out", filepath.Join(t.TempDir(), "ev"), "--format", "json")
	if code != exitRuntime || !strings.Contains(stderr, "matches no file") {
		t.Errorf("an empty folder: exit %d, stderr %q; want 3", code, stderr)
	}
}
