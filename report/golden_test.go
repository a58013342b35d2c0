package report

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

// TestGolden renders the fixture in every text format and compares with
// testdata/golden/<file>.
func TestGolden(t *testing.T) {
	for _, format := range []string{"json", "md", "html"} {
		t.Run(format, func(t *testing.T) {
			w, err := Lookup(format)
			if err != nil {
				t.Fatal(err)
			}
			r := fixture(t)
			normaliseRun(r)
			var buf bytes.Buffer
			if fw, ok := w.(FolderWriter); ok {
				err = fw.WriteFolder(context.Background(), &buf, r, os.DirFS(fixtureDir))
			} else {
				err = w.Write(context.Background(), &buf, r)
			}
			if err != nil {
				t.Fatal(err)
			}
			compare(t, filepath.Join("testdata", "golden", w.File()), buf.Bytes())
		})
	}
}

// TestHTMLSelfContained: the page fetches nothing and runs nothing, and
// values are escaped.
func TestHTMLSelfContained(t *testing.T) {
	r := fixture(t)
	var buf bytes.Buffer
	if err := (htmlWriter{}).WriteFolder(context.Background(), &buf, r, os.DirFS(fixtureDir)); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	for _, bad := range []string{"<script", "<link", "<img", "<iframe", "<object", "@import", "src=", "url(", `href="http`, `href="//`} {
		if i := strings.Index(page, bad); i >= 0 {
			t.Errorf("report.html contains %q: %s", bad, page[max(0, i-60):min(len(page), i+60)])
		}
	}
	// the exception value =HYPERLINK("http://…") must appear escaped
	if !strings.Contains(page, "=HYPERLINK(&#34;http:") {
		t.Error("formula-like exception value not shown escaped")
	}
	for _, want := range []string{"<svg", "restart 1 03:14:00", "checkpoints 8 → 9", "ACC-02", "Prepared by", "Re-performed vs sink per window: revenue", "one_row_inflated 1"} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// TestHTMLWithoutFolder: Write alone draws from the first rows and says
// the counts are complete only when they are.
func TestHTMLWithoutFolder(t *testing.T) {
	r := fixture(t)
	var buf bytes.Buffer
	if err := (htmlWriter{}).Write(context.Background(), &buf, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "<svg") {
		t.Error("no chart")
	}
}
