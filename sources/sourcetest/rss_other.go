//go:build !unix

package sourcetest

import "testing"

// PeakRSS is 0 where getrusage is not available (see rss_unix.go).
func PeakRSS(testing.TB) int64 { return 0 }
