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
