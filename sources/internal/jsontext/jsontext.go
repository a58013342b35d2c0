// Package jsontext holds what the kinds that read JSON text (the ndjson
// kind of sources/file; the kafka and kcat kinds of sources/kafka) check
// alike in it, beyond what their JSON parsers check, and the one text a
// nested object or array is compared by in all of them (AppendText).
package jsontext

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
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

// AppendText appends to dst the text an object or array value (src:
// valid JSON, as a parser accepted it) is compared by, for every kind that
// reads JSON (ndjson, kafka, kcat), and fails, naming the key, when an
// object at any depth gives a key twice (RFC 8259 section 4: which value
// holds is then not defined, and readers differ). The text is src with
// only its spelling made one:
//
//   - no white space between tokens (RFC 8259 section 2: it is
//     insignificant), so {"b": 1} is {"b":1};
//   - every string, key or value, written with the fewest escapes: \" and
//     \\, \b \f \n \r \t, any other control character as \u00XX (lower-case
//     hex), every other character as itself (section 7: an escape is
//     another spelling of the same character), so "\u00e9" is "é" and
//     "a\/b" is "a/b";
//   - keys in the order written and numbers exactly as written: {"a":1,
//     "b":2} is not {"b":2,"a":1}, and 1.50 is not 1.5 nor 1e2 100, as a
//     top-level number keeps its spelling (12.50 stays 12.50).
//
// So two values with the same text are the same JSON value, and two whose
// texts differ are reported as different even where a reader that ignores
// key order or number spelling would equate them: a spelling is shown,
// never a difference hidden.
func AppendText(dst, src []byte) ([]byte, error) {
	type level struct {
		object  bool
		wantKey bool
		keys    []string            // the keys so far, while they are few
		set     map[string]struct{} // then as a set
	}
	var stack []level
	for i := 0; i < len(src); {
		c := src[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			i++
			continue
		case '{', '[':
			stack = append(stack, level{object: c == '{', wantKey: c == '{'})
		case '}', ']':
			stack = stack[:len(stack)-1]
		case ',':
			if top := len(stack) - 1; top >= 0 && stack[top].object {
				stack[top].wantKey = true
			}
		case '"':
			end, escaped := jsonStringEnd(src, i)
			if end < 0 {
				return nil, fmt.Errorf("a string that does not end")
			}
			start := len(dst)
			if escaped {
				var err error
				if dst, err = appendUnescaped(dst, src[i+1:end-1]); err != nil {
					return nil, err
				}
			} else {
				dst = append(dst, src[i:end]...)
			}
			if top := len(stack) - 1; top >= 0 && stack[top].wantKey {
				// a string has one text with the fewest escapes, so two
				// keys are the same string when their texts are equal
				l := &stack[top]
				key := string(dst[start:])
				_, inSet := l.set[key]
				if inSet || slices.Contains(l.keys, key) {
					return nil, fmt.Errorf("key %s appears twice in one object; which value holds is not defined", key)
				}
				switch {
				case l.set != nil:
					l.set[key] = struct{}{}
				case len(l.keys) < 16:
					l.keys = append(l.keys, key)
				default:
					l.set = map[string]struct{}{key: {}}
					for _, k := range l.keys {
						l.set[k] = struct{}{}
					}
					l.keys = nil
				}
				l.wantKey = false
			}
			i = end
			continue
		}
		dst = append(dst, c)
		i++
	}
	return dst, nil
}

// jsonStringEnd returns the index just past the closing quote of the string
// starting at src[i] (a quote), and whether the string holds an escape; -1
// when it does not end.
func jsonStringEnd(src []byte, i int) (int, bool) {
	escaped := false
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped
		}
	}
	return -1, escaped
}

// appendUnescaped appends the string whose text between the quotes is s
// (with escapes) as AppendText writes it: quoted, with the fewest
// escapes. A \uXXXX half of a surrogate pair without its other half is an
// error (RFC 8259 section 8.2: it names no character).
func appendUnescaped(dst, s []byte) ([]byte, error) {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c != '\\' {
			r, size := utf8.DecodeRune(s[i:])
			dst = appendJSONRune(dst, r, s[i:i+size])
			i += size
			continue
		}
		if i+1 >= len(s) {
			return nil, fmt.Errorf("a string ends in a backslash")
		}
		switch e := s[i+1]; e {
		case '"', '\\', '/':
			dst = appendJSONRune(dst, rune(e), s[i+1:i+2])
			i += 2
		case 'b', 'f', 'n', 'r', 't':
			dst = append(dst, '\\', e)
			i += 2
		case 'u':
			r, ok := hex4At(s, i)
			if !ok {
				return nil, fmt.Errorf("the escape %q is not \\u and four hex digits", s[i:min(i+6, len(s))])
			}
			i += 6
			if utf16.IsSurrogate(r) {
				lo, ok := hex4At(s, i)
				if r > 0xDBFF || !ok || lo < 0xDC00 || lo > 0xDFFF {
					return nil, fmt.Errorf("the escape \\u%04x is half of a UTF-16 surrogate pair, which names no character (RFC 8259 section 8.2)", r)
				}
				r = utf16.DecodeRune(r, lo)
				i += 6
			}
			var buf [utf8.UTFMax]byte
			dst = appendJSONRune(dst, r, buf[:utf8.EncodeRune(buf[:], r)])
		default:
			return nil, fmt.Errorf("the escape \\%c is not JSON", e)
		}
	}
	return append(dst, '"'), nil
}

// appendJSONRune appends r (whose UTF-8 bytes are b) as AppendText
// writes it inside a string.
func appendJSONRune(dst []byte, r rune, b []byte) []byte {
	switch r {
	case '"':
		return append(dst, '\\', '"')
	case '\\':
		return append(dst, '\\', '\\')
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	if r < 0x20 {
		const hex = "0123456789abcdef"
		return append(dst, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xF])
	}
	return append(dst, b...)
}

// hex4At reads the \uXXXX escape at s[i], if there is one.
func hex4At(s []byte, i int) (rune, bool) {
	if i+6 > len(s) || s[i] != '\\' || s[i+1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range s[i+2 : i+6] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// AppendString appends s (UTF-8 text) as a JSON string, written as
// AppendText writes strings: with the fewest escapes.
func AppendString(dst, s []byte) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRune(s[i:])
		dst = appendJSONRune(dst, r, s[i:i+size])
		i += size
	}
	return append(dst, '"')
}
