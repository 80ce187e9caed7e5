//go:build linux

package store

import (
	"os"
	"strconv"
	"syscall"
)

// fileIdentity is the file's device, inode, change time, modification
// time and size, or "" when unknown.
func fileIdentity(path string) string {
	info, err := os.Lstat(path)
	if err != nil {
		return ""
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return ""
	}
	return strconv.FormatUint(st.Dev, 10) + ":" + strconv.FormatUint(st.Ino, 10) + ":" +
		strconv.FormatInt(st.Ctim.Nano(), 10) + ":" + strconv.FormatInt(st.Mtim.Nano(), 10) + ":" + strconv.FormatInt(st.Size, 10)
}

// times is a file's change and modification times (ns).
type times struct{ ctime, mtime int64 }

// fileTimes returns the change and modification times of the file at path.
func fileTimes(path string) (times, bool) {
	info, err := os.Lstat(path)
	if err != nil {
		return times{}, false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return times{}, false
	}
	return times{st.Ctim.Nano(), st.Mtim.Nano()}, true
}
