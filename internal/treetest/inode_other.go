//go:build !unix

package treetest

import "io/fs"

// Inode is 0 where the system has no inode numbers.
func Inode(fs.FileInfo) uint64 { return 0 }
