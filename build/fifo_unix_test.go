//go:build unix

package build_test

import "syscall"

// mkfifo makes a FIFO at name.
func mkfifo(name string) error { return syscall.Mkfifo(name, 0o644) }
