package kafka_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/kafka"
)

// No broker listening: the read fails (exit 3) naming the location, within
// the client's bounded retries.
func TestKafkaNoBroker(t *testing.T) {
	t0 := time.Now()
	_, _, err := readTable(t, sources.Location{URI: "kafka://127.0.0.1:1/t"})
	if !errors.Is(err, kafka.ErrRead) || fault.Of(err) != fault.Runtime || !strings.Contains(err.Error(), "kafka://127.0.0.1:1/t") {
		t.Errorf("err = %v", err)
	}
	t.Logf("failed after %s: %v", time.Since(t0).Round(time.Millisecond), err)
}
