package fileset

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/reconcile-dev/reconcile/sources"
)

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

// Listed is what a file kind keeps of its listing: the files it reads, the
// partition columns, and what it needs to read an uncommitted file later.
type Listed struct {
	loc        sources.Location
	root, base string
	partitions *Partitions
	lengths    map[string]*sources.ValidLength
}

// ListInput lists and fingerprints the files of loc for a file kind and
// returns the Input that describes them (Role, Kind, Location, Files with
// their valid lengths, Skipped and Ignored, Partitions, Declared) and the
// files to read, named as __file shows them, each with its partition
// values. When every file is uncommitted it returns all of that (no file to
// read) and an error wrapping ErrOnlyUncommitted, which a kind that can
// read an empty input clears.
func ListInput(ctx context.Context, loc sources.Location, kind string, declared []sources.Column, parts *Partitions) (*sources.Input, []sources.ScanFile, *Listed, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, err
	}
	parts = parts.fresh()
	l, err := List(loc.URI, loc.BaseDir)
	var only error
	switch {
	case errors.Is(err, ErrOnlyUncommitted):
		only = err
	case err != nil:
		return nil, nil, nil, err
	}
	fps, _, err := startFingerprints(ctx, l.Files)
	if err != nil {
		return nil, nil, nil, err
	}
	base := absDir(loc.BaseDir)
	ls := &Listed{loc: loc, root: l.Root, base: base, partitions: parts, lengths: l.ValidLengths}
	files := make([]sources.ScanFile, len(l.Files))
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
	in := &sources.Input{Role: loc.Role, Kind: kind, Location: loc.URI, Files: fps, Declared: declared}
	if parts != nil {
		in.Partitions = parts.names
	}
	for _, s := range l.Skipped {
		in.Skipped = append(in.Skipped, sources.SkippedFile{Path: Rel(base, s.Path), Reason: s.Reason, Uncommitted: s.Uncommitted})
		in.Ignored = append(in.Ignored, Rel(base, s.Path))
	}
	return in, files, ls, only
}

// scanFile describes one file to read: its name for __file, compression,
// valid length and partition values.
func (ls *Listed) scanFile(p string, size int64) (sources.ScanFile, error) {
	f := sources.ScanFile{Path: p, Name: Rel(ls.base, p), Compression: CompressionOf(p), Size: size, ValidLength: ls.lengths[p]}
	if ls.partitions != nil {
		vals, err := ls.partitions.values(ls.root, p, f.Name)
		if err != nil {
			return sources.ScanFile{}, err
		}
		f.Partition = vals
	}
	return f, nil
}

// PartitionNames are the partition columns of the listing (nil without
// partitions), as its first file's folders named them.
func (ls *Listed) PartitionNames() []string { return ls.partitions.Names() }

// UncommittedFile describes an uncommitted file of the listing (a path of
// Input.Skipped, as named there) for reading it to label findings. With
// lines, a file without compression is cut after its last line break (or
// its valid length, if shorter): an in-progress part file usually ends
// inside the record being written.
func (ls *Listed) UncommittedFile(name string, lines bool) (sources.ScanFile, error) {
	if ls == nil {
		return sources.ScanFile{}, errors.New("sources: ReadUncommitted before Read or Scan")
	}
	p := name
	if !filepath.IsAbs(p) && ls.base != "" {
		p = filepath.Join(ls.base, filepath.FromSlash(name))
	}
	st, err := os.Stat(p)
	if err != nil {
		return sources.ScanFile{}, err
	}
	f, err := ls.scanFile(p, st.Size())
	if err != nil || !lines || f.Compression != sources.NoCompression {
		return f, err
	}
	end, err := lastLineEnd(p, f.Size)
	if err != nil {
		return sources.ScanFile{}, err
	}
	if f.ValidLength == nil || end < f.ValidLength.Length {
		f.ValidLength = &sources.ValidLength{SideFile: "(the last line break of " + f.Name + ")", Length: end, PartBytes: f.Size}
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

// ListSchema lists the files of loc as ListInput does — each with its
// size, valid length and partition values — without fingerprinting them,
// for a Schemer that reads only each file's header or footer. It returns
// the files and the partition column names.
func ListSchema(ctx context.Context, loc sources.Location, parts *Partitions) ([]sources.ScanFile, []string, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	parts = parts.fresh()
	l, err := List(loc.URI, loc.BaseDir)
	if err != nil {
		return nil, nil, err
	}
	ls := &Listed{loc: loc, root: l.Root, base: absDir(loc.BaseDir), partitions: parts, lengths: l.ValidLengths}
	files := make([]sources.ScanFile, len(l.Files))
	for i, p := range l.Files {
		st, err := os.Stat(p)
		if err != nil {
			return nil, nil, err
		}
		if files[i], err = ls.scanFile(p, st.Size()); err != nil {
			return nil, nil, err
		}
	}
	return files, parts.Names(), nil
}
