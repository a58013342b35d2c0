package fileset

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/reconcile-dev/reconcile/sources"
)

// CompressionOf returns the compression a file's name says it has: Gzip for
// a name ending in .gz, Zstd for .zst (in any letter case), else
// NoCompression.
func CompressionOf(path string) sources.Compression {
	lower := strings.ToLower(path)
	switch {
	case strings.HasSuffix(lower, ".gz"):
		return sources.Gzip
	case strings.HasSuffix(lower, ".zst"):
		return sources.Zstd
	}
	return sources.NoCompression
}

// Open opens path for reading, decompressing it as CompressionOf says,
// and returns the text every file kind reads (so a line number is one of the
// decompressed text). Errors — from opening, from a header that is not what
// the extension promises, or from a stream that turns out corrupt or
// truncated while it is read — name the file. The caller closes the reader.
func Open(path string) (io.ReadCloser, error) {
	return openFile(path, nil)
}

// OpenScanFile opens f, a file of a scan, for reading as every kind reads
// it: as Open does, and cut to its valid length when a side file gives
// one (f.ValidLength, shorter than the file). The cut applies to the bytes as
// stored; the text read from them must then end with a line break (a cut
// inside a record would change its last value), and a compressed file must
// end there at the end of a gzip member or zstd frame. Either failure is an
// error wrapping ErrValidLength that names both files, raised when the
// reader reaches the cut.
func OpenScanFile(f sources.ScanFile) (io.ReadCloser, error) {
	if f.ValidLength == nil || f.ValidLength.Length >= f.Size {
		return openFile(f.Path, nil)
	}
	return openFile(f.Path, f.ValidLength)
}

func openFile(path string, cut *sources.ValidLength) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	var raw io.Reader = f
	if cut != nil {
		raw = io.LimitReader(f, cut.Length)
	}
	br := bufio.NewReaderSize(raw, 1<<20)
	var r io.Reader
	var closeDec func()
	c := CompressionOf(path)
	switch c {
	case sources.Gzip:
		gz, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: not a gzip file (its name ends in .gz): %w", path, err)
		}
		r, closeDec = gz, func() { gz.Close() }
	case sources.Zstd:
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: zstd: %w", path, err)
		}
		r, closeDec = zr, zr.Close
	default:
		r, closeDec = br, func() {}
	}
	return &fileReader{path: path, r: r, f: f, closeDec: closeDec, compressed: c != sources.NoCompression, cut: cut}, nil
}

// fileReader is a file being read through its decompressor.
type fileReader struct {
	path       string
	r          io.Reader
	f          *os.File
	closeDec   func()
	compressed bool
	// cut is the valid length the file is read up to (nil: the whole
	// file); last and n are the last byte and the count of the text read.
	cut  *sources.ValidLength
	last byte
	n    int64
}

// Read reads decompressed bytes; an error other than io.EOF names the file.
func (fr *fileReader) Read(p []byte) (int, error) {
	n, err := fr.r.Read(p)
	if n > 0 {
		fr.last = p[n-1]
		fr.n += int64(n)
	}
	switch {
	case err == io.EOF && fr.cut != nil && fr.n > 0 && fr.last != '\n':
		err = fmt.Errorf("%w %s cuts %s at byte %d, inside a line: the committed bytes of a text part file end with a line break, so this is not the length the sink committed", ErrValidLength, fr.cut.SideFile, fr.path, fr.cut.Length)
	case err == nil || err == io.EOF:
	case fr.cut != nil && fr.compressed && errors.Is(err, io.ErrUnexpectedEOF):
		err = fmt.Errorf("%w %s cuts %s at byte %d, inside a %s stream: the records before the cut cannot be told from a damaged file, so it is not read: %w", ErrValidLength, fr.cut.SideFile, fr.path, fr.cut.Length, CompressionOf(fr.path), err)
	case fr.cut != nil && fr.compressed:
		err = fmt.Errorf("%w %s cuts %s at byte %d: the %s stream does not end there cleanly, so it is not read: %w", ErrValidLength, fr.cut.SideFile, fr.path, fr.cut.Length, CompressionOf(fr.path), err)
	case fr.compressed && errors.Is(err, io.ErrUnexpectedEOF):
		err = fmt.Errorf("%s: the %s stream ends early (a truncated file): %w", fr.path, CompressionOf(fr.path), err)
	case fr.compressed:
		err = fmt.Errorf("%s: decompress (%s): %w", fr.path, CompressionOf(fr.path), err)
	default:
		err = fmt.Errorf("%s: %w", fr.path, err)
	}
	return n, err
}

// Close closes the decompressor and the file.
func (fr *fileReader) Close() error {
	fr.closeDec()
	return fr.f.Close()
}
