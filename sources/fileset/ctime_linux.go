package fileset

import (
	"os"
	"syscall"
	"time"
)

// changeTime is the inode change time (ctime) of a file as stat'ed: the
// kernel sets it on every write, truncation, mode, owner or link change,
// and no call sets it back (a modification time restored with touch -d
// leaves it moved). ok is false when the FileInfo carries none.
func changeTime(fi os.FileInfo) (t time.Time, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return time.Time{}, false
	}
	return time.Unix(st.Ctim.Unix()), true
}
