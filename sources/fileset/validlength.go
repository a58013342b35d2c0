package fileset

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/reconcile-dev/reconcile/sources"
)

// validLengthSuffix is Flink's BucketingSink default validLengthSuffix.
const validLengthSuffix = ".valid-length"

// findValidLength returns the valid-length side file of part, or nil when
// it has none. Both namings ("_<part>.valid-length" and
// ".<part>.valid-length") are looked for; a part file with both is an
// error, as is one that does not parse (ErrValidLength).
func findValidLength(part string) (*sources.ValidLength, error) {
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
func ParseValidLength(side, part string) (*sources.ValidLength, error) {
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
	return &sources.ValidLength{SideFile: side, SideSHA256: hex.EncodeToString(sum[:]), Length: n, PartBytes: st.Size()}, nil
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
