package report

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// compare checks got against the golden file, or rewrites it with -update.
// A missing golden file compares as empty.
func compare(t *testing.T, golden string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if !bytes.Equal(want, got) {
		wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
		for i := 0; i < max(len(wl), len(gl)); i++ {
			var w, g string
			if i < len(wl) {
				w = wl[i]
			}
			if i < len(gl) {
				g = gl[i]
			}
			if w != g {
				t.Errorf("%s differs (go test -run %s -update rewrites it); first difference at line %d:\n-want %q\n+got  %q", golden, t.Name(), i+1, w, g)
				return
			}
		}
	}
}

// goldenCases are the fixtures rendered into testdata/golden: a sink of
// records, and a re-performed windowed sink in testdata/golden/windowed.
var goldenCases = []struct {
	name    string
	summary func(testing.TB) *evidence.Summary
	dir     string
	golden  string
}{
	{"records", fixture, fixtureDir, filepath.Join("testdata", "golden")},
	{"windowed", windowedFixture, windowedDir, filepath.Join("testdata", "golden", "windowed")},
}

// TestGolden renders each fixture in every format — the workbook as a cell
// dump — and compares with its golden files.
func TestGolden(t *testing.T) {
	for _, gc := range goldenCases {
		s := gc.summary(t)
		normaliseRun(s)
		v := newTestView(t, s, os.DirFS(gc.dir))
		for _, format := range []string{"json", "md", "html", "xlsx"} {
			t.Run(gc.name+"/"+format, func(t *testing.T) {
				w, err := Lookup(format)
				if err != nil {
					t.Fatal(err)
				}
				var buf bytes.Buffer
				if err := w.Write(context.Background(), &buf, v); err != nil {
					t.Fatal(err)
				}
				file, got := w.File(), buf.Bytes()
				if format == "xlsx" {
					file, got = "workbook.txt", dumpWorkbook(t, buf.Bytes())
				}
				compare(t, filepath.Join(gc.golden, file), got)
			})
		}
	}
}

// dumpWorkbook lists a workbook cell by cell — sheet, cell, type, number
// format, whether it wraps, and stored value — with each sheet's frozen
// panes, autofilter, merged cells, column widths, row heights and print
// setup (orientation, fit, margins, rows repeated atop each page, footer):
// what a reader of the workbook sees and prints, independent of the zip's
// bytes.
func dumpWorkbook(t testing.TB, data []byte) []byte {
	t.Helper()
	f, err := excelize.OpenReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b strings.Builder
	props, err := f.GetDocProps()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "properties: title %q, subject %q, creator %q, created %s, modified %s, identifier %q\n", props.Title, props.Subject, props.Creator, props.Created, props.Modified, props.Identifier)
	filters, titles := map[string]string{}, map[string]string{}
	for _, dn := range f.GetDefinedName() {
		switch dn.Name {
		case "_xlnm._FilterDatabase":
			filters[dn.Scope] = dn.RefersTo
		case "_xlnm.Print_Titles":
			titles[dn.Scope] = dn.RefersTo
		}
	}
	for _, sheet := range f.GetSheetList() {
		fmt.Fprintf(&b, "\n== %s\n", sheet)
		panes, _ := f.GetPanes(sheet)
		if panes.Freeze {
			fmt.Fprintf(&b, "frozen: %d row(s), top-left %s\n", panes.YSplit, panes.TopLeftCell)
		}
		if r, ok := filters[sheet]; ok {
			fmt.Fprintf(&b, "autofilter: %s\n", r)
		}
		layout, err := f.GetPageLayout(sheet)
		if err != nil {
			t.Fatal(err)
		}
		if layout.Orientation != nil {
			fmt.Fprintf(&b, "page: %s", *layout.Orientation)
			if layout.FitToWidth != nil {
				fmt.Fprintf(&b, ", fit to %d page(s) wide", *layout.FitToWidth)
			}
			b.WriteString("\n")
		}
		if m, err := f.GetPageMargins(sheet); err == nil && m.Left != nil {
			fmt.Fprintf(&b, "margins (in): left %g, right %g, top %g, bottom %g, header %g, footer %g\n", *m.Left, *m.Right, *m.Top, *m.Bottom, *m.Header, *m.Footer)
		}
		if r, ok := titles[sheet]; ok {
			fmt.Fprintf(&b, "printed atop every page: %s\n", r)
		}
		if hf, err := f.GetHeaderFooter(sheet); err == nil && hf != nil && hf.OddFooter != "" {
			fmt.Fprintf(&b, "footer: %q\n", hf.OddFooter)
		}
		merged, _ := f.GetMergeCells(sheet)
		for _, m := range merged {
			fmt.Fprintf(&b, "merged: %s:%s\n", m.GetStartAxis(), m.GetEndAxis())
		}
		rows, err := f.GetRows(sheet, excelize.Options{RawCellValue: true})
		if err != nil {
			t.Fatal(err)
		}
		width := 0
		for _, r := range rows {
			width = max(width, len(r))
		}
		var ws []string
		for c := 1; c <= width; c++ {
			name, _ := excelize.ColumnNumberToName(c)
			w, _ := f.GetColWidth(sheet, name)
			ws = append(ws, fmt.Sprintf("%s=%g", name, w))
		}
		fmt.Fprintf(&b, "widths: %s\n", strings.Join(ws, " "))
		var hs []string
		for i := range rows {
			if h, _ := f.GetRowHeight(sheet, i+1); h != 15 {
				hs = append(hs, fmt.Sprintf("%d=%g", i+1, h))
			}
		}
		if len(hs) > 0 {
			fmt.Fprintf(&b, "heights: %s\n", strings.Join(hs, " "))
		}
		for i, r := range rows {
			for j, v := range r {
				cell, _ := excelize.CoordinatesToCellName(j+1, i+1)
				style, _ := f.GetCellStyle(sheet, cell)
				if v == "" && style == 0 {
					continue
				}
				typ, _ := f.GetCellType(sheet, cell)
				kind := "number"
				switch typ {
				case excelize.CellTypeInlineString, excelize.CellTypeSharedString:
					kind = "text"
				case excelize.CellTypeBool:
					kind = "bool"
				}
				if v == "" {
					kind = "empty"
				}
				format := ""
				if st, err := f.GetStyle(style); err == nil && st != nil {
					switch {
					case st.CustomNumFmt != nil:
						format = *st.CustomNumFmt
					case st.NumFmt == 49:
						format = "@"
					case st.NumFmt != 0:
						format = fmt.Sprintf("fmt%d", st.NumFmt)
					}
				}
				if st, err := f.GetStyle(style); err == nil && st != nil && st.Alignment != nil && st.Alignment.WrapText {
					format += ", wraps"
				}
				if formula, _ := f.GetCellFormula(sheet, cell); formula != "" {
					kind += " FORMULA " + formula
				}
				fmt.Fprintf(&b, "%s %s [%s] %q\n", cell, kind, format, v)
			}
		}
	}
	return []byte(b.String())
}

// TestHTMLSelfContained: the page fetches nothing and runs nothing, and
// values are escaped.
func TestHTMLSelfContained(t *testing.T) {
	for _, gc := range goldenCases {
		v := newTestView(t, gc.summary(t), os.DirFS(gc.dir))
		var buf bytes.Buffer
		if err := (htmlWriter{}).Write(context.Background(), &buf, v); err != nil {
			t.Fatal(err)
		}
		page := buf.String()
		for _, bad := range []string{"<script", "<link", "<img", "<iframe", "<object", "@import", "src=", "url(", `href="http`, `href="//`} {
			if i := strings.Index(page, bad); i >= 0 {
				t.Errorf("%s: report.html contains %q: %s", gc.name, bad, page[max(0, i-60):min(len(page), i+60)])
			}
		}
		want := map[string][]string{
			// the exception value =HYPERLINK("http://…") must appear escaped
			"records": {"=HYPERLINK(&#34;http:", "<svg", "checkpoints 8 → 9", "ACC-02", "Prepared by", "Sum of amount: sink − source",
				"<td>Same snapshot as another input</td><td class=\"dv\">no</td>", "amount: numeric(18,2) → decimal(18, 2)", `<details class="sql"><summary>SQL run`},
			"windowed": {"<svg", "restart 1 03:14:00", "restart 2 05:40:00", "checkpoints 8 → 9", "Re-performed vs sink per window: revenue", "one_row_inflated 1", "Prepared by"},
		}[gc.name]
		for _, w := range want {
			if !strings.Contains(page, w) {
				t.Errorf("%s: report.html lacks %q", gc.name, w)
			}
		}
	}
}

// TestViewDisagreesWithSummary: an exceptions file whose rows or columns
// are not what summary.json says is an error — no report states what the
// evidence does not hold.
func TestViewDisagreesWithSummary(t *testing.T) {
	s := fixture(t)
	s.Check("missing_ids").Exceptions++
	if _, err := NewView(context.Background(), s, os.DirFS(fixtureDir)); err == nil || !strings.Contains(err.Error(), "holds 8 rows, but the check counted 9") {
		t.Errorf("count: %v", err)
	}
	s = fixture(t)
	s.Check("sum_balance").Columns[1].Name = "source_amt"
	if _, err := NewView(context.Background(), s, os.DirFS(fixtureDir)); err == nil || !strings.Contains(err.Error(), `is "source_amount", but summary.json says "source_amt"`) {
		t.Errorf("column: %v", err)
	}
	s = fixture(t)
	if _, err := NewView(context.Background(), s, emptyFS{}); err == nil {
		t.Error("no exceptions files: no error")
	}
}

type emptyFS struct{}

func (emptyFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}
