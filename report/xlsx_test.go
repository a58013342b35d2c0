package report

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"
	"unicode/utf16"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// evidenceFS copies the evidence folder dir into a MapFS, plus extra files.
func evidenceFS(t testing.TB, dir string, extra map[string]string) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(filepath.Join(dir, p))
		m[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for p, s := range extra {
		m[p] = &fstest.MapFile{Data: []byte(s)}
	}
	return m
}

// writeXLSX renders the view of s over ev with w and opens the result with
// excelize.
func writeXLSX(t testing.TB, w xlsxWriter, s *evidence.Summary, ev fs.FS) *excelize.File {
	t.Helper()
	var buf bytes.Buffer
	if err := w.Write(context.Background(), &buf, newTestView(t, s, ev)); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// findRow returns the 1-based row of sheet whose column A is v.
func findRow(t *testing.T, f *excelize.File, sheet, v string) int {
	t.Helper()
	rows, err := f.GetRows(sheet, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		if len(r) > 0 && r[0] == v {
			return i + 1
		}
	}
	t.Fatalf("%s: no row with %q in column A", sheet, v)
	return 0
}

func TestXLSXCells(t *testing.T) {
	long := strings.Repeat("é", 20_000) + strings.Repeat("x", 20_000) // 40,000 characters
	r := fixture(t)
	ev := evidenceFS(t, fixtureDir, map[string]string{"exceptions/long_values.csv": "entry_id,payload\nL1," + long + "\n", "queries/long_values.sql": "SELECT 1\n"})
	r.Checks = append(r.Checks, checkFrom(t, ev, "long_values", "accuracy", "A value longer than a cell holds.", []evidence.Column{{Type: "VARCHAR", Role: evidence.RoleID}, {Type: "VARCHAR"}}))
	f := writeXLSX(t, xlsxWriter{}, r, ev)
	wf := writeXLSX(t, xlsxWriter{}, windowedFixture(t), os.DirFS(windowedDir))

	wantSheets := []string{"Summary", "missing_ids", "value_mismatches", "sum_balance", "key_checkpoint_conflicts", "long_values", "Inputs", "Parameters", "Queries"}
	if got := f.GetSheetList(); !slices.Equal(got, wantSheets) {
		t.Fatalf("sheets = %q, want %q", got, wantSheets)
	}
	wantSheets = []string{"Summary", "key_checkpoint_conflicts", "duplicate_keys", "reperformance_mismatches", "Inputs", "Parameters", "Queries"}
	if got := wf.GetSheetList(); !slices.Equal(got, wantSheets) {
		t.Fatalf("windowed sheets = %q, want %q", got, wantSheets)
	}

	type want struct {
		f           *excelize.File
		sheet, cell string
		raw         string // value as stored
		shown       string // value as formatted ("" = same as raw)
		number      bool   // a number cell; else a string cell
	}
	idRow := func(id string) int { return findRow(t, f, "missing_ids", id) }
	cases := []want{
		// formula-like text stays text, exactly as written
		{f, "missing_ids", fmt.Sprintf("A%d", idRow(`=HYPERLINK("http://example.invalid","click")`)), `=HYPERLINK("http://example.invalid","click")`, "", false},
		{f, "missing_ids", fmt.Sprintf("D%d", idRow(`=HYPERLINK("http://example.invalid","click")`)), `=cmd|' /C calc'!A0`, "", false},
		{f, "missing_ids", fmt.Sprintf("A%d", idRow("+1")), "+1", "", false},
		{f, "missing_ids", fmt.Sprintf("A%d", idRow("-2")), "-2", "", false},
		{f, "missing_ids", fmt.Sprintf("D%d", idRow("-2")), "-3", "", false}, // a location column: a "-3" there is text
		{f, "missing_ids", fmt.Sprintf("A%d", idRow("@SUM(A1:A2)")), "@SUM(A1:A2)", "", false},
		{f, "missing_ids", fmt.Sprintf("A%d", idRow("\tTAB")), "\tTAB", "", false},
		{f, "missing_ids", fmt.Sprintf("A%d", idRow("\rCR")), "\rCR", "", false},
		// ids are text: 20 digits kept, leading zeros kept
		{f, "missing_ids", fmt.Sprintf("A%d", idRow("12345678901234567890")), "12345678901234567890", "", false},
		{f, "missing_ids", fmt.Sprintf("A%d", idRow("007")), "007", "", false},
		// amounts: negative is a number; beyond 15 significant digits is exact text
		{f, "missing_ids", fmt.Sprintf("C%d", idRow("12345678901234567890")), "-12.5", "-12.50", true},
		{f, "missing_ids", fmt.Sprintf("C%d", idRow("007")), "1234567890.12", "1,234,567,890.12", true},
		{f, "missing_ids", fmt.Sprintf("C%d", idRow("+1")), "99999999999999999.99", "", false},
		{f, "missing_ids", fmt.Sprintf("B%d", idRow("+1")), "1", "", true},
		{f, "sum_balance", "D3", "-150.25", "-150.25", true},
		{f, "sum_balance", "A3", "ACC-02", "", false},
		{f, "key_checkpoint_conflicts", "C2", "8;9", "", false},
		{f, "key_checkpoint_conflicts", "D2", "2", "", true},
		// timestamps are date cells in UTC
		{wf, "duplicate_keys", "A2", excelSerial(t, "2026-03-01T02:00:00Z"), "2026-03-01 02:00:00", true},
		// (excelize's formatter shows .000; the stored serial and the
		// yyyy-mm-dd hh:mm:ss.000 format carry the milliseconds)
		{wf, "duplicate_keys", "F3", excelSerial(t, "2026-03-01T05:40:00.25Z"), "", true},
		// a re-performed figure is a number even though it is text in
		// DuckDB (a count on one row, a sum on the next); a list of sink
		// values stays text
		{wf, "reperformance_mismatches", "F3", "-120.5", "-120.50", true},
		{wf, "reperformance_mismatches", "H3", "-100.25", "", false},
	}
	for _, c := range cases {
		f := c.f
		raw, err := f.GetCellValue(c.sheet, c.cell, excelize.Options{RawCellValue: true})
		if err != nil {
			t.Fatal(err)
		}
		if raw != c.raw {
			t.Errorf("%s!%s = %q, want %q", c.sheet, c.cell, raw, c.raw)
		}
		if c.shown != "" {
			if shown, _ := f.GetCellValue(c.sheet, c.cell); shown != c.shown {
				t.Errorf("%s!%s shows %q, want %q", c.sheet, c.cell, shown, c.shown)
			}
		}
		typ, _ := f.GetCellType(c.sheet, c.cell)
		isNum := typ == excelize.CellTypeUnset || typ == excelize.CellTypeNumber
		isStr := typ == excelize.CellTypeInlineString || typ == excelize.CellTypeSharedString
		if c.number && !isNum || !c.number && !isStr {
			t.Errorf("%s!%s has cell type %v, want number=%v", c.sheet, c.cell, typ, c.number)
		}
		if formula, _ := f.GetCellFormula(c.sheet, c.cell); formula != "" {
			t.Errorf("%s!%s has formula %q", c.sheet, c.cell, formula)
		}
		if !c.number {
			// Text format "@": an edited cell stays text in Excel.
			style, _ := f.GetCellStyle(c.sheet, c.cell)
			if st, err := f.GetStyle(style); err != nil || st.NumFmt != 49 {
				t.Errorf("%s!%s: number format %v, want 49 (@)", c.sheet, c.cell, st)
			}
		}
	}

	if style, _ := wf.GetCellStyle("duplicate_keys", "F3"); true {
		if st, err := wf.GetStyle(style); err != nil || st.CustomNumFmt == nil || *st.CustomNumFmt != "yyyy-mm-dd hh:mm:ss.000" {
			t.Errorf("duplicate_keys!F3 style %+v, %v; want yyyy-mm-dd hh:mm:ss.000", st, err)
		}
	}

	// A value over 32,767 characters is cut, with a marker.
	v, _ := f.GetCellValue("long_values", "B2")
	if n := len(utf16.Encode([]rune(v))); n > xlsxMaxCell || n < xlsxMaxCell-200 {
		t.Errorf("long value is %d UTF-16 units, want just under %d", n, xlsxMaxCell)
	}
	if !strings.HasPrefix(v, "éé") || !strings.Contains(v, "[CUT: ") || !strings.Contains(v, "of 40000 characters shown; the whole value is in exceptions/long_values.csv]") {
		t.Errorf("cut value ends %q", v[max(0, len(v)-120):])
	}

	// Headers frozen, autofilter on, widths set.
	for _, sheet := range []string{"missing_ids", "sum_balance"} {
		panes, err := f.GetPanes(sheet)
		if err != nil || !panes.Freeze || panes.YSplit != 1 {
			t.Errorf("%s: panes %+v, %v; want the header frozen", sheet, panes, err)
		}
		if w, _ := f.GetColWidth(sheet, "A"); w < 8 {
			t.Errorf("%s: column A width %v", sheet, w)
		}
	}
	var filters []string
	for _, dn := range f.GetDefinedName() {
		if dn.Name == "_xlnm._FilterDatabase" {
			filters = append(filters, dn.RefersTo)
		}
	}
	if !slices.Contains(filters, "'missing_ids'!$A$1:$D$9") {
		t.Errorf("autofilters %q lack 'missing_ids'!$A$1:$D$9", filters)
	}

	// Summary: verdict, counts from the full lists, sheets, sign-off cells.
	row := findRow(t, f, "Summary", "missing_ids")
	for col, want := range map[string]string{"C": "FAIL", "D": "8", "E": "missing_ids", "F": "exceptions/missing_ids.csv"} {
		if got, _ := f.GetCellValue("Summary", fmt.Sprintf("%s%d", col, row), excelize.Options{RawCellValue: true}); got != want {
			t.Errorf("Summary!%s%d = %q, want %q", col, row, got, want)
		}
	}
	row = findRow(t, f, "Summary", "null_ids")
	if got, _ := f.GetCellValue("Summary", fmt.Sprintf("C%d", row)); got != "SKIPPED" {
		t.Errorf("null_ids status %q", got)
	}
	row = findRow(t, f, "Summary", "Conclusion")
	if got, _ := f.GetCellValue("Summary", fmt.Sprintf("B%d", row)); got != "FAIL" {
		t.Errorf("conclusion %q", got)
	}
	for _, who := range []string{"Prepared by", "Reviewed by"} {
		row := findRow(t, f, "Summary", who)
		if got, _ := f.GetCellValue("Summary", fmt.Sprintf("B%d", row)); got != "" {
			t.Errorf("%s cell not empty: %q", who, got)
		}
	}
	row = findRow(t, f, "Summary", "Sum of amount")
	if got, _ := f.GetCellValue("Summary", fmt.Sprintf("D%d", row), excelize.Options{RawCellValue: true}); got != "152622.77" {
		t.Errorf("difference of sums = %q", got)
	}

	// Inputs, Parameters, Queries.
	if got, _ := f.GetCellValue("Inputs", "G2"); got != r.Inputs[0].Files[0].SHA256 {
		t.Errorf("Inputs!G2 = %q", got)
	}
	row = findRow(t, f, "Parameters", "sink.options.password")
	if got, _ := f.GetCellValue("Parameters", fmt.Sprintf("B%d", row)); got != "xxxxx" {
		t.Errorf("password parameter shown as %q", got)
	}
	row = findRow(t, f, "Queries", "missing_ids")
	if got, want := must(f.GetCellValue("Queries", fmt.Sprintf("D%d", row))), "SELECT *\nFROM source\nWHERE false -- missing_ids"; got != want {
		t.Errorf("Queries SQL = %q", got)
	}
}

// excelSerial is the Excel date serial of an RFC 3339 time, as excelize
// stores it.
func excelSerial(t *testing.T, s string) string {
	t.Helper()
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	f := excelize.NewFile()
	defer f.Close()
	if err := f.SetCellValue("Sheet1", "A1", tm); err != nil {
		t.Fatal(err)
	}
	v, _ := f.GetCellValue("Sheet1", "A1", excelize.Options{RawCellValue: true})
	return v
}

// TestXLSXSplit: rows past a sheet's capacity continue on "<id> (2)", …,
// each with the header; Summary names every part.
func TestXLSXSplit(t *testing.T) {
	r := fixture(t)
	f := writeXLSX(t, xlsxWriter{rowsPerSheet: 3}, r, os.DirFS(fixtureDir))
	var got [][]string
	for _, sheet := range []string{"missing_ids", "missing_ids (2)", "missing_ids (3)"} {
		rows, err := f.GetRows(sheet)
		if err != nil {
			t.Fatal(err)
		}
		if rows[0][0] != "entry_id" {
			t.Errorf("%s: header %q", sheet, rows[0])
		}
		for _, row := range rows[1:] {
			got = append(got, row)
		}
	}
	if len(got) != 8 || got[0][0] != "+1" || got[7][0] != "\rCR" {
		t.Errorf("split rows: %d, first %q, last %q", len(got), got[0][0], got[len(got)-1][0])
	}
	row := findRow(t, f, "Summary", "missing_ids")
	if v, _ := f.GetCellValue("Summary", fmt.Sprintf("E%d", row)); v != "missing_ids, missing_ids (2), missing_ids (3)" {
		t.Errorf("Summary sheets = %q", v)
	}
}

// TestXLSXCountMismatch: a CSV that changed after the view counted it is
// an error, never a silently different workbook.
func TestXLSXCountMismatch(t *testing.T) {
	ev := evidenceFS(t, fixtureDir, nil)
	v := newTestView(t, fixture(t), ev)
	ev["exceptions/missing_ids.csv"].Data = append(ev["exceptions/missing_ids.csv"].Data, "E9,1,1.00,source.csv:10\n"...)
	err := (xlsxWriter{}).Write(context.Background(), &bytes.Buffer{}, v)
	if err == nil || !strings.Contains(err.Error(), "more rows than the 8 counted") {
		t.Errorf("err = %v", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestSheetNames(t *testing.T) {
	b := &workbook{used: map[string]bool{"summary": true}}
	long := strings.Repeat("a", 40)
	tests := []struct {
		id   string
		n    int
		want string
	}{
		{"missing_ids", 1, "missing_ids"},
		{"missing_ids", 2, "missing_ids (2)"},
		{long, 1, strings.Repeat("a", 31)},
		{long, 2, strings.Repeat("a", 27) + " (2)"},
		{"a/b[c]", 1, "a_b_c_"},
		{"Summary", 1, "Summary (2)"},
	}
	for _, tt := range tests {
		if got := b.sheetName(tt.id, tt.n); got != tt.want || len([]rune(got)) > 31 {
			t.Errorf("sheetName(%q, %d) = %q, want %q", tt.id, tt.n, got, tt.want)
		}
	}
}

func TestSignificantDigits(t *testing.T) {
	for v, want := range map[string]int{"0": 0, "-12.50": 3, "0.000123": 3, "123456789012345": 15, "1234567890123456": 16, "99999999999999999.99": 19, "100": 3, "-0.10": 1} {
		if got := significantDigits(v); got != want {
			t.Errorf("significantDigits(%q) = %d, want %d", v, got, want)
		}
	}
}

// TestXLSXRowLimit writes a check with more rows than a sheet holds: the
// first sheet ends at row 1,048,576 and the rest continue on "big (2)".
// It takes about a minute, so -short skips it.
func TestXLSXRowLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 1,048,580 exception rows; skipped with -short")
	}
	const rows = xlsxMaxRows - 1 + 5
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "exceptions"), 0o755); err != nil {
		t.Fatal(err)
	}
	fh, err := os.Create(filepath.Join(dir, "exceptions", "big.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "queries"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "queries", "big.sql"), []byte("SELECT 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriter(fh)
	bw.WriteString("entry_id,amount\n")
	for i := range rows {
		fmt.Fprintf(bw, "E%07d,%d.%02d\n", i, i, i%100)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	r := fixture(t)
	r.Checks = []*evidence.Check{{ID: "big", Assertion: "completeness", Status: evidence.Fail, Exceptions: rows, File: "exceptions/big.csv",
		Columns: []evidence.Column{{Name: "entry_id", Type: "VARCHAR"}, {Name: "amount", Type: "DECIMAL(18,2)"}}}}
	out := filepath.Join(dir, "workbook.xlsx")
	wf, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := (xlsxWriter{}).Write(context.Background(), wf, newTestView(t, r, os.DirFS(dir))); err != nil {
		t.Fatal(err)
	}
	wf.Close()

	f, err := excelize.OpenFile(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := f.GetSheetList(); !slices.Equal(got, []string{"Summary", "big", "big (2)", "Inputs", "Parameters", "Queries"}) {
		t.Fatalf("sheets %q", got)
	}
	count := func(sheet string) (n int, last []string) {
		it, err := f.Rows(sheet)
		if err != nil {
			t.Fatal(err)
		}
		defer it.Close()
		for it.Next() {
			n++
			if last, err = it.Columns(); err != nil {
				t.Fatal(err)
			}
		}
		return n, last
	}
	n, last := count("big")
	if n != xlsxMaxRows || last[0] != fmt.Sprintf("E%07d", xlsxMaxRows-2) {
		t.Errorf("big: %d rows, last %q; want %d rows", n, last, xlsxMaxRows)
	}
	n, last = count("big (2)")
	if n != 6 || last[0] != fmt.Sprintf("E%07d", rows-1) {
		t.Errorf("big (2): %d rows, last %q; want 6", n, last)
	}
	row := findRow(t, f, "Summary", "big")
	if v, _ := f.GetCellValue("Summary", fmt.Sprintf("D%d", row), excelize.Options{RawCellValue: true}); v != fmt.Sprint(rows) {
		t.Errorf("Summary count %q, want %d", v, rows)
	}
}

// TestXLSXColsAscending: Excel wants a sheet's <col> elements in ascending
// order; the stream writer keeps them in call order.
func TestXLSXColsAscending(t *testing.T) {
	var buf bytes.Buffer
	if err := (xlsxWriter{}).Write(context.Background(), &buf, newTestView(t, fixture(t), os.DirFS(fixtureDir))); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	colRE := regexp.MustCompile(`<col min="(\d+)"`)
	for _, zf := range zr.File {
		if !strings.HasPrefix(zf.Name, "xl/worksheets/sheet") {
			continue
		}
		rc, err := zf.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		var mins []int
		for _, m := range colRE.FindAllSubmatch(data, -1) {
			n, _ := strconv.Atoi(string(m[1]))
			mins = append(mins, n)
		}
		if len(mins) == 0 || !slices.IsSorted(mins) {
			t.Errorf("%s: <col> min values %v, want ascending", zf.Name, mins)
		}
	}
}

// The sheets of the failed checks are written side by side, yet two
// workbooks of one run are the same, part for part: the number styles of
// every scale are made before any row (checks with amounts of 1, 3 and 4
// decimals, which the goroutines would otherwise reach in any order).
func TestXLSXDeterministic(t *testing.T) {
	r := fixture(t)
	extra := map[string]string{}
	for i, vals := range []string{"1.5\n2.25\n", "0.125\n", "7.0001\n3\n"} {
		id := fmt.Sprintf("scaled_%d", i)
		extra["exceptions/"+id+".csv"] = "entry_id,amount\n" + strings.ReplaceAll(strings.TrimSuffix("E"+strings.ReplaceAll(vals, "\n", "\nE"), "E"), "E", "E1,")
		extra["queries/"+id+".sql"] = "SELECT 1\n"
	}
	ev := evidenceFS(t, fixtureDir, extra)
	for i := range 3 {
		r.Checks = append(r.Checks, checkFrom(t, ev, fmt.Sprintf("scaled_%d", i), "accuracy", "Amounts of another scale.", []evidence.Column{{Type: "VARCHAR", Role: evidence.RoleID}, {Type: "DECIMAL(38,4)"}}))
	}
	parts := func() map[string]string {
		var buf bytes.Buffer
		if err := (xlsxWriter{}).Write(context.Background(), &buf, newTestView(t, r, ev)); err != nil {
			t.Fatal(err)
		}
		zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(rc)
			rc.Close()
			out[f.Name] = string(b)
		}
		return out
	}
	first := parts()
	if !strings.Contains(first["xl/styles.xml"], `formatCode="#,##0.0000"`) {
		t.Fatalf("no style of 4 decimals in styles.xml")
	}
	for range 20 {
		next := parts()
		for _, name := range slices.Sorted(maps.Keys(first)) {
			if next[name] != first[name] {
				t.Fatalf("%s differs between two workbooks of the same run", name)
			}
		}
	}
}
