//go:build !unix

package store_test

import "io/fs"

// fileInode is 0 where the system has no inode numbers.
func fileInode(fs.FileInfo) uint64 { return 0 }
