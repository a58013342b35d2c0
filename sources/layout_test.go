package sources_test

import (
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"maps"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/reconcile-dev/reconcile/sources"

	_ "github.com/reconcile-dev/reconcile/sources/all" // every kind registered, for its name
)

// module is the import path of the module; this package is module+"/sources".
const module = "github.com/reconcile-dev/reconcile"

// shared are the packages below sources/ that are no kind: the contract's
// helpers and tools. Every other package directly below sources/ is a kind
// (a new one is checked as one without being named here); packages below
// sources/internal/ are shared helpers.
var shared = map[string]bool{
	"all":        true, // imports every kind
	"fileset":    true, // what the file kinds share
	"sourcetest": true, // the conformance suite (a test helper: it loads into DuckDB)
	"restarts":   true, // a job's restart history, read for the checks
}

// forbidden are the packages no kind may import, directly or through
// another package: the engine, the loader and the checks.
var forbidden = []string{module + "/internal/duck", module + "/internal/load", module + "/checks"}

// abbreviations are the short forms of a kind's name that its exported
// names must not start with either (PGColumn, MySQLIdent).
var abbreviations = map[string][]string{"postgres": {"PG", "Pg"}, "mysql": {"My"}}

// listed is what go list says of one package.
type listed struct {
	ImportPath string
	Name       string
	Dir        string
	GoFiles    []string
	Deps       []string
}

// packages lists every package of ./... (below sources/) with go list.
func packages(t *testing.T) []listed {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Name,Dir,GoFiles,Deps", "./...")
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		t.Fatalf("go list: %v\n%s", err, ee.Stderr)
	}
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listed
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 2 {
		t.Fatalf("go list found %d packages below sources/", len(pkgs))
	}
	return pkgs
}

// kindOf returns the kind package's name when p is a kind package (one
// directly below sources/, not shared), else "".
func kindOf(p listed) string {
	rel, ok := strings.CutPrefix(p.ImportPath, module+"/sources/")
	if !ok || strings.Contains(rel, "/") || shared[rel] || rel == "internal" {
		return ""
	}
	return rel
}

// The rules of the package doc (Layout): a kind package never imports
// another kind package, the engine, the loader or the checks, not even
// through a shared package; no non-test file of package sources is named
// after a kind; a kind's exported names do not repeat its name.
func TestLayout(t *testing.T) {
	pkgs := packages(t)
	kinds := map[string]string{} // import path → kind package name
	for _, p := range pkgs {
		if k := kindOf(p); k != "" {
			kinds[p.ImportPath] = k
		}
	}
	for _, want := range []string{"file", "postgres", "mysql", "kafka"} {
		if !slices.Contains(slices.Collect(maps.Values(kinds)), want) {
			t.Errorf("no kind package %s below sources/ (found %v)", want, kinds)
		}
	}
	var root *listed
	for i, p := range pkgs {
		if p.ImportPath == module+"/sources" {
			root = &pkgs[i]
		}
		k := kinds[p.ImportPath]
		if k == "" {
			continue
		}
		for _, d := range p.Deps {
			if other, isKind := kinds[d]; isKind && other != k {
				t.Errorf("kind package %s imports kind package %s (directly or through a shared package): move what both need to a shared package", p.ImportPath, d)
			}
			if slices.Contains(forbidden, d) {
				t.Errorf("kind package %s imports %s (directly or through a shared package): a kind knows no engine, loader or checks", p.ImportPath, d)
			}
		}
		checkNames(t, p, k)
	}
	if root == nil {
		t.Fatal("go list did not list package sources")
	}

	// No non-test file of the root is named after a kind (a registered
	// kind, or a kind package).
	names := sources.Kinds()
	for _, k := range kinds {
		names = append(names, k)
	}
	for _, f := range root.GoFiles {
		base := strings.ToLower(strings.TrimSuffix(filepath.Base(f), ".go"))
		for _, k := range names {
			if strings.Contains(base, k) {
				t.Errorf("sources/%s is named after kind %s: a kind's code lives in its own package", f, k)
			}
		}
	}
}

// checkNames refuses an exported top-level name of kind package p that
// repeats the kind: its package name (postgres.PostgresColumn) or its
// abbreviation (postgres.PGColumn).
func checkNames(t *testing.T, p listed, kind string) {
	t.Helper()
	fset := token.NewFileSet()
	for _, f := range p.GoFiles {
		af, err := parser.ParseFile(fset, filepath.Join(p.Dir, f), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range exportedNames(af) {
			repeats := strings.Contains(strings.ToLower(name), kind)
			for _, a := range abbreviations[kind] {
				if rest, ok := strings.CutPrefix(name, a); ok && rest != "" && unicode.IsUpper(rune(rest[0])) {
					repeats = true
				}
			}
			if repeats {
				t.Errorf("%s: %s.%s repeats the kind's name; name it without (postgres.ErrUnmappedType, not ErrPGUnmappedType)", path.Join(p.ImportPath, f), kind, name)
			}
		}
	}
}

// exportedNames are the exported top-level functions, types, variables and
// constants of af (methods excluded).
func exportedNames(af *ast.File) []string {
	var out []string
	for _, d := range af.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.IsExported() {
				out = append(out, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						out = append(out, s.Name.Name)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							out = append(out, n.Name)
						}
					}
				}
			}
		}
	}
	return out
}
