package file

import (
	"fmt"
	"sync"

	"github.com/reconcile-dev/reconcile/sources"
)

// maxBadRecords bounds the records one input lists with bad_records:
// report, as for a Kafka input: past it an option of the input is more
// likely wrong than the records.
const maxBadRecords = 100_000

// badRecordError is a record a kind reads but cannot take (a CSV record of
// another number of fields): its message is the record's location and the
// reason, as the read stops on it by default; with bad_records: report the
// kind skips the record and lists it. spanned is how many line breaks the
// record holds inside quoted fields.
type badRecordError struct {
	record  sources.BadRecord
	spanned int64
}

func (e *badRecordError) Error() string { return e.record.Location + ": " + e.record.Reason }

// badList is the records a Read skipped (bad_records: report), filled by
// the goroutine that reads them and read once the records are consumed.
type badList struct {
	mu  sync.Mutex
	bad []sources.BadRecord
}

func (l *badList) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.bad = nil
}

// add lists r, whose error stopping the read would be err; past
// maxBadRecords records it is err itself that stops the read, with the
// advice that an option is more likely wrong than the records.
func (l *badList) add(r sources.BadRecord, err error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.bad) >= maxBadRecords {
		return fmt.Errorf("%w (more than %d records cannot be read, which bad_records: report lists at most: is an option of the input wrong?)", err, maxBadRecords)
	}
	l.bad = append(l.bad, r)
	return nil
}

func (l *badList) list() []sources.BadRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]sources.BadRecord(nil), l.bad...)
}
