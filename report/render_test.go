package report_test

// The rendering tests: the workbook printed by LibreOffice and report.html
// laid out by Chromium, as an auditor prints and reads them (issue 34).
// They open the evidence of bundled samples, run here through the control
// (samples/ledger's at-least-once sink, samples/hourly-report, and the
// third night of samples/nightly with its run history), and the golden
// fixtures. Each skips with a one-line reason when its program is absent,
// unless RECONCILE_REQUIRE_OFFICE=1 or RECONCILE_REQUIRE_CHROMIUM=1 (as
// .ci/run sets; .ci/tools installs the programs).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile-dev/reconcile/internal/control"
	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/report"
)

// rendered is one evidence folder's workbook and report.html.
type rendered struct {
	name           string
	workbook, html []byte
}

var (
	samplesOnce sync.Once
	samples     []rendered
	samplesErr  error
)

// sampleReports runs the bundled samples through the control once per test
// binary, into a temporary folder, and returns their workbooks and
// reports, then the golden fixtures'.
func sampleReports(t *testing.T) []rendered {
	t.Helper()
	samplesOnce.Do(func() {
		dir, err := os.MkdirTemp("", "reconcile-render-")
		if err != nil {
			samplesErr = err
			return
		}
		defer os.RemoveAll(dir)
		samples, samplesErr = runSamples(dir)
	})
	if samplesErr != nil {
		t.Fatal(samplesErr)
	}
	out := slices.Clone(samples)
	for _, f := range report.FixtureReports(t) {
		out = append(out, rendered{name: f.Name, workbook: f.Workbook, html: f.HTML})
	}
	return out
}

func runSamples(dir string) ([]rendered, error) {
	ctx := context.Background()
	run := func(name, file string, params map[string]string) (rendered, error) {
		p, err := spec.NewParams(params, time.Now())
		if err != nil {
			return rendered{}, err
		}
		s, err := spec.LoadWith(filepath.Join("..", "samples", file), p)
		if err != nil {
			return rendered{}, err
		}
		s.Out = filepath.Join(dir, name)
		if s.History != "" {
			s.History = filepath.Join(dir, "history.duckdb")
		}
		if _, err := control.Run(ctx, s, control.Options{Formats: []string{"xlsx", "html"}}); err != nil {
			return rendered{}, fmt.Errorf("%s: %w", file, err)
		}
		r := rendered{name: name}
		if r.workbook, err = os.ReadFile(filepath.Join(s.Out, evidence.WorkbookFile)); err != nil {
			return r, err
		}
		r.html, err = os.ReadFile(filepath.Join(s.Out, evidence.HTMLFile))
		return r, err
	}
	var out []rendered
	for _, c := range []struct{ name, file string }{{"ledger-at-least-once", "ledger/at-least-once.yaml"}, {"hourly-report", "hourly-report/spec.yaml"}} {
		r, err := run(c.name, c.file, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	var night rendered
	for _, day := range []string{"2026-11-28", "2026-11-29", "2026-11-30"} {
		var err error
		if night, err = run("nightly-ledger-"+day, "nightly/controls/ledger.yaml", map[string]string{"day": day}); err != nil {
			return nil, err
		}
	}
	return append(out, night), nil
}

// need finds the first of programs on PATH, or skips the test (fails it
// when the variable require is 1).
func need(t *testing.T, require, what, install string, programs ...string) string {
	t.Helper()
	for _, p := range programs {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	msg := fmt.Sprintf("%s not found (%s; %s=1 makes this a failure)", what, install, require)
	if os.Getenv(require) == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// pdfWord is one word pdftotext -bbox found on a page, in points.
type pdfWord struct {
	text                   string
	xMin, yMin, xMax, yMax float64
}

type pdfPage struct {
	width, height float64
	words         []pdfWord
}

var (
	pageRE = regexp.MustCompile(`<page width="([0-9.]+)" height="([0-9.]+)">`)
	wordRE = regexp.MustCompile(`<word xMin="([0-9.]+)" yMin="([0-9.]+)" xMax="([0-9.]+)" yMax="([0-9.]+)">([^<]*)</word>`)
)

// readPDF lists the words of every page of a PDF (pdftotext -bbox).
func readPDF(t *testing.T, pdftotext, file string) []pdfPage {
	t.Helper()
	// -raw: the words in the order they are drawn, so that the lines of a
	// wrapped cell follow each other
	out, err := exec.Command(pdftotext, "-bbox", "-raw", file, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext %s: %v", file, err)
	}
	var pages []pdfPage
	for _, chunk := range strings.Split(string(out), "</page>") {
		m := pageRE.FindStringSubmatch(chunk)
		if m == nil {
			continue
		}
		p := pdfPage{width: atof(m[1]), height: atof(m[2])}
		for _, w := range wordRE.FindAllStringSubmatch(chunk, -1) {
			p.words = append(p.words, pdfWord{text: html.UnescapeString(w[5]), xMin: atof(w[1]), yMin: atof(w[2]), xMax: atof(w[3]), yMax: atof(w[4])})
		}
		pages = append(pages, p)
	}
	return pages
}

func atof(s string) float64 { f, _ := strconv.ParseFloat(s, 64); return f }

// footerZone is how far from the page's bottom edge the footer is, in
// points: the body ends 0.7 inch (50 points) up, the footer is 0.3 inch up.
const footerZone = 42.0

// fullWordHeight is the height of a word box of 11-point Carlito printed
// at 100 %; minScale the smallest share of it a page's text may print at.
const (
	fullWordHeight = 14.3
	minScale       = 0.6
)

// TestWorkbookPrints prints the sample and fixture workbooks to PDF with
// LibreOffice (soffice --headless --convert-to pdf), reads the PDF back
// with pdftotext -bbox, tells the pages of each sheet by their footer, and
// checks that every sheet prints: no cell shows ###; the text prints as
// large as the sheet's columns fit one page wide, and the fixed sheets
// (Summary, Since last run, Inputs, Parameters, Queries) at 60 % of its
// size or more (a page shrunk to fit one over-wide cell fails);
// every word of every text cell is on the sheet's pages (a header cut by
// its neighbour, or wrapped text taller than its row, is not); and the
// sheet takes no more pages than its rows' heights need at 100 % with
// room to spare. The page counts are logged.
func TestWorkbookPrints(t *testing.T) {
	soffice := need(t, "RECONCILE_REQUIRE_OFFICE", "LibreOffice (soffice)", "install libreoffice-calc-nogui: make tools", "soffice", "libreoffice")
	pdftotext := need(t, "RECONCILE_REQUIRE_OFFICE", "pdftotext", "install poppler-utils: make tools", "pdftotext")
	fcMatch := need(t, "RECONCILE_REQUIRE_OFFICE", "fc-match (fontconfig)", "install fontconfig: make tools", "fc-match")
	if out, err := exec.Command(fcMatch, "-f", "%{family}", "Calibri").Output(); err != nil || !strings.Contains(string(out), "Carlito") {
		msg := fmt.Sprintf("Calibri is laid out with %q, not Carlito, whose metrics the workbook is measured with (install fonts-crosextra-carlito: make tools; RECONCILE_REQUIRE_OFFICE=1 makes this a failure)", out)
		if os.Getenv("RECONCILE_REQUIRE_OFFICE") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	cases := sampleReports(t)
	dir := t.TempDir()
	args := []string{"-env:UserInstallation=file://" + filepath.ToSlash(filepath.Join(dir, "profile")), "--headless", "--convert-to", "pdf", "--outdir", dir}
	for _, c := range cases {
		file := filepath.Join(dir, c.name+".xlsx")
		if err := os.WriteFile(file, c.workbook, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, file)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, soffice, args...).CombinedOutput(); err != nil {
		t.Fatalf("soffice: %v\n%s", err, out)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkPrinted(t, c, readPDF(t, pdftotext, filepath.Join(dir, c.name+".pdf")))
		})
	}
}

// printedSheet is what a sheet of the workbook holds, for checkPrinted.
type printedSheet struct {
	texts  []string // the text cells
	height float64  // of all its rows, in points
	width  float64  // of all its columns, in Excel's unit (a digit)
}

// fixedSheets are the sheets every workbook has (Since last run with a run
// history), laid out by the workbook rather than by an exceptions file's
// columns: each prints at minScale or larger. An exceptions sheet prints
// as large as its columns let it fit one page wide.
var fixedSheets = []string{"Summary", "Since last run", "Inputs", "Parameters", "Queries"}

// digitPoints is how wide LibreOffice prints one unit of column width at
// 100 %, in points.
const digitPoints = 5.55

func checkPrinted(t *testing.T, c rendered, pages []pdfPage) {
	f, err := excelize.OpenReader(bytes.NewReader(c.workbook))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	names := f.GetSheetList()
	sheets := map[string]*printedSheet{}
	for _, name := range names {
		s := &printedSheet{}
		rows, err := f.GetRows(name)
		if err != nil {
			t.Fatal(err)
		}
		cols := 0
		for _, row := range rows {
			cols = max(cols, len(row))
		}
		for j := 1; j <= cols; j++ {
			col, _ := excelize.ColumnNumberToName(j)
			w, _ := f.GetColWidth(name, col)
			s.width += w
		}
		for i, row := range rows {
			h, _ := f.GetRowHeight(name, i+1)
			s.height += h
			for j, v := range row {
				cell, _ := excelize.CoordinatesToCellName(j+1, i+1)
				if typ, _ := f.GetCellType(name, cell); strings.TrimSpace(v) != "" && (typ == excelize.CellTypeInlineString || typ == excelize.CellTypeSharedString) {
					s.texts = append(s.texts, v)
				}
			}
		}
		sheets[name] = s
	}
	// Each page's sheet: the footer's left section (&A).
	byName := slices.Clone(names)
	sort.Slice(byName, func(i, j int) bool { return len(byName[i]) > len(byName[j]) })
	pagesOf := map[string][]pdfPage{}
	for i, p := range pages {
		var left, body []pdfWord
		for _, w := range p.words {
			switch {
			case w.yMin > p.height-footerZone && w.xMax < p.width/3:
				left = append(left, w)
			case w.yMax < p.height-footerZone:
				body = append(body, w)
			}
		}
		sort.Slice(left, func(a, b int) bool { return left[a].xMin < left[b].xMin })
		var foot []string
		for _, w := range left {
			foot = append(foot, w.text)
		}
		footer := strings.Join(foot, " ")
		idx := slices.IndexFunc(byName, func(n string) bool { return strings.Join(strings.Fields(n), " ") == footer })
		if idx < 0 {
			t.Errorf("page %d: its footer %q names no sheet of %q", i+1, footer, names)
			continue
		}
		name := byName[idx]
		p.words = body
		pagesOf[name] = append(pagesOf[name], p)
		// no ###
		for _, w := range body {
			if strings.Contains(w.text, "###") {
				t.Errorf("%s, page %d: a cell shows %q (a number or date wider than its column)", name, i+1, w.text)
				break
			}
		}
		// printed large enough
		if len(body) > 0 {
			hs := make([]float64, len(body))
			for k, w := range body {
				hs[k] = w.yMax - w.yMin
			}
			sort.Float64s(hs)
			// the scale its columns allow on the page, one page wide
			fits := min(1, (p.width-72)/(sheets[name].width*digitPoints))
			want := 0.85 * fits
			if slices.Contains(fixedSheets, name) {
				want = max(want, minScale)
			}
			if med := hs[len(hs)/2]; med < fullWordHeight*want {
				t.Errorf("%s, page %d: text printed at %.0f %% of its size (a word %.1f points tall), want %.0f %% or more (its columns fit at %.0f %%)", name, i+1, med/fullWordHeight*100, med, want*100, fits*100)
			}
		}
	}
	var counts []string
	total := 0
	for _, name := range names {
		ps := pagesOf[name]
		total += len(ps)
		counts = append(counts, fmt.Sprintf("%s %d", name, len(ps)))
		s := sheets[name]
		if len(ps) == 0 {
			t.Errorf("%s: not printed", name)
			continue
		}
		// A page's body is at least 518 points tall (Letter landscape less
		// the margins), and the sheet's rows fit it at 100 % or smaller.
		if bound := 1 + int(math.Ceil(s.height/400)); len(ps) > bound {
			t.Errorf("%s: %d pages for %.0f points of rows (at most %d)", name, len(ps), s.height, bound)
		}
		// every word of every text cell is printed
		words := map[string]bool{}
		var seq []string
		for _, p := range ps {
			for _, w := range p.words {
				seq = append(seq, w.text)
			}
		}
		for i := range seq {
			joined := ""
			for k := i; k < min(i+4, len(seq)); k++ {
				joined += seq[k]
				words[joined] = true // a word broken across lines of its cell
			}
		}
		missing := 0
		for _, text := range s.texts {
			for _, tok := range strings.Fields(text) {
				if !words[tok] {
					if missing < 5 {
						t.Errorf("%s: %q of the cell text %q is not printed (cut, or hidden below its row)", name, tok, cut(text, 80))
					}
					missing++
				}
			}
		}
		if missing > 5 {
			t.Errorf("%s: %d more words not printed", name, missing-5)
		}
	}
	t.Logf("%s: %d pages (%s)", c.name, total, strings.Join(counts, ", "))
}

func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// probeScript is added to a copy of report.html for TestHTMLFits: after
// layout it writes, as JSON in <pre id="probe">, the viewport's width, the
// page's width and height, every element wider than its box that does
// not scroll (overflow-x visible), the boxes that scroll, and how many
// SQL listings there are and how many are shown.
const probeScript = `<script>
(function () {
  var out = {viewport: document.documentElement.clientWidth, width: document.documentElement.scrollWidth,
    height: document.documentElement.scrollHeight, overflowing: [], scrolling: [], sql: 0, sqlShown: 0};
  var name = function (el) { return el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (typeof el.className === 'string' && el.className ? '.' + el.className.split(' ').join('.') : ''); };
  document.querySelectorAll('body *').forEach(function (el) {
    var cs = getComputedStyle(el);
    if (cs.display === 'inline' || el.clientWidth === 0 || el.scrollWidth <= el.clientWidth + 1) return;
    var where = name(el) + ' (' + el.scrollWidth + ' px in ' + el.clientWidth + ')';
    for (var p = el.parentElement; p && p !== document.body; p = p.parentElement) if (p.id) { where += ' in #' + p.id; break; }
    (cs.overflowX === 'visible' ? out.overflowing : out.scrolling).push(where);
  });
  document.querySelectorAll('details.sql pre').forEach(function (pre) { out.sql++; if (pre.checkVisibility()) out.sqlShown++; });
  var pre = document.createElement('pre'); pre.id = 'probe'; pre.textContent = JSON.stringify(out); document.body.appendChild(pre);
})();
</script>`

type probe struct {
	Viewport, Width, Height int
	Overflowing, Scrolling  []string
	SQL, SQLShown           int
}

var probeRE = regexp.MustCompile(`<pre id="probe">([^<]*)</pre>`)

// htmlWidth is the window width report.html is checked at.
const htmlWidth = 1400

// TestHTMLFits lays each sample's and fixture's report.html out in
// headless Chromium at 1400 px wide and checks that nothing overflows:
// the page is no wider than the window, and no element is wider than its
// box unless the box scrolls (a wide table scrolls inside its box); and
// that every check's SQL is there but collapsed. The page heights are
// logged.
func TestHTMLFits(t *testing.T) {
	chromium := need(t, "RECONCILE_REQUIRE_CHROMIUM", "Chromium", "install chromium: make tools", "chromium", "chromium-browser", "google-chrome")
	cases := sampleReports(t)
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			page := bytes.Replace(c.html, []byte("</body>"), []byte(probeScript+"\n</body>"), 1)
			file := filepath.Join(dir, c.name+".html")
			if err := os.WriteFile(file, page, 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
				"--user-data-dir="+filepath.Join(dir, "profile-"+c.name), fmt.Sprintf("--window-size=%d,1000", htmlWidth), "--dump-dom", "file://"+filepath.ToSlash(file))
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("chromium: %v\n%s", err, stderr.Bytes())
			}
			m := probeRE.FindSubmatch(out)
			if m == nil {
				t.Fatalf("chromium ran no probe; its output:\n%s\n%s", cut(string(out), 400), stderr.Bytes())
			}
			var p probe
			if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &p); err != nil {
				t.Fatal(err)
			}
			if p.Width > p.Viewport {
				t.Errorf("the page is %d px wide in a %d px window", p.Width, p.Viewport)
			}
			for _, o := range p.Overflowing {
				t.Errorf("overflows its box: %s", o)
			}
			if p.SQL == 0 || p.SQLShown > 0 {
				t.Errorf("%d SQL listings, %d of them shown: want every check's SQL collapsed", p.SQL, p.SQLShown)
			}
			t.Logf("%s: %d px tall at %d px; %d box(es) scroll sideways %q", c.name, p.Height, htmlWidth, len(p.Scrolling), p.Scrolling)
		})
	}
}
