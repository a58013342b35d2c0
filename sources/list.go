package sources

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/reconcile-dev/reconcile/internal/fault"
)

// ErrNoFiles is returned by ListFiles (and so by Read and Scan) when a path
// or glob leaves no file to read.
var ErrNoFiles = fault.Runtime.New("sources: no files match")

// ErrOnlyUncommitted is returned by ListFiles, with the Listing, when a
// folder or glob matches files but every one it would read is uncommitted
// (an in-progress or pending part file, …): the input then holds no
// committed record, which is a finding (population, missing_ids labelled
// uncommitted_file), not a read error. A kind that can tell its columns
// from the uncommitted files (csv) reads such an input as empty; the others
// return the error (exit 3).
var ErrOnlyUncommitted = fault.Runtime.New("sources: no committed file")

// ErrValidLength is returned by ListFiles when a valid-length side file
// (see ValidLength) cannot be applied: it does not parse, it gives a length
// beyond its part file, its part file is missing, or a part file has two.
// The message names both files. It is an input error (exit 3): the folder
// is not what the commit protocol leaves behind.
var ErrValidLength = fault.Runtime.New("sources: valid-length file")

// ErrLink is returned by ListFiles for a symbolic link it cannot read as
// what it points to: a link that points to nothing (or to a loop of links),
// given as the location or among a folder's or a glob's files, and a link
// in a folder to a folder it lies in (which would be read without end). The
// message names the link. It is an input error (exit 3): a file of the
// input cannot be read.
var ErrLink = fault.Runtime.New("sources: symbolic link")

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
	ValidLengths map[string]*ValidLength
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

// ListFiles resolves a path, folder or glob against baseDir and lists the
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
func ListFiles(pattern, baseDir string) (*Listing, error) {
	p := pattern
	if !filepath.IsAbs(p) && baseDir != "" {
		p = filepath.Join(baseDir, p)
	}
	l := &Listing{ValidLengths: map[string]*ValidLength{}}
	st, statErr := statFollow(p)
	var matches []string
	switch {
	case errors.Is(statErr, ErrLink):
		return nil, statErr
	case statErr == nil && !st.IsDir() && !st.Mode().IsRegular():
		return nil, fmt.Errorf("%w: %s is not a regular file but %s: an input is read more than once (fingerprinted, then loaded), so each reading would get other bytes; write it to a file first", ErrInvalidLocation, pattern, fileType(st.Mode()))
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
			return nil, fmt.Errorf("%w: glob %s: %w", ErrInvalidLocation, pattern, doublestar.ErrBadPattern)
		}
		files, err := matchGlob(p)
		if errors.Is(err, ErrLink) {
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("%w: glob %s: %w", ErrInvalidLocation, pattern, err)
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

// A rule of the commit protocols: what a file name (or a folder on its path)
// says about the file.
type rule struct {
	reason string
	// uncommitted: the file holds output written but not committed.
	uncommitted bool
	// side: a valid-length side file, applied to its part file.
	side bool
}

// skipRule decides whether a file matched below the root is not committed
// output (or not records at all). rel is the slash-separated path below the
// root.
type skipRule func(rel, base string, folders []string) (rule, bool)

// skipRules are applied in order; the first that claims a file gives the
// reason. Each names its source.
var skipRules = []skipRule{
	validLengthSide, commitMarker, checksumFile, stagingFolder,
	fileSinkInProgress, bucketingSinkStates, s3TempObject, hiddenName,
}

func classify(rel string) (rule, bool) {
	parts := strings.Split(rel, "/")
	var folders []string
	for _, f := range parts[:len(parts)-1] {
		if f != "." && f != "" {
			folders = append(folders, f)
		}
	}
	base := parts[len(parts)-1]
	for _, r := range skipRules {
		if out, ok := r(rel, base, folders); ok {
			return out, true
		}
	}
	return rule{}, false
}

// validLengthSide: "_<part>.valid-length" or ".<part>.valid-length", the
// side file Flink's BucketingSink writes beside a part file it could not
// truncate (BucketingSink: validLengthPrefix "_" and validLengthSuffix
// ".valid-length" by default; "." when the prefix is set so).
func validLengthSide(_, base string, _ []string) (rule, bool) {
	if partName(base) != "" {
		return rule{side: true}, true
	}
	return rule{}, false
}

// partName is the part file a valid-length side file's name points to, or
// "" when the name is not one.
func partName(base string) string {
	if !strings.HasSuffix(base, validLengthSuffix) {
		return ""
	}
	if base[0] != '_' && base[0] != '.' {
		return ""
	}
	name := strings.TrimSuffix(base[1:], validLengthSuffix)
	if name == "" {
		return ""
	}
	return name
}

func partOfSide(side string) string {
	return filepath.Join(filepath.Dir(side), partName(filepath.Base(side)))
}

// commitMarker: files a commit protocol writes to say a job or task
// committed, which hold no records: "_SUCCESS" (Hadoop FileOutputCommitter,
// mapreduce.fileoutputcommitter.marksuccessfuljobs; Spark writes it too),
// "_committed_<id>" and "_started_<id>" (Databricks' transactional commit
// protocol, DBIO), "_metadata" and "_common_metadata" (Parquet summary
// files, parquet-mr's ParquetOutputCommitter).
func commitMarker(_, base string, _ []string) (rule, bool) {
	switch {
	case base == "_SUCCESS":
		return rule{reason: "commit marker _SUCCESS (Hadoop FileOutputCommitter; Spark): no records"}, true
	case strings.HasPrefix(base, "_committed_"):
		return rule{reason: "commit marker _committed_<id> (Databricks transactional commit protocol): no records"}, true
	case strings.HasPrefix(base, "_started_"):
		return rule{reason: "commit marker _started_<id> (Databricks transactional commit protocol): no records"}, true
	case base == "_metadata", base == "_common_metadata":
		return rule{reason: "Parquet summary file " + base + " (parquet-mr ParquetOutputCommitter): no records"}, true
	}
	return rule{}, false
}

// checksumFile: ".<name>.crc", the checksum Hadoop's ChecksumFileSystem
// (the local file system of Hadoop and Flink's Hadoop writers) keeps beside
// each file.
func checksumFile(_, base string, _ []string) (rule, bool) {
	if strings.HasPrefix(base, ".") && strings.HasSuffix(base, ".crc") && len(base) > len(".crc")+1 {
		return rule{reason: "checksum file (Hadoop ChecksumFileSystem .<name>.crc): no records"}, true
	}
	return rule{}, false
}

// stagingFolder: a file in a folder below the root whose name starts with
// "." or "_" is a job's staging area, not committed output: "_temporary/"
// (Hadoop FileOutputCommitter's task-attempt folders, also Spark's),
// ".tmp/" and the like (ENGINEERING-NOTES, gotcha 9: a glob such as
// dir/*/* picks them up).
func stagingFolder(_, _ string, folders []string) (rule, bool) {
	for _, f := range folders {
		if strings.HasPrefix(f, ".") || strings.HasPrefix(f, "_") {
			return rule{reason: fmt.Sprintf("in staging folder %s/ (a folder starting with %q: Hadoop FileOutputCommitter _temporary/, .tmp/): not committed output", f, f[:1]), uncommitted: true}, true
		}
	}
	return rule{}, false
}

// fileSinkInProgress: ".<part>.inprogress.<uuid>", a Flink FileSink (and
// StreamingFileSink) part file that is in progress or pending: the sink
// writes each part file under this hidden name and renames it to <part>
// only when a checkpoint commits it; a pending file is not renamed
// (Flink docs, "File Sink", part file lifecycle; LocalRecoverableWriter and
// HadoopRecoverableWriter generateStagingTempFilePath: "." + name +
// ".inprogress." + UUID).
func fileSinkInProgress(_, base string, _ []string) (rule, bool) {
	if strings.HasPrefix(base, ".") && strings.Contains(base, ".inprogress.") {
		return rule{reason: "Flink FileSink in-progress or pending part file (.<part>.inprogress.<uuid>; renamed to <part> only when a checkpoint commits it)", uncommitted: true}, true
	}
	return rule{}, false
}

// bucketingSinkStates: "_<part>.in-progress" and "_<part>.pending", the
// names Flink's legacy BucketingSink gives a part file before a checkpoint
// commits it (BucketingSink: inProgressPrefix/pendingPrefix "_",
// inProgressSuffix ".in-progress", pendingSuffix ".pending").
func bucketingSinkStates(_, base string, _ []string) (rule, bool) {
	switch {
	case strings.HasSuffix(base, ".in-progress"):
		return rule{reason: "Flink BucketingSink in-progress part file (_<part>.in-progress)", uncommitted: true}, true
	case strings.HasSuffix(base, ".pending"):
		return rule{reason: "Flink BucketingSink pending part file (_<part>.pending; committed by the next checkpoint)", uncommitted: true}, true
	}
	return rule{}, false
}

// s3TempObject: "_<part>_tmp_<uuid>", the object Flink's S3 writer uploads
// for the trailing bytes of a multipart upload that is not complete
// (flink-s3-fs-base RecoverableMultiPartUploadImpl,
// createIncompletePartObjectNamePrefix: "_" + name + "_tmp_").
func s3TempObject(_, base string, _ []string) (rule, bool) {
	if strings.HasPrefix(base, "_") && strings.Contains(base, "_tmp_") {
		return rule{reason: "Flink S3 multipart upload's temporary object (_<part>_tmp_<uuid>): not committed", uncommitted: true}, true
	}
	return rule{}, false
}

// hiddenName: any other name starting with "." or "_" is hidden from the
// readers of a file sink's output (Hadoop FileInputFormat's hiddenFileFilter
// and Flink's FileSource skip such names).
func hiddenName(_, base string, _ []string) (rule, bool) {
	if strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") {
		return rule{reason: fmt.Sprintf("name starts with %q: a hidden file, not committed output (Hadoop FileInputFormat and Flink FileSource skip such names)", base[:1]), uncommitted: true}, true
	}
	return rule{}, false
}

// Fingerprint returns the size and SHA-256 of each file (of its bytes as
// stored, compressed or not), honouring ctx between files and while it
// reads. Errors: a file that cannot be opened or read, naming it.
func Fingerprint(ctx context.Context, paths []string) ([]File, error) {
	out, err := startFingerprints(ctx, paths)
	if err != nil {
		return nil, err
	}
	for i := range out {
		// the bytes hashed: a file still being written (an in-progress
		// part file read to label findings) is fingerprinted as it was
		// when read, not refused for growing since its stat
		h := out[i].hash
		if err := h.wait(); err != nil {
			return nil, err
		}
		out[i].Bytes, out[i].SHA256 = h.bytes, h.sum
	}
	return out, nil
}

// startFingerprints opens and stats each file now (an error names the
// first that cannot be) and computes its SHA-256 in the background, one
// file after another: File.Bytes is set, File.SHA256 once hashed (see
// Input.Hashed). The run reads the files meanwhile; hashing first cost a
// re-performance over 10 M Parquet events 0.14 s of 0.9 s before its first
// statement. No file is held open in between (an input of many part files
// needs one descriptor at a time), and a file opened again to be hashed
// that is not the one stat'ed is ErrChanged. A file that is not a regular
// file (a named pipe, whose bytes can be read once) is refused, as
// ListFiles refuses or skips it.
func startFingerprints(ctx context.Context, paths []string) ([]File, error) {
	out := make([]File, 0, len(paths))
	type job struct {
		path string
		info os.FileInfo
		h    *hashing
	}
	var jobs []job
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		info, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		f.Close()
		if !info.Mode().IsRegular() {
			return nil, fmt.Errorf("%w: %s is not a regular file but %s", ErrInvalidLocation, p, fileType(info.Mode()))
		}
		h := &hashing{done: make(chan struct{})}
		out = append(out, File{Path: p, Bytes: info.Size(), at: p, info: info, hash: h})
		jobs = append(jobs, job{p, info, h})
	}
	go func() {
		// 256 KiB reads instead of io.Copy's 32 KiB: the 152 MB events
		// file of the re-performance benchmark hashed in 112 ms instead of
		// 119 ms (fewer read calls; larger buffers were no faster); one
		// buffer for the files hashed in turn
		buf := make([]byte, 256<<10)
		for _, j := range jobs {
			f, err := os.Open(j.path)
			if err != nil {
				j.h.fail(fmt.Errorf("%w: %s: %w", ErrChanged, j.path, err))
				continue
			}
			if now, err := f.Stat(); err != nil || !os.SameFile(j.info, now) {
				f.Close()
				j.h.fail(fmt.Errorf("%w: %s was replaced by another file", ErrChanged, j.path))
				continue
			}
			j.h.run(ctx, j.path, f, buf)
		}
	}()
	return out, nil
}

// hashing is the SHA-256 of one file being computed: sum and bytes, or
// err, once done is closed.
type hashing struct {
	done  chan struct{}
	sum   string
	bytes int64
	err   error
}

// run hashes f (closing it), reading through buf, and closes h.done.
func (h *hashing) run(ctx context.Context, p string, f *os.File, buf []byte) {
	defer close(h.done)
	defer f.Close()
	sum := sha256.New()
	n, err := io.CopyBuffer(sum, ctxReader{ctx, f}, buf)
	if err != nil {
		h.err = fmt.Errorf("read %s: %w", p, err)
		return
	}
	h.sum, h.bytes = hex.EncodeToString(sum.Sum(nil)), n
}

// wait returns once h is done, with its error.
func (h *hashing) wait() error {
	<-h.done
	return h.err
}

// fail ends h with err.
func (h *hashing) fail(err error) {
	h.err = err
	close(h.done)
}

// ctxReader stops a read once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// hashed waits for f's SHA-256 and sets f.SHA256. Errors: the read error,
// naming the file; ErrChanged when it held another number of bytes than
// when it was listed.
func (f *File) hashed() error {
	h := f.hash
	if h == nil {
		return nil
	}
	if err := h.wait(); err != nil {
		return err
	}
	if h.bytes != f.Bytes {
		return fmt.Errorf("%w: %s was %d bytes when listed, %d bytes when hashed", ErrChanged, f.Path, f.Bytes, h.bytes)
	}
	f.SHA256 = h.sum
	return nil
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

// listed is what a file kind keeps of its listing: the files it reads, the
// partition columns, and what it needs to read an uncommitted file later.
type listed struct {
	loc        Location
	root, base string
	partitions *partitionSpec
	lengths    map[string]*ValidLength
}

// ListInput lists and fingerprints the files of loc for a file kind and
// returns the Input that describes them (Role, Kind, Location, Files with
// their valid lengths, Skipped and Ignored, Partitions, Declared) and the
// files to read, named as __file shows them, each with its partition
// values. When every file is uncommitted it returns all of that (no file to
// read) and an error wrapping ErrOnlyUncommitted, which a kind that can
// read an empty input clears.
func ListInput(ctx context.Context, loc Location, kind string, declared []Column, parts *partitionSpec) (*Input, []ScanFile, *listed, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, err
	}
	parts = parts.fresh()
	l, err := ListFiles(loc.URI, loc.BaseDir)
	var only error
	switch {
	case errors.Is(err, ErrOnlyUncommitted):
		only = err
	case err != nil:
		return nil, nil, nil, err
	}
	fps, err := startFingerprints(ctx, l.Files)
	if err != nil {
		return nil, nil, nil, err
	}
	base := absDir(loc.BaseDir)
	ls := &listed{loc: loc, root: l.Root, base: base, partitions: parts, lengths: l.ValidLengths}
	files := make([]ScanFile, len(l.Files))
	for i, p := range l.Files {
		f, err := ls.scanFile(p, fps[i].Bytes)
		if err != nil {
			return nil, nil, nil, err
		}
		files[i] = f
		fps[i].Path = f.Name
		if vl := f.ValidLength; vl != nil {
			c := *vl
			c.SideFile = Rel(base, vl.SideFile)
			fps[i].ValidLength = &c
		}
	}
	in := &Input{Role: loc.Role, Kind: kind, Location: loc.URI, Files: fps, Declared: declared}
	if parts != nil {
		in.Partitions = parts.names
	}
	for _, s := range l.Skipped {
		in.Skipped = append(in.Skipped, SkippedFile{Path: Rel(base, s.Path), Reason: s.Reason, Uncommitted: s.Uncommitted})
		in.Ignored = append(in.Ignored, Rel(base, s.Path))
	}
	return in, files, ls, only
}

// scanFile describes one file to read: its name for __file, compression,
// valid length and partition values.
func (ls *listed) scanFile(p string, size int64) (ScanFile, error) {
	f := ScanFile{Path: p, Name: Rel(ls.base, p), Compression: CompressionOf(p), Size: size, ValidLength: ls.lengths[p]}
	if ls.partitions != nil {
		vals, err := ls.partitions.values(ls.root, p, f.Name)
		if err != nil {
			return ScanFile{}, err
		}
		f.Partition = vals
	}
	return f, nil
}

// uncommittedFile describes an uncommitted file of the listing (a path of
// Input.Skipped, as named there) for reading it to label findings. With
// lines, a file without compression is cut after its last line break (or
// its valid length, if shorter): an in-progress part file usually ends
// inside the record being written.
func (ls *listed) uncommittedFile(name string, lines bool) (ScanFile, error) {
	if ls == nil {
		return ScanFile{}, errors.New("sources: ReadUncommitted before Read or Scan")
	}
	p := name
	if !filepath.IsAbs(p) && ls.base != "" {
		p = filepath.Join(ls.base, filepath.FromSlash(name))
	}
	st, err := os.Stat(p)
	if err != nil {
		return ScanFile{}, err
	}
	f, err := ls.scanFile(p, st.Size())
	if err != nil || !lines || f.Compression != NoCompression {
		return f, err
	}
	end, err := lastLineEnd(p, f.Size)
	if err != nil {
		return ScanFile{}, err
	}
	if f.ValidLength == nil || end < f.ValidLength.Length {
		f.ValidLength = &ValidLength{SideFile: "(the last line break of " + f.Name + ")", Length: end, PartBytes: f.Size}
	}
	return f, nil
}

// lastLineEnd returns the offset just after the last '\n' of the file's
// first size bytes (0 when it has none).
func lastLineEnd(path string, size int64) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for end := size; end > 0; {
		start := max(0, end-int64(len(buf)))
		n, err := f.ReadAt(buf[:end-start], start)
		if err != nil && err != io.EOF {
			return 0, fmt.Errorf("read %s: %w", path, err)
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}

// listSchema lists the files of loc as ListInput does — each with its
// size, valid length and partition values — without fingerprinting them,
// for a Schemer that reads only each file's header or footer. It returns
// the files and the partition column names.
func listSchema(ctx context.Context, loc Location, parts *partitionSpec) ([]ScanFile, []string, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	parts = parts.fresh()
	l, err := ListFiles(loc.URI, loc.BaseDir)
	if err != nil {
		return nil, nil, err
	}
	ls := &listed{loc: loc, root: l.Root, base: absDir(loc.BaseDir), partitions: parts, lengths: l.ValidLengths}
	files := make([]ScanFile, len(l.Files))
	for i, p := range l.Files {
		st, err := os.Stat(p)
		if err != nil {
			return nil, nil, err
		}
		if files[i], err = ls.scanFile(p, st.Size()); err != nil {
			return nil, nil, err
		}
	}
	return files, parts.namesOf(), nil
}
