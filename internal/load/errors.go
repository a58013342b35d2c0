package load

import (
	"errors"
	"strings"
)

// shortReaderError turns a DuckDB reader error into one line: the file,
// the line and what was found, without the statement text and the list of
// reader settings DuckDB appends.
func shortReaderError(err error) error {
	inner := err
	if u := errors.Unwrap(err); u != nil {
		inner = u
	}
	var keep []string
	file := ""
	for _, l := range strings.Split(inner.Error(), "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "file = "):
			file = strings.TrimPrefix(l, "file = ")
		case l == "" || strings.HasPrefix(l, "Possible fixes") || strings.HasPrefix(l, "Possible Solution") ||
			strings.HasPrefix(l, "* ") || strings.Contains(l, " = "):
			// DuckDB's advice names read_csv options, not reconcile's.
		default:
			keep = append(keep, l)
		}
	}
	msg := strings.Join(keep, "; ")
	if strings.Contains(msg, "not utf-8 encoded") {
		msg += "; declare encoding: latin-1 (or windows-1252) if the file is not UTF-8"
	}
	if file != "" {
		msg = file + ": " + msg
	}
	return &readerError{msg: msg, err: err}
}

// readerError is a DuckDB reader error shown by its first lines; the full
// error stays reachable through Unwrap.
type readerError struct {
	msg string
	err error
}

func (e *readerError) Error() string { return e.msg }
func (e *readerError) Unwrap() error { return e.err }
