package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/skillcat/skillcat/build"
)

// contentDir checks that the content directory exists and is a directory.
// A missing one is a usage error.
func contentDir(e *env, dir string) (os.FileInfo, int) {
	info, err := os.Stat(dir)
	if err != nil {
		fmt.Fprintf(e.stderr, "skillcat: content directory %q not found; run skillcat in a catalog's folder, start one with skillcat init, or pass --content DIR\n", dir)
		return nil, exitUsage
	}
	if !info.IsDir() {
		fmt.Fprintf(e.stderr, "skillcat: --content %q is not a directory\n", dir)
		return nil, exitUsage
	}
	return info, -1
}

// contentConfig checks what the build, validate and serve commands share
// (no positional arguments, an existing content directory, a valid
// SOURCE_DATE_EPOCH) and returns the build.Config they start from, or the
// exit code to stop with (-1 to go on).
func contentConfig(e *env, fs *flag.FlagSet, content string, strict bool) (build.Config, int) {
	if fs.NArg() > 0 {
		fmt.Fprintf(e.stderr, "skillcat %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return build.Config{}, exitUsage
	}
	if _, code := contentDir(e, content); code >= 0 {
		return build.Config{}, code
	}
	date, err := sourceDate(e)
	if err != nil {
		fmt.Fprintln(e.stderr, "skillcat:", err)
		return build.Config{}, exitUsage
	}
	return build.Config{Content: os.DirFS(content), ContentLabel: content, ContentPath: content, Strict: strict, Time: date}, -1
}
