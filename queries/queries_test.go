package queries

import (
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/reconcile-dev/reconcile/internal/sqlfile"
)

// Every sub-folder of queries/ reads with a strict header for each file:
// its statement: or fragment: is its file name's id, it has a
// description, and no two files share an id; the set lists the ids in
// file-name order.
func TestEveryFolderReads(t *testing.T) {
	byDir := map[string][]string{}
	err := fs.WalkDir(FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && path.Dir(p) != "." {
			byDir[path.Dir(p)] = append(byDir[path.Dir(p)], p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(byDir) < 14 {
		t.Fatalf("%d sub-folders in FS, want every folder of the package doc", len(byDir))
	}
	for dir, files := range byDir {
		s, err := NewSet(dir, sqlfile.Funcs())
		if err != nil {
			t.Errorf("%s: %v", dir, err)
			continue
		}
		slices.Sort(files)
		want := make([]string, len(files))
		for i, f := range files {
			want[i] = sqlfile.IDOf(f)
		}
		if got := s.IDs(); !slices.Equal(got, want) {
			t.Errorf("%s: ids %v, want %v", dir, got, want)
		}
		for _, id := range s.IDs() {
			f, err := s.File(id)
			if err != nil || f.Value("description") == "" || f.Value("statement")+f.Value("fragment") != id {
				t.Errorf("%s: file %s: %v, header %q / %q / %q", dir, id, err, f.Value("statement"), f.Value("fragment"), f.Value("description"))
			}
		}
	}
}

// A header that breaks a rule of the package doc is an error that wraps
// sqlfile.ErrParse and names the file, every broken file of the folder in
// one error; a good folder renders its files without their header.
func TestHeaderErrors(t *testing.T) {
	fsys := fstest.MapFS{
		"x/010_both.sql":      {Data: []byte("-- statement: both\n-- fragment: both\n-- description: d\nSELECT 1\n")},
		"x/020_none.sql":      {Data: []byte("-- description: d\nSELECT 1\n")},
		"x/030_named.sql":     {Data: []byte("-- statement: other\n-- description: d\nSELECT 1\n")},
		"x/040_bare.sql":      {Data: []byte("-- statement: bare\nSELECT 1\n")},
		"x/050_fine.sql":      {Data: []byte("-- statement: fine\n-- description: d\nSELECT 1\n")},
		"y/010_key.sql":       {Data: []byte("-- statement: key\n-- description: d\n-- note: n\nSELECT 1\n")},
		"z/010_twice.sql":     {Data: []byte("-- statement: twice\n-- description: d\nSELECT 1\n")},
		"z/020_twice.sql":     {Data: []byte("-- statement: twice\n-- description: d\nSELECT 2\n")},
		"ok/010_fragment.sql": {Data: []byte("-- fragment: fragment\n-- description: d\n{{q .}} IS NULL\n")},
	}
	_, err := newSet(fsys, "x", sqlfile.Funcs())
	if !errors.Is(err, sqlfile.ErrParse) {
		t.Fatalf("x: %v, want sqlfile.ErrParse", err)
	}
	for _, want := range []string{
		"x/010_both.sql: both -- statement: and -- fragment:",
		"x/020_none.sql: no -- statement: or -- fragment: line",
		`x/030_named.sql: header names "other"; it must equal the file name "named"`,
		"x/040_bare.sql: no -- description: line",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("x: error lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "050_fine") {
		t.Errorf("x: a good file is named in the error:\n%v", err)
	}
	for dir, want := range map[string]string{"y": `y/010_key.sql:3: unknown header key "note"`, "z": "z/020_twice.sql: a second file with id twice"} {
		if _, err := newSet(fsys, dir, sqlfile.Funcs()); !errors.Is(err, sqlfile.ErrParse) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error with %q", dir, err, want)
		}
	}
	s, err := newSet(fsys, "ok", sqlfile.Funcs())
	if err != nil {
		t.Fatal(err)
	}
	if q, err := s.SQL("fragment", "a"); err != nil || q != `"a" IS NULL` {
		t.Errorf("SQL: %q, %v; want the body without header or trailing newline", q, err)
	}
}

// The statements of the postgres and mysql input kinds parse with their
// helpers (sqlfile.Funcs; for mysql without lit, as sources reads it). The
// other folders are parsed by the tests of the package that reads them.
func TestInputKindStatementsParse(t *testing.T) {
	mysql := sqlfile.Funcs()
	delete(mysql, "lit")
	for dir, funcs := range map[string]map[string]any{"postgres": sqlfile.Funcs(), "mysql": mysql} {
		s, err := NewSet(dir, funcs)
		if err == nil {
			err = s.ParseAll()
		}
		if err != nil {
			t.Errorf("%s: %v", dir, err)
		}
	}
}
