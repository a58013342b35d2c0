package fault_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/reconcile-dev/reconcile/internal/fault"
)

var (
	errUsage   = fault.Usage.New("pkg: bad spec")
	errFailed  = fault.Failed.New("pkg: exceptions found")
	errRuntime = fault.Runtime.New("pkg: out of memory")
	errStale   = fault.Stale.New("pkg: input changed since the run")
	errPlain   = errors.New("pkg: plain")
)

func TestOf(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want fault.Class
	}{
		{"nil", nil, fault.OK},
		{"usage sentinel", errUsage, fault.Usage},
		{"failed sentinel", errFailed, fault.Failed},
		{"runtime sentinel", errRuntime, fault.Runtime},
		{"plain error is runtime", errPlain, fault.Runtime},
		{"os error is runtime", fs.ErrNotExist, fault.Runtime},
		{"cancellation is runtime", context.Canceled, fault.Runtime},
		{"usage wrapped once", fmt.Errorf("load: %w", errUsage), fault.Usage},
		{"usage wrapped twice", fmt.Errorf("run: %w", fmt.Errorf("load %s: %w", "sink", errUsage)), fault.Usage},
		{"usage wrapped with a second %w", fmt.Errorf("%w: %w", errUsage, fs.ErrNotExist), fault.Usage},
		{"usage as the second %w", fmt.Errorf("%w: %w", fs.ErrNotExist, errUsage), fault.Usage},
		{"failed wrapped twice", fmt.Errorf("a: %w", fmt.Errorf("b: %w", errFailed)), fault.Failed},
		{"runtime wrapped twice", fmt.Errorf("a: %w", fmt.Errorf("b: %w", errRuntime)), fault.Runtime},
		{"marked usage", fault.Usage.Mark(errPlain), fault.Usage},
		{"marked usage wrapped twice", fmt.Errorf("a: %w", fmt.Errorf("b: %w", fault.Usage.Mark(errPlain))), fault.Usage},
		{"marked failed", fault.Failed.Mark(errPlain), fault.Failed},
		{"joined plain and usage", errors.Join(errPlain, errUsage), fault.Usage},
		{"failed before usage", errors.Join(errUsage, errFailed), fault.Failed},
		{"usage before runtime", fmt.Errorf("%w: %w", errRuntime, errUsage), fault.Usage},
		{"stale sentinel wrapped", fmt.Errorf("explain: %w", errStale), fault.Stale},
		{"stale before usage", errors.Join(errUsage, errStale), fault.Stale},
		{"%v breaks the chain", fmt.Errorf("a: %v", errUsage), fault.Runtime},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fault.Of(tt.err); got != tt.want {
				t.Errorf("Of(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

// A sentinel keeps its identity and message; a mark changes neither the
// message nor what the chain holds.
func TestSentinelAndMark(t *testing.T) {
	wrapped := fmt.Errorf("a: %w", fmt.Errorf("b: %w", errUsage))
	if !errors.Is(wrapped, errUsage) || !errors.Is(wrapped, fault.Usage) || errors.Is(wrapped, fault.Runtime) || errors.Is(wrapped, errFailed) {
		t.Errorf("errors.Is on %v: sentinel %v usage %v runtime %v failed %v", wrapped,
			errors.Is(wrapped, errUsage), errors.Is(wrapped, fault.Usage), errors.Is(wrapped, fault.Runtime), errors.Is(wrapped, errFailed))
	}
	if got := wrapped.Error(); got != "a: b: pkg: bad spec" {
		t.Errorf("message %q", got)
	}
	// Two sentinels of one class are still two errors.
	if other := fault.Usage.New("pkg: bad spec"); errors.Is(errUsage, other) || errors.Is(other, errUsage) {
		t.Error("two sentinels with one message match each other")
	}

	var pe *fs.PathError
	inner := &fs.PathError{Op: "open", Path: "x.csv", Err: fs.ErrNotExist}
	m := fault.Usage.Mark(fmt.Errorf("read: %w", inner))
	if m.Error() != "read: open x.csv: file does not exist" {
		t.Errorf("marked message %q", m.Error())
	}
	if !errors.As(m, &pe) || pe.Path != "x.csv" || !errors.Is(m, fs.ErrNotExist) {
		t.Errorf("a mark hides the chain: As %v, Is %v", errors.As(m, &pe), errors.Is(m, fs.ErrNotExist))
	}
	if fault.Usage.Mark(nil) != nil {
		t.Error("Mark(nil) is not nil")
	}
	if errors.Is(errPlain, fault.Runtime) {
		t.Error("an unmarked error claims the runtime class; Of must decide that, not errors.Is")
	}
}

func TestClassValues(t *testing.T) {
	for want, c := range []fault.Class{fault.OK, fault.Failed, fault.Usage, fault.Runtime, fault.Stale} {
		if int(c) != want {
			t.Errorf("%v = %d, want exit code %d", c, int(c), want)
		}
	}
	if fault.Usage.String() != "usage" || fault.Stale.String() != "stale" || fault.Class(9).String() != "class 9" {
		t.Errorf("String: %q %q %q", fault.Usage.String(), fault.Stale.String(), fault.Class(9).String())
	}
}
