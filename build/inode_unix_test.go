//go:build unix

package build_test

import (
	"io/fs"
	"syscall"
)

// inode is a file's inode number: a rewritten file gets a new one.
func inode(info fs.FileInfo) uint64 {
	if s, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Ino)
	}
	return 0
}

// mkfifo makes a FIFO at name.
func mkfifo(name string) error { return syscall.Mkfifo(name, 0o644) }
