package fileset

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/sources"
)

// ErrNoFiles is returned by List (and so by Read and Scan) when a path
// or glob leaves no file to read.
var ErrNoFiles = fault.Runtime.New("sources: no files match")

// ErrOnlyUncommitted is returned by List, with the Listing, when a
// folder or glob matches files but every one it would read is uncommitted
// (an in-progress or pending part file, …): the input then holds no
// committed record, which is a finding (population, missing_ids labelled
// uncommitted_file), not a read error. A kind that can tell its columns
// from the uncommitted files (csv) reads such an input as empty; the others
// return the error (exit 3).
var ErrOnlyUncommitted = fault.Runtime.New("sources: no committed file")

// ErrValidLength is returned by List when a valid-length side file
// (see ValidLength) cannot be applied: it does not parse, it gives a length
// beyond its part file, its part file is missing, or a part file has two.
// The message names both files. It is an input error (exit 3): the folder
// is not what the commit protocol leaves behind.
var ErrValidLength = fault.Runtime.New("sources: valid-length file")

// ErrLink is returned by List for a symbolic link it cannot read as
// what it points to: a link that points to nothing (or to a loop of links),
// given as the location or among a folder's or a glob's files, and a link
// in a folder to a folder it lies in (which would be read without end). The
// message names the link. It is an input error (exit 3): a file of the
// input cannot be read.
var ErrLink = fault.Runtime.New("sources: symbolic link")

// A location given without a kind is read as the file kind its files'
// extensions name when they agree (sources.Open): the files it looks at
// are those List would read.
func init() {
	sources.SetLister(func(pattern, baseDir string) ([]string, error) {
		l, err := List(pattern, baseDir)
		if err != nil {
			return nil, err
		}
		return l.Files, nil
	})
}

// Listing is the files of one input: those to read, in read order, and
// those a pattern matched but that are not read, each with the reason.
type Listing struct {
	// Root is the folder the skip rules and partition folders are read
	// below: the folder given, the folder of a glob above its first
	// wildcard, or the folder of a file named outright.
	Root string
	// Files are the paths to read (joined with the base folder), sorted.
	Files []string
	// Skipped are the files left unread, sorted by path.
	Skipped []Skipped
	// ValidLengths are the valid-length side files that apply, by the path
	// of the file they cut (one of Files, or an uncommitted Skipped file).
	ValidLengths map[string]*sources.ValidLength
}

// Skipped is a file a pattern matched that is not read as a record of the
// input.
type Skipped struct {
	Path string
	// Reason says why, for the evidence, naming the rule and its source.
	Reason string
	// Uncommitted says the file holds output a job wrote but did not
	// commit (an in-progress or pending part file, an S3 multipart upload's
	// temporary object, a file in a staging folder): it may be read, when
	// readable, only to label findings ("written but not committed"), never
	// as a record of the input.
	Uncommitted bool
}

// List resolves a path, folder or glob against baseDir and lists the
// files of the input, in three steps:
//
//  1. match: a path naming an existing file is that file (even one whose
//     name holds glob characters, "data [1].csv"); a folder is every file
//     below it, at any depth; a glob is expanded with
//     github.com/bmatcuk/doublestar (`*`, `?`, `[…]`, `{a,b}` within one
//     path segment, `**` across any number of folders), and a folder it
//     matches is read as a folder is; a path without wildcards must exist;
//     a symbolic link is read as what it points to, in its place (a link
//     to a folder as a folder of the link's name: walkFiles);
//  2. skip: each file matched below the root (Listing.Root) is given to the
//     commit rules (skipRules, in order; see the README's "Committed output
//     of a file sink" for each rule and its source), and the first rule
//     that claims it gives the reason it is skipped, and whether it holds
//     uncommitted output; a file named outright is never skipped;
//  3. the rest is read, in path order. A file read (or an uncommitted file)
//     with a valid-length side file beside it is cut to the length the side
//     file gives (ValidLength), whether or not the pattern matched the side
//     file.
//
// It returns ErrNoFiles when nothing is left to read (the message counts
// what was matched and skipped), ErrInvalidLocation for a malformed glob,
// ErrLink (naming it) for a link that points to nothing or, in a folder, to
// a folder it lies in, and ErrValidLength (naming both files) for a side file that does not
// parse, gives a length beyond its part file, has no part file, or shares
// its part file with a second side file.
func List(pattern, baseDir string) (*Listing, error) {
	p := pattern
	if !filepath.IsAbs(p) && baseDir != "" {
		p = filepath.Join(baseDir, p)
	}
	l := &Listing{ValidLengths: map[string]*sources.ValidLength{}}
	st, statErr := statFollow(p)
	var matches []string
	switch {
	case errors.Is(statErr, ErrLink):
		return nil, statErr
	case statErr == nil && !st.IsDir() && !st.Mode().IsRegular():
		return nil, fmt.Errorf("%w: %s is not a regular file but %s: an input is read more than once (fingerprinted, then loaded), so each reading would get other bytes; write it to a file first", sources.ErrInvalidLocation, pattern, fileType(st.Mode()))
	case statErr == nil && !st.IsDir():
		l.Root = filepath.Dir(p)
		l.Files = []string{p}
		if err := l.applyValidLengths(nil); err != nil {
			return nil, err
		}
		return l, nil
	case statErr == nil && st.IsDir():
		l.Root = filepath.Clean(p)
		files, err := walkFiles(l.Root, l.Root)
		if errors.Is(err, ErrLink) {
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("%w %s: %w", ErrNoFiles, pattern, err)
		}
		matches = files
	case !hasWildcard(pattern):
		return nil, fmt.Errorf("%w %s: %w", ErrNoFiles, pattern, statErr)
	default:
		if !doublestar.ValidatePathPattern(filepath.ToSlash(p)) {
			return nil, fmt.Errorf("%w: glob %s: %w", sources.ErrInvalidLocation, pattern, doublestar.ErrBadPattern)
		}
		files, err := matchGlob(p)
		if errors.Is(err, ErrLink) {
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("%w: glob %s: %w", sources.ErrInvalidLocation, pattern, err)
		}
		l.Root = globRoot(p)
		matches = files
	}
	var sides []string
	for _, m := range matches {
		rel, err := filepath.Rel(l.Root, m)
		if err != nil {
			rel = m
		}
		rule, skip := classify(filepath.ToSlash(rel))
		if st, err := os.Stat(m); err == nil && !st.Mode().IsRegular() {
			rule, skip = notRegular(st), true
		}
		switch {
		case !skip:
			l.Files = append(l.Files, m)
		case rule.side:
			sides = append(sides, m)
		default:
			l.Skipped = append(l.Skipped, Skipped{Path: m, Reason: rule.reason, Uncommitted: rule.uncommitted})
		}
	}
	if err := l.applyValidLengths(sides); err != nil {
		return nil, err
	}
	sort.Slice(l.Skipped, func(i, j int) bool { return l.Skipped[i].Path < l.Skipped[j].Path })
	if len(l.Files) == 0 {
		unc := 0
		for _, sk := range l.Skipped {
			if sk.Uncommitted {
				unc++
			}
		}
		if unc > 0 {
			return l, fmt.Errorf("%w: %s: none of the %d file(s) matched is committed output (%d uncommitted, %d not records)", ErrOnlyUncommitted, pattern, len(matches), unc, len(matches)-unc)
		}
		if len(matches) == 0 {
			return l, fmt.Errorf("%w %s: it matches no file", ErrNoFiles, pattern)
		}
		return l, fmt.Errorf("%w %s: the %d file(s) matched are not records (commit markers, checksums)", ErrNoFiles, pattern, len(matches))
	}
	return l, nil
}

func hasWildcard(p string) bool { return strings.ContainsAny(p, "*?[{") }

// notRegular is the rule for a named pipe, socket or device among a
// folder's or a glob's files: not read (its bytes could be read once, and
// an input is read more than once), listed as skipped.
func notRegular(st os.FileInfo) rule {
	return rule{reason: fmt.Sprintf("not a regular file but %s: not read", fileType(st.Mode()))}
}

// fileType names what a file that is not a regular file is.
func fileType(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "of type " + m.Type().String()
}

// walkFiles returns every file below dir (root, or a folder below root
// that a glob matched), at any depth, sorted. A
// symbolic link is read as what it points to, in its place: a link to a
// file is that file, a link to a folder is a folder of the link's name, its
// files listed below the link's path as a real subfolder's would be (as a
// glob's ** follows it); dir itself may be a link to a folder. Errors, each
// wrapping ErrLink and naming the link: a link that points to nothing (or
// to what cannot be stat'ed), and a link to a folder it lies in (a loop),
// unless the skip rules skip the link by its path below root
// (skippedByName): it is then listed as it is, to be skipped.
func walkFiles(root, dir string) ([]string, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	err = walkDir(root, dir, []string{real}, &out)
	sort.Strings(out)
	return out, err
}

// skippedByName reports whether the skip rules (classify) skip path p, a
// path below root, by its name and folders alone: such a symbolic link
// that points to nothing, or to a folder it lies in, is listed as it is, to
// be skipped with its reason, not refused (an editor's lock file .#a.csv
// that points to nothing, a loop inside _temporary/: found by a reviewer).
func skippedByName(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return false
	}
	_, skip := classify(filepath.ToSlash(rel))
	return skip
}

// walkDir adds the files below dir, a folder at or below root, to out.
// reals are the real paths (no link in them) of the folders walked down to
// dir, dir's last: a link to one of them, or to a folder above one, would
// walk it again forever.
func walkDir(root, dir string, reals []string, out *[]string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case e.IsDir():
			if err := walkDir(root, p, append(reals, filepath.Join(reals[len(reals)-1], e.Name())), out); err != nil {
				return err
			}
		case e.Type()&fs.ModeSymlink != 0:
			st, err := statFollow(p)
			if err != nil {
				if skippedByName(root, p) {
					*out = append(*out, p) // skipped with its reason
					continue
				}
				return err
			}
			if !st.IsDir() {
				*out = append(*out, p)
				continue
			}
			target, err := filepath.EvalSymlinks(p)
			if err != nil {
				return fmt.Errorf("%w %s: %w", ErrLink, p, err)
			}
			if holds(target, reals) {
				if skippedByName(root, p) {
					*out = append(*out, p) // skipped with its reason
					continue
				}
				return fmt.Errorf("%w %s: it points to the folder %s, which holds it: the folder would be read without end", ErrLink, p, target)
			}
			if err := walkDir(root, p, append(reals, target), out); err != nil {
				return err
			}
		default:
			*out = append(*out, p)
		}
	}
	return nil
}

// holds reports whether folder target is one of reals or a folder above
// one (a link to the root folder, "/", holds every folder).
func holds(target string, reals []string) bool {
	prefix := strings.TrimSuffix(target, string(filepath.Separator)) + string(filepath.Separator)
	for _, r := range reals {
		if r == target || strings.HasPrefix(r, prefix) {
			return true
		}
	}
	return false
}

// statFollow stats p, following a symbolic link. A link that points to
// nothing (or to a loop of links) is an error wrapping ErrLink that names
// the link and what it points to.
func statFollow(p string) (os.FileInfo, error) {
	st, err := os.Stat(p)
	if err == nil {
		return st, nil
	}
	if lst, lerr := os.Lstat(p); lerr == nil && lst.Mode()&os.ModeSymlink != 0 {
		target, _ := os.Readlink(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w %s: it points to %s, which does not exist", ErrLink, p, target)
		}
		return nil, fmt.Errorf("%w %s: it points to %s, which cannot be read: %w", ErrLink, p, target, err)
	}
	return nil, err
}

// matchGlob returns the files a glob matches, and every file below a
// folder it matches (walkFiles), sorted and each once. A match that is a
// link to nothing is an error (statFollow).
func matchGlob(p string) ([]string, error) {
	matches, err := doublestar.FilepathGlob(p, doublestar.WithFailOnIOErrors())
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var files []string
	root := globRoot(p)
	for _, m := range matches {
		st, err := statFollow(m)
		if err != nil && errors.Is(err, ErrLink) && skippedByName(root, m) {
			if !seen[m] {
				seen[m] = true
				files = append(files, m) // skipped with its reason
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		add := []string{m}
		if st.IsDir() {
			if add, err = walkFiles(root, m); err != nil {
				return nil, err
			}
		}
		for _, f := range add {
			if !seen[f] {
				seen[f] = true
				files = append(files, f)
			}
		}
	}
	sort.Strings(files)
	return files, nil
}

// globRoot is the folder of a glob pattern above its first wildcard.
func globRoot(pattern string) string {
	i := strings.IndexAny(pattern, "*?[{")
	return filepath.Dir(pattern[:i] + "x")
}

// applyValidLengths finds the valid-length side file of every file to read
// and of every uncommitted file (whether or not the pattern matched it),
// parses it and records it, and accounts for the side files the pattern
// matched: each is applied to its part file, or skipped when the input does
// not read that part file. A side file whose part file does not exist is an
// error: the committed bytes it describes are missing.
func (l *Listing) applyValidLengths(matchedSides []string) error {
	targets := append([]string{}, l.Files...)
	for _, s := range l.Skipped {
		if s.Uncommitted {
			targets = append(targets, s.Path)
		}
	}
	applied := map[string]string{} // side file → part file
	for _, t := range targets {
		vl, err := findValidLength(t)
		if err != nil {
			return err
		}
		if vl != nil {
			l.ValidLengths[t] = vl
			applied[vl.SideFile] = t
		}
	}
	for _, side := range matchedSides {
		part := partOfSide(side)
		if t, ok := applied[side]; ok {
			vl := l.ValidLengths[t]
			l.Skipped = append(l.Skipped, Skipped{Path: side, Reason: fmt.Sprintf(
				"valid-length side file of %s (Flink BucketingSink, validLengthPrefix/validLengthSuffix): applied, the first %d of its %d bytes are its committed output",
				filepath.Base(part), vl.Length, vl.PartBytes)})
			continue
		}
		if _, err := os.Stat(part); err != nil {
			return fmt.Errorf("%w %s: its part file %s does not exist (%w); the committed bytes it describes are missing", ErrValidLength, side, part, err)
		}
		vl, err := ParseValidLength(side, part)
		if err != nil {
			return err
		}
		l.Skipped = append(l.Skipped, Skipped{Path: side, Reason: fmt.Sprintf(
			"valid-length side file of %s (committed length %d bytes), which this input does not read", filepath.Base(part), vl.Length)})
	}
	return nil
}
