package file

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/reconcile-dev/reconcile/sources"
)

// The CRLFs inside quoted fields are restored however the bytes reach
// encoding/csv: read one byte at a time, every CR and its LF arrive in two
// reads.
func TestCSVRecordsRestoreCRLF(t *testing.T) {
	body := "id,note\r\n1,\"a\r\nb\nc\r\r\nd\"\r\n\r\n2,\"\r\n\"\n3,\"e\rf\"\n"
	want := []string{"1|a\r\nb\nc\r\r\nd|2", "2|\r\n|7", "3|e\rf|9"}
	for name, r := range map[string]io.Reader{
		"whole":     strings.NewReader(body),
		"one byte":  iotest.OneByteReader(strings.NewReader(body)),
		"half read": iotest.HalfReader(strings.NewReader(body)),
	} {
		s := &csvSource{delim: ',', quote: '"', header: true}
		it := s.records(r, sources.ScanFile{Name: "a.csv"}, 2)
		var got []string
		for {
			rec, line, err := it.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got = append(got, fmt.Sprintf("%s|%d", strings.Join(rec, "|"), line))
		}
		if strings.Join(got, ";") != strings.Join(want, ";") {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}
