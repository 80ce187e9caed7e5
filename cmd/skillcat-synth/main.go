// Command skillcat-synth writes a synthetic skill catalog: n realistic, valid
// skill sources (half JSON descriptors, half Markdown with YAML front matter)
// spread over 100 subfolders, byte-identical for one seed. It exists for
// benchmarks and comparisons; see package synth for what it generates.
//
// Usage:
//
//	skillcat-synth [-n 10000] [-seed 1] [-force] -out DIR
//
// DIR is created if needed. A DIR that already holds files is refused unless
// -force is given; then files of the same names are overwritten and others are
// left alone.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"github.com/skillcat/skillcat/synth"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

func run(args []string, stderr io.Writer) int {
	fset := flag.NewFlagSet("skillcat-synth", flag.ContinueOnError)
	fset.SetOutput(stderr)
	n := fset.Int("n", 10000, "number of skill sources to write")
	seed := fset.Int64("seed", 1, "seed of the generator; one seed always gives the same files")
	out := fset.String("out", "", "content directory to write (required)")
	force := fset.Bool("force", false, "write into a directory that is not empty")
	quiet := fset.Bool("quiet", false, "print nothing on success")
	fset.Usage = func() {
		fmt.Fprintln(stderr, "usage: skillcat-synth [-n 10000] [-seed 1] [-force] [-quiet] -out DIR")
		fset.PrintDefaults()
	}
	if err := fset.Parse(args); err != nil {
		return 2
	}
	if *out == "" || fset.NArg() > 0 || *n < 0 {
		fset.Usage()
		return 2
	}
	if !*force {
		switch entries, err := os.ReadDir(*out); {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			fmt.Fprintf(stderr, "skillcat-synth: %v\n", err)
			return 1
		case len(entries) > 0:
			fmt.Fprintf(stderr, "skillcat-synth: %s is not empty (use -force to write into it)\n", *out)
			return 1
		}
	}
	// Generation allocates many short-lived strings and keeps nothing; a lazier
	// collector makes it noticeably faster at a few more MiB.
	debug.SetGCPercent(400)
	start := time.Now()
	if err := synth.Write(*out, *n, *seed); err != nil {
		fmt.Fprintf(stderr, "skillcat-synth: %v\n", err)
		return 1
	}
	if !*quiet {
		fmt.Fprintf(stderr, "skillcat-synth: wrote %d sources (%d .json, %d .md) to %s in %.2fs\n",
			*n, (*n+1)/2, *n/2, *out, time.Since(start).Seconds())
	}
	return 0
}
