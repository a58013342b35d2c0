//go:build !linux && !darwin && !freebsd && !netbsd

package fileset

import (
	"os"
	"time"
)

// changeTime reports no inode change time where the stat of this system
// does not give one (see ctime_linux.go): File.Unchanged then compares
// identity, size and modification time only.
func changeTime(os.FileInfo) (time.Time, bool) { return time.Time{}, false }
