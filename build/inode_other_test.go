//go:build !unix

package build_test

import (
	"errors"
	"io/fs"
)

// inode is 0 where the system has no inode numbers.
func inode(fs.FileInfo) uint64 { return 0 }

// mkfifo fails where the system has no FIFOs.
func mkfifo(string) error { return errors.New("no FIFOs on this system") }
