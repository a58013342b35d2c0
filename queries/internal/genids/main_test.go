package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// queries/ids.go is what genids writes from the SQL files as they are now:
// a file added, renamed or given another id without `go generate
// ./queries` fails here.
func TestIDsCurrent(t *testing.T) {
	want, err := generate(os.DirFS("../.."))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../" + output)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("queries/%s is not current: run go generate ./queries", output)
	}
}

// The constants are named after the folder and the id, initialisms in
// capitals, and carry the header's id; a file without an id, an id that
// is not the file name, and two files giving one constant are refused.
func TestGenerate(t *testing.T) {
	fsys := fstest.MapFS{
		"020_missing_ids.sql":        {Data: []byte("-- check: missing_ids\n-- assertion: completeness\nSELECT 1\n")},
		"_fragment.sql":              {Data: []byte("SELECT 1\n")},
		"load/010_read_csv.sql":      {Data: []byte("-- statement: read_csv\n-- description: d\nSELECT 1\n")},
		"rules/has_zone.sql":         {Data: []byte("-- fragment: has_zone\n-- description: d\ntrue\n")},
		"bench/pg_load/010_drop.sql": {Data: []byte("-- statement: drop\n-- description: d\nDROP TABLE x\n")},
		"postgres/030_wal_lsn.sql":   {Data: []byte("-- statement: wal_lsn\n-- description: d\nSELECT 1\n")},
		"explain/notes.txt":          {Data: []byte("not SQL")},
	}
	src, err := generate(fsys)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`CheckMissingIDs = "missing_ids" // 020_missing_ids.sql`,
		`LoadReadCSV = "read_csv" // load/010_read_csv.sql`,
		`RulesHasZone = "has_zone" // rules/has_zone.sql`,
		`BenchPGLoadDrop = "drop" // bench/pg_load/010_drop.sql`,
		`PostgresWALLSN = "wal_lsn" // postgres/030_wal_lsn.sql`,
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("generated source lacks %q:\n%s", want, src)
		}
	}
	if strings.Contains(string(src), "fragment.sql") || strings.Contains(string(src), "notes") {
		t.Errorf("a root fragment or a file that is not SQL got a constant:\n%s", src)
	}
	for name, files := range map[string]fstest.MapFS{
		"no id":                {"load/010_read_csv.sql": {Data: []byte("-- description: d\nSELECT 1\n")}},
		"not the name":         {"load/010_read_csv.sql": {Data: []byte("-- statement: read_tsv\nSELECT 1\n")}},
		"check without check:": {"020_missing_ids.sql": {Data: []byte("-- statement: missing_ids\nSELECT 1\n")}},
		"one constant twice": {
			"run/010_x_ids.sql":  {Data: []byte("-- statement: x_ids\nSELECT 1\n")},
			"run/020_x_i_ds.sql": {Data: []byte("-- statement: x_i_ds\nSELECT 1\n")},
		},
	} {
		if _, err := generate(files); err == nil {
			t.Errorf("%s: generated without an error", name)
		}
	}
}

// idArg is the position of the file's id among the arguments of the calls
// that name a file of queries/: queries.Set.SQL and duck.DB's statement
// helpers.
var idArg = map[string]int{"SQL": 0, "ExecFile": 2, "ExecCountFile": 2, "CountFile": 2, "StringsFile": 2, "pgSQL": 0, "mySQL": 0}

// Go code names a file of queries/ by its constant, never by a string
// literal that a misspelling would leave compiling: no call of
// queries.Set.SQL or of duck.DB's statement helpers outside the tests has
// a literal for its id (the PostgreSQL and MySQL kinds' pgSQL and mySQL
// included).
func TestGoNamesFilesByConstant(t *testing.T) {
	root := "../../.."
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			var name string
			switch fn := call.Fun.(type) {
			case *ast.SelectorExpr:
				name = fn.Sel.Name
			case *ast.Ident:
				name = fn.Name
			default:
				return true
			}
			i, ok := idArg[name]
			if !ok || i >= len(call.Args) {
				return true
			}
			if lit, ok := call.Args[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				t.Errorf("%s: %s names a file by the literal %s; use its constant of queries/ids.go", fset.Position(lit.Pos()), name, lit.Value)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
