//go:build !linux

package build

import "errors"

// exchange is not available here; swapDir falls back to two renames.
func exchange(a, b string) error { return errors.New("atomic exchange not supported") }
