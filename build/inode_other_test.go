//go:build !unix

package build_test

import "io/fs"

// inode is 0 where the system has no inode numbers.
func inode(fs.FileInfo) uint64 { return 0 }
