//go:build !linux

package build

import (
	"io/fs"
	"os"
)

// readsDirect is false: sources are read through the fs.FS, which knows
// this system's paths.
const readsDirect = false

// readFile reads the regular file name whole, as os.ReadFile does; what
// is not a regular file is refused with errNotRegular, never opened.
func readFile(name string) ([]byte, error) {
	if info, err := os.Stat(name); err == nil && !info.Mode().IsRegular() {
		return nil, errNotRegular
	}
	return os.ReadFile(name)
}

// statFile is os.Stat.
func statFile(name string) (fs.FileInfo, error) { return os.Stat(name) }
