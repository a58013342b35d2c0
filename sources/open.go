package sources

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// Compression is how a file's bytes are compressed, decided by its name
// alone (CompressionOf): the content is never sniffed.
type Compression string

// The compressions OpenFile reads.
const (
	// NoCompression: the file is read as it is.
	NoCompression Compression = ""
	// Gzip: RFC 1952 (extension .gz), read with compress/gzip; several
	// concatenated members are read as one stream, as gzip -d does.
	Gzip Compression = "gzip"
	// Zstd: RFC 8878 (extension .zst), read with
	// github.com/klauspost/compress/zstd.
	Zstd Compression = "zstd"
)

// CompressionOf returns the compression a file's name says it has: Gzip for
// a name ending in .gz, Zstd for .zst (in any letter case), else
// NoCompression.
func CompressionOf(path string) Compression {
	lower := strings.ToLower(path)
	switch {
	case strings.HasSuffix(lower, ".gz"):
		return Gzip
	case strings.HasSuffix(lower, ".zst"):
		return Zstd
	}
	return NoCompression
}

// OpenFile opens path for reading, decompressing it as CompressionOf says,
// and returns the text every file kind reads (so a line number is one of the
// decompressed text). Errors — from opening, from a header that is not what
// the extension promises, or from a stream that turns out corrupt or
// truncated while it is read — name the file. The caller closes the reader.
func OpenFile(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(f, 1<<20)
	var r io.Reader
	var closeDec func()
	c := CompressionOf(path)
	switch c {
	case Gzip:
		gz, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: not a gzip file (its name ends in .gz): %w", path, err)
		}
		r, closeDec = gz, func() { gz.Close() }
	case Zstd:
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: zstd: %w", path, err)
		}
		r, closeDec = zr, zr.Close
	default:
		r, closeDec = br, func() {}
	}
	return &fileReader{path: path, r: r, f: f, closeDec: closeDec, compressed: c != NoCompression}, nil
}

// fileReader is a file being read through its decompressor.
type fileReader struct {
	path       string
	r          io.Reader
	f          *os.File
	closeDec   func()
	compressed bool
}

// Read reads decompressed bytes; an error other than io.EOF names the file.
func (fr *fileReader) Read(p []byte) (int, error) {
	n, err := fr.r.Read(p)
	switch {
	case err == nil || err == io.EOF:
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
