package main

import (
	"fmt"
	"os"
)

// contentFS checks that the content directory exists and is a directory.
// A missing one is a usage error.
func contentDir(e *env, dir string) (os.FileInfo, int) {
	info, err := os.Stat(dir)
	if err != nil {
		fmt.Fprintf(e.stderr, "skillcat: content directory %q not found; create it or pass --content DIR\n", dir)
		return nil, exitUsage
	}
	if !info.IsDir() {
		fmt.Fprintf(e.stderr, "skillcat: --content %q is not a directory\n", dir)
		return nil, exitUsage
	}
	return info, -1
}
