// Package jsontext holds what the kinds that read JSON text (the ndjson
// kind of sources/file; the kafka and kcat kinds of sources/kafka) check
// alike in it, beyond what their JSON parsers check.
package jsontext

import (
	"bytes"
	"strconv"
)

// LoneSurrogate returns the first \uXXXX escape of JSON text b (valid JSON:
// a backslash is always an escape inside a string) that is half of a
// UTF-16 surrogate pair without its other half — a high surrogate
// (D800–DBFF) not followed at once by a low one (DC00–DFFF), or a low one
// alone — and true. Such an escape names no character (RFC 8259 section
// 8.2); fastjson keeps it as the six characters written, or gives U+FFFD
// for a pair whose second half is no low surrogate, and encoding/json
// gives U+FFFD.
func LoneSurrogate(b []byte) (string, bool) {
	if i := LoneSurrogateAt(b); i >= 0 {
		return string(b[i : i+6]), true
	}
	return "", false
}

// LoneSurrogateAt is LoneSurrogate's escape as its byte offset in b, or -1.
func LoneSurrogateAt(b []byte) int {
	if bytes.IndexByte(b, '\\') < 0 {
		return -1 // no escape at all: the common case, at memchr's speed
	}
	hex4 := func(i int) (rune, bool) {
		if i+6 > len(b) || b[i] != '\\' || b[i+1] != 'u' {
			return 0, false
		}
		v, err := strconv.ParseUint(string(b[i+2:i+6]), 16, 16)
		return rune(v), err == nil
	}
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			continue
		}
		if b[i+1] != 'u' {
			i++ // \\, \" and the others: two bytes
			continue
		}
		r, ok := hex4(i)
		if !ok {
			continue // fastjson.Validate has refused it already
		}
		switch {
		case r >= 0xD800 && r <= 0xDBFF:
			if lo, ok := hex4(i + 6); ok && lo >= 0xDC00 && lo <= 0xDFFF {
				i += 11
				continue
			}
			return i
		case r >= 0xDC00 && r <= 0xDFFF:
			return i
		}
		i += 5
	}
	return -1
}
