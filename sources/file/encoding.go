package file

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"

	"github.com/reconcile-dev/reconcile/sources"
)

// textEncoding is the declared encoding of a text input's files (the
// encoding: option, named as DuckDB's read_csv names it), decoded to UTF-8
// with golang.org/x/text as the files are read: after decompression and
// the valid-length cut, so line numbers count the decoded text's lines.
// nil is UTF-8, the default, which is validated, never decoded.
type textEncoding struct {
	name string
	enc  encoding.Encoding
	// singleByte: every byte is one character, and a byte the encoding
	// does not define decodes to U+FFFD (Windows-1252's 0x81, 0x8D, 0x8F,
	// 0x90, 0x9D).
	singleByte bool
}

// encodings are the names encoding: takes (lower case), DuckDB's first.
// UTF-16 without an order needs its byte-order mark: its endianness is
// never guessed.
var encodings = map[string]*textEncoding{
	"latin-1":      {name: "latin-1", enc: charmap.ISO8859_1, singleByte: true},
	"latin1":       {name: "latin-1", enc: charmap.ISO8859_1, singleByte: true},
	"iso-8859-1":   {name: "latin-1", enc: charmap.ISO8859_1, singleByte: true},
	"windows-1252": {name: "windows-1252", enc: charmap.Windows1252, singleByte: true},
	"cp1252":       {name: "windows-1252", enc: charmap.Windows1252, singleByte: true},
	"utf-16":       {name: "utf-16", enc: unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM)},
	"utf-16le":     {name: "utf-16le", enc: unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)},
	"utf-16be":     {name: "utf-16be", enc: unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM)},
}

// readEncoding reads the encoding: option (nil for UTF-8).
func readEncoding(o *sources.Options) *textEncoding {
	name := strings.ToLower(o.String("encoding", "utf-8"))
	if name == "utf-8" || name == "utf8" {
		return nil
	}
	e, ok := encodings[name]
	if !ok {
		o.Fail(fmt.Errorf("option encoding: %q: want utf-8 (the default), latin-1, windows-1252, utf-16 (with a byte-order mark), utf-16le or utf-16be", name))
		return nil
	}
	return e
}

// decode wraps r, the text of file name, so that it reads as UTF-8.
func (e *textEncoding) decode(r io.Reader, name string) io.Reader {
	if e == nil {
		return r
	}
	return &decodeReader{r: transform.NewReader(r, e.enc.NewDecoder()), name: name, enc: e.name}
}

// decodeReader names the file and encoding in a decoding error (a UTF-16
// file without its byte-order mark, an odd number of bytes).
type decodeReader struct {
	r         io.Reader
	name, enc string
}

func (d *decodeReader) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if err != nil && err != io.EOF {
		if err == unicode.ErrMissingBOM {
			err = fmt.Errorf("%s: decode as %s: the file has no byte-order mark, so its byte order is unknown; declare encoding: utf-16le or utf-16be", d.name, d.enc)
		} else {
			err = fmt.Errorf("%s: decode as %s: %w", d.name, d.enc, err)
		}
	}
	return n, err
}

// checkText returns why a decoded value v is not exactly its input's text,
// or "": under UTF-8 a byte that is not UTF-8; under a declared encoding a
// U+FFFD, which is what the decoder puts for a byte or sequence the
// encoding does not define (a U+FFFD written in a UTF-16 file is refused
// too).
func (e *textEncoding) checkText(v string) string {
	if e == nil {
		if !utf8.ValidString(v) {
			return "holds bytes that are not UTF-8; declare encoding: latin-1 (or windows-1252) if the file is not UTF-8"
		}
		return ""
	}
	if strings.ContainsRune(v, utf8.RuneError) {
		return fmt.Sprintf("holds a byte that %s does not define (decoded as U+FFFD); check the declared encoding", e.name)
	}
	return ""
}

// String is the encoding's name ("utf-8" for nil).
func (e *textEncoding) String() string {
	if e == nil {
		return "utf-8"
	}
	return e.name
}
