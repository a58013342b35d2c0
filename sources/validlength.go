package sources

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
)

// validLengthSuffix is Flink's BucketingSink default validLengthSuffix.
const validLengthSuffix = ".valid-length"

// ValidLength is a valid-length side file applied to a part file: only the
// first Length bytes of the part file, as stored, are its committed output.
//
// Flink's legacy BucketingSink (and RollingSink before it), restoring from a
// checkpoint on a file system without truncate(), leaves the part file at
// its full length — the bytes written after the checkpoint included — and
// writes beside it "<validLengthPrefix><part><validLengthSuffix>" (by
// default "_part-0-0.valid-length"; "." is a common prefix too) holding the
// committed length, written with Java's DataOutputStream.writeUTF of
// Long.toString(length): a 2-byte big-endian byte count, then the decimal
// digits in (modified) UTF-8 (BucketingSink.handleRestoredBucketState;
// java.io.DataOutputStream.writeUTF).
//
// The length counts the bytes as stored: for a compressed part file, the
// compressed bytes (the sink's writer reports the position of the
// underlying stream). Reading one is decided in ScanFile.Open.
type ValidLength struct {
	// SideFile is the side file (its path; relative to the spec's folder in
	// an Input).
	SideFile string `json:"side_file"`
	// SideSHA256 is the SHA-256 of the side file's bytes, lower-case hex.
	SideSHA256 string `json:"side_file_sha256"`
	// Length is the committed length of the part file in bytes, as stored.
	Length int64 `json:"length"`
	// PartBytes is the part file's size when it was listed.
	PartBytes int64 `json:"-"`
}

// findValidLength returns the valid-length side file of part, or nil when
// it has none. Both namings ("_<part>.valid-length" and
// ".<part>.valid-length") are looked for; a part file with both is an
// error, as is one that does not parse (ErrValidLength).
func findValidLength(part string) (*ValidLength, error) {
	dir, name := filepath.Dir(part), filepath.Base(part)
	var found []string
	for _, prefix := range []string{"_", "."} {
		side := filepath.Join(dir, prefix+name+validLengthSuffix)
		if st, err := os.Stat(side); err == nil && !st.IsDir() {
			found = append(found, side)
		}
	}
	switch len(found) {
	case 0:
		return nil, nil
	case 2:
		return nil, fmt.Errorf("%w: %s has two valid-length files, %s and %s; which one the sink wrote last cannot be told", ErrValidLength, part, found[0], found[1])
	}
	return ParseValidLength(found[0], part)
}

// ParseValidLength reads the valid-length side file side of part file part
// (see ValidLength for the format). The side file must be exactly a 2-byte
// big-endian count and that many bytes of decimal digits (no sign, no
// leading zero, as Long.toString writes a length), and the length must not
// exceed part's size. Errors wrap ErrValidLength and name both files.
func ParseValidLength(side, part string) (*ValidLength, error) {
	data, err := readSmall(side, 2+1<<16)
	if err != nil {
		return nil, fmt.Errorf("%w %s (of %s): %w", ErrValidLength, side, part, err)
	}
	n, err := decodeValidLength(data)
	if err != nil {
		return nil, fmt.Errorf("%w %s (of %s): %w", ErrValidLength, side, part, err)
	}
	st, err := os.Stat(part)
	if err != nil {
		return nil, fmt.Errorf("%w %s: its part file %s: %w", ErrValidLength, side, part, err)
	}
	if n > st.Size() {
		return nil, fmt.Errorf("%w %s gives a committed length of %d bytes, beyond the %d bytes of %s; the part file is not the one the sink committed", ErrValidLength, side, n, st.Size(), part)
	}
	sum := sha256.Sum256(data)
	return &ValidLength{SideFile: side, SideSHA256: hex.EncodeToString(sum[:]), Length: n, PartBytes: st.Size()}, nil
}

// decodeValidLength decodes DataOutputStream.writeUTF of a decimal length.
func decodeValidLength(data []byte) (int64, error) {
	if len(data) < 2 {
		return 0, fmt.Errorf("%d bytes: not a length written by DataOutputStream.writeUTF (a 2-byte count, then the digits)", len(data))
	}
	count := int(binary.BigEndian.Uint16(data))
	text := data[2:]
	if len(text) != count {
		return 0, fmt.Errorf("the 2-byte count says %d bytes of text, the file holds %d: not a length written by DataOutputStream.writeUTF", count, len(text))
	}
	if count == 0 {
		return 0, fmt.Errorf("no digits: not a length written by DataOutputStream.writeUTF")
	}
	for _, c := range text {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%q is not a decimal byte count", text)
		}
	}
	if count > 1 && text[0] == '0' {
		return 0, fmt.Errorf("%q has a leading zero, which Long.toString never writes", text)
	}
	n, err := strconv.ParseInt(string(text), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a byte count: %w", text, err)
	}
	return n, nil
}

// readSmall reads a file of at most limit bytes.
func readSmall(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("more than %d bytes: not a length written by DataOutputStream.writeUTF", limit)
	}
	return data, nil
}
