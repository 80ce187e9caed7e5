//go:build unix

package store_test

import (
	"io/fs"
	"syscall"
)

// fileInode is a file's inode number: a file written anew gets a new one.
func fileInode(info fs.FileInfo) uint64 {
	if s, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Ino)
	}
	return 0
}
