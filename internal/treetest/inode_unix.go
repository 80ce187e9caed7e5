//go:build unix

package treetest

import (
	"io/fs"
	"syscall"
)

// Inode is the inode number of the file info describes: a file written
// anew gets a new one.
func Inode(info fs.FileInfo) uint64 {
	if s, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Ino)
	}
	return 0
}
