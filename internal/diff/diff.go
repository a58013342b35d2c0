// Package diff compares the exceptions of two evidence folders check by
// check (`reconcile diff`): what is in one and not the other, and which
// keys of both have other rows. An exception is keyed as the run history
// keys it (package history: its check id and the values of its key
// columns, evidence.KeyColumns).
package diff

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/report"
)

// ErrUnverified: an evidence folder given to Diff does not match its
// manifest (a file was changed, removed or added); its exceptions are not
// compared. No class: exit 3, the input could not be read as written.
var ErrUnverified = errors.New("evidence: the folder does not verify against its manifest")

// Key is one exception key: the values of the key columns as text (nil for
// NULL), as the exceptions CSV holds them and the history keys them.
type Key []*string

func (k Key) id() string {
	b, _ := json.Marshal([]*string(k))
	return string(b)
}

// Folder is one evidence folder as Diff read it.
type Folder struct {
	// Dir is the folder, as given.
	Dir     string
	Summary *evidence.Summary
}

// CheckDiff compares one check's exceptions in two evidence folders.
type CheckDiff struct {
	ID string
	// KeyColumns are the key columns (those of A when both ran).
	KeyColumns []string
	// InA and InB count the distinct keys of each folder (0 when the check
	// did not run there).
	InA, InB int
	// OnlyA are the keys in A and not in B (gone in B), OnlyB the keys in
	// B and not in A (new in B), Changed the keys in both whose rows differ
	// (valueColumns: a balance whose difference moved), all sorted; Both
	// counts the keys in both, Changed included.
	OnlyA, OnlyB, Changed []Key
	Both                  int
	// Note says why the check was not compared (it did not run in one of
	// the folders, or was keyed by other columns); then OnlyA and OnlyB
	// are empty.
	Note string
}

// Differs reports whether the check's exceptions differ.
func (d *CheckDiff) Differs() bool {
	return len(d.OnlyA)+len(d.OnlyB)+len(d.Changed) > 0 || d.Note != ""
}

// Comparison is Diff's result.
type Comparison struct {
	A, B   Folder
	Checks []*CheckDiff
}

// Differs reports whether any check differs.
func (c *Comparison) Differs() bool {
	for _, d := range c.Checks {
		if d.Differs() {
			return true
		}
	}
	return false
}

// Diff compares the exceptions of two evidence folders check by check,
// keyed as the history keys them (see package history): what is in one and
// not in the other, and which keys of both have other rows (their value
// columns, valueColumns, as text: a balance of the same account off by
// another amount). Each folder is verified against its manifest first
// (evidence.Verify); one that does not verify is an error wrapping
// ErrUnverified, one without a manifest wraps evidence.ErrNoManifest.
// Checks are listed in A's order, then those only B ran.
func Diff(ctx context.Context, a, b string) (*Comparison, error) {
	fa, err := readExceptions(ctx, a)
	if err != nil {
		return nil, err
	}
	fb, err := readExceptions(ctx, b)
	if err != nil {
		return nil, err
	}
	c := &Comparison{A: Folder{Dir: a, Summary: fa.summary}, B: Folder{Dir: b, Summary: fb.summary}}
	var ids []string
	for _, s := range []*evidence.Summary{c.A.Summary, c.B.Summary} {
		for _, ch := range s.Checks {
			if !slices.Contains(ids, ch.ID) {
				ids = append(ids, ch.ID)
			}
		}
	}
	for _, id := range ids {
		if d := compareCheck(id, fa, fb); d != nil {
			c.Checks = append(c.Checks, d)
		}
	}
	return c, nil
}

// folderExceptions are the exceptions of one evidence folder, by check id.
type folderExceptions struct {
	dir     string
	summary *evidence.Summary
	// keys[check][key id] are the check's keys; a check that did not run
	// (skipped, or no exceptions file) has none.
	keys map[string]map[string]Key
	// rows[check][key id] are the key's rows, each its value columns as
	// JSON text, sorted.
	rows map[string]map[string][]string
}

// readExceptions verifies the evidence folder dir against its manifest and
// reads its summary and the keys and rows of every check that ran.
func readExceptions(ctx context.Context, dir string) (*folderExceptions, error) {
	v, err := evidence.Verify(ctx, dir, nil)
	if err != nil {
		return nil, err
	}
	if !v.OK() {
		return nil, fmt.Errorf("%w: %s: %d changed, %d missing, %d added (reconcile verify %s lists them)", ErrUnverified, dir, len(v.Changed), len(v.Missing), len(v.Added), dir)
	}
	f, err := os.Open(filepath.Join(dir, evidence.SummaryFile))
	if err != nil {
		return nil, err
	}
	s, err := evidence.DecodeSummary(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	view, err := report.NewView(ctx, s, os.DirFS(dir))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	fe := &folderExceptions{dir: dir, summary: s, keys: map[string]map[string]Key{}, rows: map[string]map[string][]string{}}
	for _, cv := range view.Checks {
		if cv.Status == evidence.Skipped || cv.File == "" {
			continue
		}
		idx, vals := keyIndexes(cv.Columns), valueColumns(cv.Columns)
		set, byKey := map[string]Key{}, map[string][]string{}
		err := view.EachRow(ctx, cv, func(row []report.Cell) error {
			k := cellsAt(row, idx)
			set[k.id()] = k
			byKey[k.id()] = append(byKey[k.id()], cellsAt(row, vals).id())
			return nil
		})
		if err != nil {
			return nil, err
		}
		for _, rs := range byKey {
			slices.Sort(rs)
		}
		fe.keys[cv.ID], fe.rows[cv.ID] = set, byKey
	}
	return fe, nil
}

// compareCheck compares check id's keys and rows in folders a and b: nil
// when it ran in neither, a Note when it ran in one only or was keyed by
// other columns, else the keys only in a, only in b, and changed.
func compareCheck(id string, a, b *folderExceptions) *CheckDiff {
	d := &CheckDiff{ID: id}
	ka, inA := a.keys[id]
	kb, inB := b.keys[id]
	d.InA, d.InB = len(ka), len(kb)
	colsA, colsB := keyColumnsOf(a.summary, id), keyColumnsOf(b.summary, id)
	d.KeyColumns = colsA
	if !inA {
		d.KeyColumns = colsB
	}
	switch {
	case !inA && !inB:
		return nil // skipped in both
	case !inA:
		d.Note = "not run in " + a.dir
	case !inB:
		d.Note = "not run in " + b.dir
	case !slices.Equal(colsA, colsB):
		d.Note = fmt.Sprintf("keyed by %s in %s and by %s in %s: not compared", evidence.KeyColumnsText(colsA), a.dir, evidence.KeyColumnsText(colsB), b.dir)
	default:
		ra, rb := a.rows[id], b.rows[id]
		for kid, k := range ka {
			if _, ok := kb[kid]; !ok {
				d.OnlyA = append(d.OnlyA, k)
				continue
			}
			d.Both++
			if !slices.Equal(ra[kid], rb[kid]) {
				d.Changed = append(d.Changed, k)
			}
		}
		for kid, k := range kb {
			if _, ok := ka[kid]; !ok {
				d.OnlyB = append(d.OnlyB, k)
			}
		}
		sortKeys(d.OnlyA)
		sortKeys(d.OnlyB)
		sortKeys(d.Changed)
	}
	return d
}

// cellsAt is the text of row's cells at positions idx (nil for NULL).
func cellsAt(row []report.Cell, idx []int) Key {
	k := make(Key, len(idx))
	for j, ci := range idx {
		if !row[ci].Null {
			t := row[ci].Text
			k[j] = &t
		}
	}
	return k
}

// keyIndexes are the positions of the key columns among cols.
func keyIndexes(cols []evidence.Column) []int {
	names := evidence.KeyColumns(cols)
	var out []int
	for i, c := range cols {
		if slices.Contains(names, c.Name) {
			out = append(out, i)
		}
	}
	return out
}

// valueColumns are the positions of the columns that say what an exception
// is, beyond its key: every column but the key columns, the locations
// (RoleLocation: where the rows are, which moves when earlier rows come or
// go) and the lifecycle columns of a run with a history (which change with
// every run).
func valueColumns(cols []evidence.Column) []int {
	keys := evidence.KeyColumns(cols)
	var out []int
	for i, c := range cols {
		if !slices.Contains(keys, c.Name) && c.Role != evidence.RoleLocation && !slices.Contains(evidence.LifecycleColumns, c.Name) {
			out = append(out, i)
		}
	}
	return out
}

func keyColumnsOf(s *evidence.Summary, id string) []string {
	if c := s.Check(id); c != nil {
		return evidence.KeyColumns(c.Columns)
	}
	return nil
}

// sortKeys orders keys part by part, NULL first.
func sortKeys(ks []Key) {
	sort.Slice(ks, func(i, j int) bool {
		a, b := ks[i], ks[j]
		for p := range min(len(a), len(b)) {
			switch {
			case a[p] == nil && b[p] == nil:
				continue
			case a[p] == nil:
				return true
			case b[p] == nil:
				return false
			case *a[p] != *b[p]:
				return *a[p] < *b[p]
			}
		}
		return len(a) < len(b)
	})
}
