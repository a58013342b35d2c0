package report_test

import (
	"context"
	"html"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile-dev/reconcile/internal/control"
	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/spec"

	_ "github.com/reconcile-dev/reconcile/sources/all" // the tests read inputs of every kind
)

// TestPopulationSameEverywhere runs the bundled samples and reads the
// population table back from report.md, report.html and workbook.xlsx: the
// three state the same rows and figures. For the windowed hourly-report
// sample that is events against window rows (no difference), keys against
// keys and the rows per key — not the events-minus-rows difference and the
// "distinct ids" of a sink without ids that report.html and the workbook
// once showed.
func TestPopulationSameEverywhere(t *testing.T) {
	for _, tt := range []struct {
		spec string
		want [][4]string // label, source, sink, difference
	}{
		{filepath.Join("..", "samples", "hourly-report", "spec.yaml"), [][4]string{
			{"source events; sink rows (not comparable: one sink row per window and group)", "1955", "26", "–"},
			{"window + group keys: re-performed from the source; distinct in the sink", "24", "24", "0"},
			{"sink rows per key (1.0 when each window is written once)", "–", "1.0833", "–"},
		}},
		{filepath.Join("..", "samples", "ledger", "at-least-once.yaml"), [][4]string{
			{"rows", "3000", "3130", "130"},
			{"distinct ids", "3000", "3000", "0"},
		}},
	} {
		t.Run(filepath.Base(filepath.Dir(tt.spec)), func(t *testing.T) {
			s, err := spec.Load(tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			s.Out = filepath.Join(t.TempDir(), "evidence")
			if _, err := control.Run(context.Background(), s, control.Options{}); err != nil {
				t.Fatal(err)
			}
			md, ht, wb := mdPopulation(t, s.Out), htmlPopulation(t, s.Out), xlsxPopulation(t, s.Out)
			if len(md) < len(tt.want) {
				t.Fatalf("report.md population %q, want at least %q", md, tt.want)
			}
			for i, w := range tt.want {
				if md[i] != w {
					t.Errorf("report.md population row %d = %q, want %q", i+1, md[i], w)
				}
			}
			for name, got := range map[string][][4]string{"report.html": ht, "workbook.xlsx": wb} {
				if len(got) != len(md) {
					t.Errorf("%s has %d population rows, report.md %d:\n%q\n%q", name, len(got), len(md), got, md)
					continue
				}
				for i := range md {
					if !sameRow(md[i], got[i]) {
						t.Errorf("%s population row %d = %q; report.md says %q", name, i+1, got[i], md[i])
					}
				}
			}
		})
	}
}

// sameRow compares two population rows: labels without regard to case (the
// workbook capitalises), figures as exact decimals (the workbook stores
// numbers and formats them with separators).
func sameRow(a, b [4]string) bool {
	if !strings.EqualFold(a[0], b[0]) {
		return false
	}
	for i := 1; i < 4; i++ {
		x, okx := new(big.Rat).SetString(strings.ReplaceAll(a[i], ",", ""))
		y, oky := new(big.Rat).SetString(strings.ReplaceAll(b[i], ",", ""))
		switch {
		case okx && oky:
			if x.Cmp(y) != 0 {
				return false
			}
		case a[i] != b[i]:
			return false
		}
	}
	return true
}

func mdPopulation(t *testing.T, dir string) [][4]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, evidence.MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	var out [][4]string
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "| population | source | sink |"):
			in = true
		case in && strings.HasPrefix(line, "|---"):
		case in && strings.HasPrefix(line, "| "):
			f := strings.Split(strings.Trim(line, "| "), " | ")
			if len(f) != 4 {
				t.Fatalf("report.md population row %q", line)
			}
			out = append(out, [4]string{f[0], f[1], f[2], f[3]})
		case in:
			return out
		}
	}
	return out
}

var htmlRow = regexp.MustCompile(`<tr><td>([^<]*)</td><td class="n">([^<]*)</td><td class="n">([^<]*)</td><td class="n">([^<]*)</td></tr>`)

func htmlPopulation(t *testing.T, dir string) [][4]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, evidence.HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	i := strings.Index(page, "<h2>Population</h2>")
	if i < 0 {
		t.Fatal("report.html has no Population section")
	}
	table := page[i : i+strings.Index(page[i:], "</table>")]
	var out [][4]string
	for _, m := range htmlRow.FindAllStringSubmatch(table, -1) {
		out = append(out, [4]string{html.UnescapeString(m[1]), html.UnescapeString(m[2]), html.UnescapeString(m[3]), html.UnescapeString(m[4])})
	}
	return out
}

func xlsxPopulation(t *testing.T, dir string) [][4]string {
	t.Helper()
	f, err := excelize.OpenFile(filepath.Join(dir, evidence.WorkbookFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.GetRows("Summary")
	if err != nil {
		t.Fatal(err)
	}
	var out [][4]string
	in := false
	for _, r := range rows {
		r = append(r, "", "", "", "")
		switch {
		case r[0] == "Population":
			in = true
		case in && r[0] == "":
			return out
		case in:
			out = append(out, [4]string{r[0], r[1], r[2], r[3]})
		}
	}
	return out
}
