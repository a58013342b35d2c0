package sources

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/fault"
)

// ErrNoFiles is returned by ListFiles (and so by Read and Scan) when a path
// or glob leaves no file to read.
var ErrNoFiles = fault.Runtime.New("sources: no files match")

// Listing is the files of one input: those to read, in read order, and
// those a pattern matched but that are not read, each with the reason.
type Listing struct {
	// Files are the paths to read (joined with the base folder), sorted.
	Files []string
	// Skipped are the files left unread, sorted by path.
	Skipped []Skipped
}

// Skipped is a file a pattern matched that is not read.
type Skipped struct {
	Path string
	// Reason says why, for the evidence ("name starts with \".\": …").
	Reason string
}

// ListFiles resolves a path or glob against baseDir and lists the files of
// the input, in three steps:
//
//  1. match: a path naming an existing file is that file (even one whose
//     name holds glob characters, "data [1].csv"), a path without
//     wildcards must exist and not be a folder, and a glob is expanded
//     with filepath.Glob;
//  2. skip: each file a glob matched is given to the skip rules in order
//     (skipRules; today one: a name, or a folder below the glob's root,
//     starting with "." or "_" is a stream or batch job's staging area),
//     and the first rule that claims it gives the reason it is skipped;
//     a file named outright is never skipped;
//  3. the rest is read, in path order.
//
// It returns ErrNoFiles when nothing is left to read (the message counts
// what was matched and skipped), and ErrInvalidLocation for a malformed
// glob. The Flink FileSink commit rules, folders read recursively and "**"
// belong to steps 1 and 2.
func ListFiles(pattern, baseDir string) (*Listing, error) {
	p := pattern
	if !filepath.IsAbs(p) && baseDir != "" {
		p = filepath.Join(baseDir, p)
	}
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		return &Listing{Files: []string{p}}, nil
	}
	if !strings.ContainsAny(pattern, "*?[") {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("%w %s: %w", ErrNoFiles, pattern, err)
		}
		if st.IsDir() {
			return nil, fmt.Errorf("%w %s: it is a folder; give a file or a glob such as %s", ErrNoFiles, pattern, filepath.Join(pattern, "*.csv"))
		}
		return &Listing{Files: []string{p}}, nil
	}
	matches, err := matchGlob(p)
	if err != nil {
		return nil, fmt.Errorf("%w: glob %s: %w", ErrInvalidLocation, pattern, err)
	}
	root := globRoot(p)
	l := &Listing{}
	for _, m := range matches {
		rel, err := filepath.Rel(root, m)
		if err != nil {
			rel = m
		}
		if reason, skip := skipped(filepath.ToSlash(rel)); skip {
			l.Skipped = append(l.Skipped, Skipped{Path: m, Reason: reason})
			continue
		}
		l.Files = append(l.Files, m)
	}
	if len(l.Files) == 0 {
		return l, fmt.Errorf("%w %s (matched %d file(s), %d skipped as hidden or temporary)", ErrNoFiles, pattern, len(matches), len(l.Skipped))
	}
	return l, nil
}

// matchGlob returns the regular files a glob matches, sorted (folders it
// matches are not files of the input).
func matchGlob(p string) ([]string, error) {
	matches, err := filepath.Glob(p)
	if err != nil {
		return nil, err
	}
	sort.Strings(matches)
	files := matches[:0]
	for _, m := range matches {
		if st, err := os.Stat(m); err == nil && !st.IsDir() {
			files = append(files, m)
		}
	}
	return files, nil
}

// globRoot is the folder of a glob pattern above its first wildcard.
func globRoot(pattern string) string {
	i := strings.IndexAny(pattern, "*?[")
	return filepath.Dir(pattern[:i] + "x")
}

// skipRule decides whether a file a glob matched is left unread. rel is the
// file's slash-separated path below the glob's root; the rule returns the
// reason and true to skip it.
type skipRule func(rel string) (reason string, skip bool)

// skipRules are applied in order; the first that claims a file gives the
// reason.
var skipRules = []skipRule{hiddenOrTemporary}

func skipped(rel string) (string, bool) {
	for _, rule := range skipRules {
		if reason, skip := rule(rel); skip {
			return reason, true
		}
	}
	return "", false
}

// hiddenOrTemporary skips a file when it, or a folder below the glob's root
// on its path, starts with "." or "_": a stream or batch job's staging area
// (.tmp/, _temporary/, .part-…inprogress…, _part-…_tmp_…, _SUCCESS), which
// a glob such as dir/*/* would otherwise pick up (ENGINEERING-NOTES,
// gotcha 9).
func hiddenOrTemporary(rel string) (string, bool) {
	parts := strings.Split(rel, "/")
	for i, part := range parts {
		if part == "." || part == ".." {
			continue
		}
		if strings.HasPrefix(part, ".") || strings.HasPrefix(part, "_") {
			what := "name"
			if i < len(parts)-1 {
				what = "folder " + part + "/"
			}
			return fmt.Sprintf("%s starts with %q: a stream or batch job's in-progress or temporary file", what, part[:1]), true
		}
	}
	return "", false
}

// Fingerprint returns the size and SHA-256 of each file (of its bytes as
// stored, compressed or not), honouring ctx between files.
func Fingerprint(ctx context.Context, paths []string) ([]File, error) {
	out := make([]File, 0, len(paths))
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		h := sha256.New()
		n, err := io.Copy(h, f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		out = append(out, File{Path: p, Bytes: n, SHA256: hex.EncodeToString(h.Sum(nil))})
	}
	return out, nil
}

// Rel shows path relative to base when it lies below it (slash-separated),
// else as it is.
func Rel(base, path string) string {
	if base == "" {
		return path
	}
	if r, err := filepath.Rel(base, path); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return path
}

func absDir(dir string) string {
	d, err := filepath.Abs(dir)
	if err != nil || dir == "" {
		return ""
	}
	return d
}

// listInput lists and fingerprints the files of loc for a file kind and
// returns the Input that describes them (Role, Kind, Location, Files,
// Ignored, Declared) and the files to read, named as __file shows them.
func listInput(ctx context.Context, loc Location, kind string, declared []Column) (*Input, []ScanFile, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	l, err := ListFiles(loc.URI, loc.BaseDir)
	if err != nil {
		return nil, nil, err
	}
	fps, err := Fingerprint(ctx, l.Files)
	if err != nil {
		return nil, nil, err
	}
	base := absDir(loc.BaseDir)
	files := make([]ScanFile, len(l.Files))
	for i, p := range l.Files {
		files[i] = ScanFile{Path: p, Name: Rel(base, p), Compression: CompressionOf(p)}
		fps[i].Path = files[i].Name
	}
	in := &Input{Role: loc.Role, Kind: kind, Location: loc.URI, Files: fps, Declared: declared}
	for _, s := range l.Skipped {
		in.Ignored = append(in.Ignored, Rel(base, s.Path))
	}
	return in, files, nil
}
