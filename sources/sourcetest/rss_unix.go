//go:build unix

package sourcetest

import (
	"syscall"
	"testing"
)

// PeakRSS is the process's peak resident set size in bytes (getrusage),
// which the load benchmarks report.
func PeakRSS(tb testing.TB) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return ru.Maxrss * 1024 // kilobytes on Linux
}
