//go:build !unix

package build_test

import "errors"

// mkfifo fails where the system has no FIFOs.
func mkfifo(string) error { return errors.New("no FIFOs on this system") }
