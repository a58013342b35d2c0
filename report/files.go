package report

import (
	"fmt"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// The words every report uses for the files of an input that were cut or
// not read, so the three layouts say the same.

// validLengthText says how much of a file a valid-length side file let be
// read ("" for a file read whole).
func validLengthText(f evidence.File) string {
	v := f.ValidLength
	if v == nil {
		return ""
	}
	if v.Length >= f.Bytes {
		return fmt.Sprintf("read whole: its valid-length file %s (SHA-256 %s) gives all %d bytes as committed", v.SideFile, v.SideSHA256, v.Length)
	}
	return fmt.Sprintf("read up to its committed length: the first %d of %d bytes, as its valid-length file %s (SHA-256 %s) gives", v.Length, f.Bytes, v.SideFile, v.SideSHA256)
}

// skippedText says why a file was not read as records and, for an
// uncommitted one, what reading it found.
func skippedText(s evidence.SkippedFile) string {
	out := s.Reason
	switch {
	case s.Rows != nil:
		out += fmt.Sprintf("; read only to label findings: %d row(s), %d bytes, SHA-256 %s", *s.Rows, s.Bytes, s.SHA256)
	case s.ReadError != "":
		out += "; could not be read to label findings: " + s.ReadError
	}
	return out
}
