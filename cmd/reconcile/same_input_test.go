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

// One file reached by a symbolic link, a hard link or a link inside
// a folder input is read as both source and sink: a usage error (exit 2),
// whatever the paths say; a copy with the same bytes is another file.
func TestSameFileByIdentity(t *testing.T) {
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

// One PostgreSQL table (however the location spells it: another
// user, the schema from search_path) or one MySQL table as both inputs is a
// usage error; two tables, or a query over the same table, are not.
func TestSameTableRefused(t *testing.T) {
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
