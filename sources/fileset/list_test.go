package fileset_test

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/fileset"
)

// writeTree writes files (slash-separated path → content) below dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// writeUTF is Java's DataOutputStream.writeUTF of an ASCII string.
func writeUTF(s string) string {
	b := make([]byte, 2, 2+len(s))
	binary.BigEndian.PutUint16(b, uint16(len(s)))
	return string(append(b, s...))
}

func rels(dir string, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		r, _ := filepath.Rel(dir, p)
		out[i] = filepath.ToSlash(r)
	}
	return out
}

// Every file a folder or glob matches is read or skipped with the reason of
// the commit rule that claims it, and only committed part files are read.
func TestListCommitRules(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"out/2026-11-30--03/part-4005733d-0":                            "a\n",
		"out/2026-11-30--03/.part-4005733d-1.inprogress.bd053eb0-5ecf":  "b\n",
		"out/2026-11-30--03/prefix-81fc4980-0.ext":                      "c\n",
		"out/2026-11-30--03/.prefix-81fc4980-1.ext.inprogress.bc279efe": "d\n",
		"out/2026-11-30--03/_part-0-3_tmp_0b5c3f9a":                     "e\n",
		"out/2026-11-30--03/_part-0-4.in-progress":                      "f\n",
		"out/2026-11-30--03/_part-0-5.pending":                          "g\n",
		"out/2026-11-30--03/_SUCCESS":                                   "",
		"out/2026-11-30--03/_committed_5523":                            "",
		"out/2026-11-30--03/_started_5523":                              "",
		"out/2026-11-30--03/.part-4005733d-0.crc":                       "x",
		"out/2026-11-30--03/_metadata":                                  "",
		"out/_temporary/0/_temporary/attempt_1/part-00000":              "h\n",
		"out/.tmp/part-9":                                               "i\n",
		"out/deep/er/still/part-7":                                      "j\n",
		"out/2026-11-30--03/_weird":                                     "k\n",
	})
	l, err := fileset.List("out", dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"out/2026-11-30--03/part-4005733d-0", "out/2026-11-30--03/prefix-81fc4980-0.ext", "out/deep/er/still/part-7"}
	if got := rels(dir, l.Files); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("files read:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantSkipped := map[string]string{ // path → a word of the reason, and uncommitted
		"out/.tmp/part-9":                                               "staging folder .tmp/ +",
		"out/2026-11-30--03/.part-4005733d-0.crc":                       "checksum",
		"out/2026-11-30--03/.part-4005733d-1.inprogress.bd053eb0-5ecf":  "FileSink in-progress or pending +",
		"out/2026-11-30--03/.prefix-81fc4980-1.ext.inprogress.bc279efe": "FileSink in-progress or pending +",
		"out/2026-11-30--03/_SUCCESS":                                   "_SUCCESS",
		"out/2026-11-30--03/_committed_5523":                            "_committed_",
		"out/2026-11-30--03/_metadata":                                  "Parquet summary",
		"out/2026-11-30--03/_part-0-3_tmp_0b5c3f9a":                     "S3 multipart +",
		"out/2026-11-30--03/_part-0-4.in-progress":                      "BucketingSink in-progress +",
		"out/2026-11-30--03/_part-0-5.pending":                          "BucketingSink pending +",
		"out/2026-11-30--03/_started_5523":                              "_started_",
		"out/2026-11-30--03/_weird":                                     "hidden file +",
		"out/_temporary/0/_temporary/attempt_1/part-00000":              "staging folder _temporary/ +",
	}
	if len(l.Skipped) != len(wantSkipped) {
		t.Errorf("%d skipped, want %d: %+v", len(l.Skipped), len(wantSkipped), l.Skipped)
	}
	for _, s := range l.Skipped {
		rel := rels(dir, []string{s.Path})[0]
		w, ok := wantSkipped[rel]
		if !ok {
			t.Errorf("%s skipped (%s), want it read", rel, s.Reason)
			continue
		}
		word, unc := strings.CutSuffix(w, " +")
		if !strings.Contains(s.Reason, word) || s.Uncommitted != unc {
			t.Errorf("%s: reason %q uncommitted %v, want %q uncommitted %v", rel, s.Reason, s.Uncommitted, word, unc)
		}
	}

	// ** matches any depth; a glob's folder match is read as a folder.
	if l, err := fileset.List("out/**/part-*", dir); err != nil || len(l.Files) != 2 {
		t.Errorf("out/**/part-*: %v, %v; want part-4005733d-0 and part-7", l, err)
	}
	if l, err := fileset.List("out/deep/*", dir); err != nil || len(l.Files) != 1 {
		t.Errorf("out/deep/* (a folder): %v, %v; want part-7 read", l, err)
	}
	// Only uncommitted files matched: no committed record, which is a
	// finding (the listing comes with it), not "no files match".
	if l, err := fileset.List("out/*/.part-*", dir); !errors.Is(err, fileset.ErrOnlyUncommitted) || l == nil || len(l.Files) != 0 || len(l.Skipped) == 0 {
		t.Errorf("only hidden files matched: %v, err = %v, want ErrOnlyUncommitted with the skipped files", l, err)
	}
	// A folder with no file at all, or only a commit marker, is an error.
	os.MkdirAll(filepath.Join(dir, "fixin_empty"), 0o755)
	os.MkdirAll(filepath.Join(dir, "fixin_marker"), 0o755)
	os.WriteFile(filepath.Join(dir, "fixin_marker", "_SUCCESS"), nil, 0o644)
	for _, p := range []string{"fixin_empty", "fixin_marker", "fixin_none/*.csv"} {
		if _, err := fileset.List(p, dir); !errors.Is(err, fileset.ErrNoFiles) {
			t.Errorf("%s: err = %v, want ErrNoFiles", p, err)
		}
	}
	// A file named outright is read.
	if l, err := fileset.List("out/2026-11-30--03/_weird", dir); err != nil || len(l.Files) != 1 {
		t.Errorf("a hidden file named outright is read: %v %v", l, err)
	}
	if _, err := fileset.List("out/[", dir); !errors.Is(err, sources.ErrInvalidLocation) {
		t.Errorf("malformed glob: err = %v, want ErrInvalidLocation", err)
	}
}

// A valid-length side file cuts its part file; every way it can be wrong is
// an error naming both files.
func TestValidLength(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"b/part-0-0":               "1\n2\n3\n4\n5\n",
		"b/_part-0-0.valid-length": writeUTF("6"),
		"b/part-0-1":               "4\n5\n",
		"b/.part-0-1.valid-length": writeUTF("4"),
	})
	l, err := fileset.List("b", dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Files) != 2 || len(l.Skipped) != 2 {
		t.Fatalf("files %v skipped %v, want 2 parts read and both side files skipped", l.Files, l.Skipped)
	}
	for _, s := range l.Skipped {
		if !strings.Contains(s.Reason, "valid-length side file of part-0-") || !strings.Contains(s.Reason, "applied") {
			t.Errorf("%s: %s", s.Path, s.Reason)
		}
	}
	vl := l.ValidLengths[filepath.Join(dir, "b", "part-0-0")]
	if vl == nil || vl.Length != 6 || vl.PartBytes != 10 || !strings.HasSuffix(vl.SideFile, "_part-0-0.valid-length") {
		t.Errorf("part-0-0's valid length %+v, want 6 of 10 bytes from _part-0-0.valid-length", vl)
	}
	// A side file the pattern did not match still applies.
	if l, err := fileset.List("b/part-0-0", dir); err != nil || l.ValidLengths[filepath.Join(dir, "b", "part-0-0")] == nil {
		t.Errorf("part-0-0 named outright: %v %v, want its valid length applied", l, err)
	}

	bad := []struct {
		name, side string
		want       string
	}{
		{"beyond", writeUTF("11"), "beyond the 10 bytes"},
		{"not digits", writeUTF("1e3"), `"1e3" is not a decimal byte count`},
		{"count wrong", "\x00\x05" + "12", "count says 5 bytes"},
		{"plain text", "6\n", "not a length written by DataOutputStream.writeUTF"},
		{"empty", "", "0 bytes"},
		{"leading zero", writeUTF("06"), "leading zero"},
		{"negative", writeUTF("-1"), "not a decimal byte count"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			d := t.TempDir()
			writeTree(t, d, map[string]string{"p/part-0-0": "1\n2\n3\n4\n5\n", "p/_part-0-0.valid-length": c.side})
			_, err := fileset.List("p", d)
			if !errors.Is(err, fileset.ErrValidLength) || !strings.Contains(err.Error(), c.want) ||
				!strings.Contains(err.Error(), "_part-0-0.valid-length") || !strings.Contains(err.Error(), "part-0-0") {
				t.Errorf("err = %v, want ErrValidLength naming both files and %q", err, c.want)
			}
		})
	}
	d := t.TempDir()
	writeTree(t, d, map[string]string{"p/part-0-0": "1\n", "p/_part-0-0.valid-length": writeUTF("2"), "p/.part-0-0.valid-length": writeUTF("2")})
	if _, err := fileset.List("p", d); !errors.Is(err, fileset.ErrValidLength) || !strings.Contains(err.Error(), "two valid-length files") {
		t.Errorf("two side files: err = %v", err)
	}
	d = t.TempDir()
	writeTree(t, d, map[string]string{"p/part-0-1": "1\n", "p/_part-0-0.valid-length": writeUTF("2")})
	if _, err := fileset.List("p", d); !errors.Is(err, fileset.ErrValidLength) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("a side file without its part file: err = %v", err)
	}
}

// A named pipe can be read once, and an input is read more than once (its
// fingerprint, then its load): given as the input it is refused at once,
// naming it (before, reconcile drained it reading the header and then
// waited forever to open it again); among a folder's files it is skipped
// with the reason, and the others are read.
func TestListNamedPipe(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"out/part-0.csv": "id\n1\n"})
	fifo := filepath.Join(dir, "out", "part-1.csv")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	if _, err := fileset.List(fifo, ""); !errors.Is(err, sources.ErrInvalidLocation) || !strings.Contains(err.Error(), "part-1.csv is not a regular file") {
		t.Errorf("the pipe as the input: err = %v, want ErrInvalidLocation naming it", err)
	}
	l, err := fileset.List(filepath.Join(dir, "out"), "")
	if err != nil {
		t.Fatal(err)
	}
	if got := rels(dir, l.Files); len(got) != 1 || got[0] != "out/part-0.csv" {
		t.Errorf("files %v, want out/part-0.csv", got)
	}
	if len(l.Skipped) != 1 || l.Skipped[0].Path != fifo || !strings.Contains(l.Skipped[0].Reason, "not a regular file") || l.Skipped[0].Uncommitted {
		t.Errorf("skipped %+v, want the pipe, not a regular file", l.Skipped)
	}
}

// A symbolic link in a folder or glob is read as what it points to, in its
// place: a link to a folder as a real subfolder of the link's name would be
// (its files read, or skipped by the commit rules its path meets), whether
// the location is the folder, a glob over it or the link itself; found by
// a tester: a folder or `dir/*` dropped a linked folder's files without a
// word, and a link given as the location matched no file. A link that
// points to nothing, and a link to a folder it lies in, are errors naming
// it (before, a dangling link was dropped silently).
func TestListSymlinks(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"sink/part-0":  "id\n1\n",
		"extra/part-9": "id\n2\n",
	})
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			t.Skip("no symbolic links here:", err)
		}
	}
	link("../extra", "sink/replay")
	link("../extra", "sink/_staging")
	link("part-0", "sink/part-0-link")
	for _, tc := range []struct{ pattern, want string }{
		{"sink", "sink/part-0 sink/part-0-link sink/replay/part-9"},
		{"sink/*", "sink/part-0 sink/part-0-link sink/replay/part-9"},
		{"sink/**", "sink/part-0 sink/part-0-link sink/replay/part-9"},
		{"sink/replay", "sink/replay/part-9"},
	} {
		l, err := fileset.List(tc.pattern, dir)
		if err != nil {
			t.Errorf("%s: %v", tc.pattern, err)
			continue
		}
		if got := strings.Join(rels(dir, l.Files), " "); got != tc.want {
			t.Errorf("%s: files %s, want %s", tc.pattern, got, tc.want)
		}
		if tc.pattern != "sink/replay" && (len(l.Skipped) != 1 || l.Skipped[0].Path != filepath.Join(dir, "sink", "_staging", "part-9") || !l.Skipped[0].Uncommitted) {
			t.Errorf("%s: skipped %+v, want sink/_staging/part-9, in a staging folder", tc.pattern, l.Skipped)
		}
	}

	link("/nonexistent-reconcile-target", "sink/part-1")
	for _, pattern := range []string{"sink", "sink/*", "sink/**", "sink/part-1"} {
		_, err := fileset.List(pattern, dir)
		if !errors.Is(err, fileset.ErrLink) || !strings.Contains(err.Error(), filepath.Join("sink", "part-1")+": it points to /nonexistent-reconcile-target, which does not exist") {
			t.Errorf("dangling link, %s: err = %v, want ErrLink naming sink/part-1", pattern, err)
		}
	}
	if err := os.Remove(filepath.Join(dir, "sink", "part-1")); err != nil {
		t.Fatal(err)
	}

	link("..", "sink/loop")
	for _, pattern := range []string{"sink", "sink/*"} {
		_, err := fileset.List(pattern, dir)
		if !errors.Is(err, fileset.ErrLink) || !strings.Contains(err.Error(), "loop: it points to the folder") {
			t.Errorf("a loop, %s: err = %v, want ErrLink naming sink/loop", pattern, err)
		}
	}
	if err := os.Remove(filepath.Join(dir, "sink", "loop")); err != nil {
		t.Fatal(err)
	}

	// A link the skip rules skip by its name is skipped, not refused: an
	// editor's lock file pointing to nothing, a loop inside a staging
	// folder (found by a reviewer: each stopped the run). (sink/** is
	// doublestar's own walk, which follows the loop itself.)
	link("user@host.1234:1700000000", "sink/.#part-0")
	writeTree(t, dir, map[string]string{"sink/_temporary/0/part-3": "id\n3\n"})
	link("..", "sink/_temporary/0/loop")
	for _, pattern := range []string{"sink", "sink/*"} {
		l, err := fileset.List(pattern, dir)
		if err != nil {
			t.Errorf("skipped links, %s: %v", pattern, err)
			continue
		}
		if got := strings.Join(rels(dir, l.Files), " "); got != "sink/part-0 sink/part-0-link sink/replay/part-9" {
			t.Errorf("skipped links, %s: files %s", pattern, got)
		}
		var skipped []string
		for _, f := range l.Skipped {
			skipped = append(skipped, filepath.ToSlash(strings.TrimPrefix(f.Path, dir+string(filepath.Separator))))
		}
		for _, want := range []string{"sink/.#part-0", "sink/_temporary/0/loop"} {
			if !slices.Contains(skipped, want) {
				t.Errorf("skipped links, %s: skipped %v lacks %s", pattern, skipped, want)
			}
		}
	}
	// A link to the root folder is a loop, found at once: skipped in a
	// hidden name, refused elsewhere (before, the listing walked the whole
	// file system into it).
	link("/", "sink/.root")
	if _, err := fileset.List("sink", dir); err != nil {
		t.Errorf("a hidden link to /: %v", err)
	}
	if err := os.Remove(filepath.Join(dir, "sink", ".root")); err != nil {
		t.Fatal(err)
	}
	link("/", "sink/root")
	if _, err := fileset.List("sink", dir); !errors.Is(err, fileset.ErrLink) || !strings.Contains(err.Error(), "root: it points to the folder /, which holds it") {
		t.Errorf("a link to /: err = %v, want ErrLink naming sink/root", err)
	}
}
