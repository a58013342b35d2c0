//go:build darwin || freebsd || netbsd

package fileset

import (
	"os"
	"syscall"
	"time"
)

// changeTime is the inode change time (ctime) of a file as stat'ed (see
// ctime_linux.go). ok is false when the FileInfo carries none.
func changeTime(fi os.FileInfo) (t time.Time, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(st.Ctimespec.Unix()), true
}
