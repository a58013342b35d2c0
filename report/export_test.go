package report

import (
	"bytes"
	"context"
	"os"
	"testing"
)

// FixtureReport is one golden fixture (goldenCases) rendered as the
// rendering tests (render_test.go, package report_test) open it.
type FixtureReport struct {
	Name           string
	Workbook, HTML []byte
}

// FixtureReports renders the workbook and report.html of every golden
// fixture, its run normalised as in the golden files.
func FixtureReports(t testing.TB) []FixtureReport {
	t.Helper()
	var out []FixtureReport
	for _, gc := range goldenCases {
		s := gc.summary(t)
		normaliseRun(s)
		v := newTestView(t, s, os.DirFS(gc.dir))
		r := FixtureReport{Name: "fixture-" + gc.name}
		for _, w := range []struct {
			w   Writer
			out *[]byte
		}{{xlsxWriter{}, &r.Workbook}, {htmlWriter{}, &r.HTML}} {
			var buf bytes.Buffer
			if err := w.w.Write(context.Background(), &buf, v); err != nil {
				t.Fatal(err)
			}
			*w.out = buf.Bytes()
		}
		out = append(out, r)
	}
	return out
}
