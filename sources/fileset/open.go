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
	counted := &countingReader{r: raw}
	br := bufio.NewReaderSize(counted, 1<<20)
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
		gz.Multistream(false)
		r, closeDec = &gzipMembers{gz: gz, br: br, counted: counted}, func() { gz.Close() }
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
	case errors.As(err, new(*trailingBytesError)):
		err = fmt.Errorf("%s: %w", fr.path, err)
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

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// gzipMembers reads the members of a gzip file one after another, as gzip
// -d does (RFC 1952 section 2.2: a file is a series of members), and tells
// what follows the last one: nothing (the end of the text), another member
// (read on; one cut short is a truncated file, io.ErrUnexpectedEOF), or
// bytes that do not start a member (a *trailingBytesError, which gzip -d
// ignores as "trailing garbage" but which no whole gzip file holds).
// compress/gzip's own multistream reading would report those bytes as a
// member cut short (fewer than a header's 10) or as an invalid header.
type gzipMembers struct {
	gz      *gzip.Reader // over br, with Multistream(false)
	br      *bufio.Reader
	counted *countingReader // under br: the compressed bytes read so far
}

func (m *gzipMembers) Read(p []byte) (int, error) {
	for {
		n, err := m.gz.Read(p)
		if err != io.EOF {
			return n, err
		}
		// The member ended (its CRC-32 and size checked).
		end := m.counted.n - int64(m.br.Buffered())
		next, perr := m.br.Peek(2)
		switch {
		case len(next) == 0 && perr == io.EOF:
			return n, io.EOF
		case len(next) > 0 && next[0] == 0x1f && (len(next) == 1 || next[1] == 0x8b):
			// another member: its header is read now, one cut short is
			// io.ErrUnexpectedEOF (a truncated file)
			if err := m.gz.Reset(m.br); err != nil {
				return n, err
			}
			m.gz.Multistream(false)
		case len(next) == 0:
			return n, perr
		default:
			rest, err := io.Copy(io.Discard, m.br)
			if err != nil {
				return n, err
			}
			return n, &trailingBytesError{end: end, n: rest}
		}
		if n > 0 {
			return n, nil
		}
	}
}

// trailingBytesError is what follows the last member of a gzip file when
// it is not another member: n bytes from byte end.
type trailingBytesError struct{ end, n int64 }

func (e *trailingBytesError) Error() string {
	what := fmt.Sprintf("%d bytes follow", e.n)
	if e.n == 1 {
		what = "1 byte follows"
	}
	return fmt.Sprintf("%s the last gzip member (which ends at byte %d, its checksum correct) and do not start another (a member starts with 1f 8b): not a truncated file, but one holding more than gzip members, which gzip -d ignores as \"trailing garbage\" and reconcile does not: remove them (head -c %d) if they hold no records",
		what, e.end, e.end)
}
