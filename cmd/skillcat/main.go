// Command skillcat builds a static catalog site for the Skill Sharing
// Protocol from a directory of skill sources, validates sources, serves a
// live preview, scaffolds new skills and discovers published catalogs.
//
// Usage:
//
//	skillcat <command> [flags]
//
// Run "skillcat help" for the list of commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

// Exit codes shared by every command.
const (
	exitOK       = 0 // success
	exitInvalid  = 1 // the content (or a fetched document) is invalid
	exitUsage    = 2 // bad command line, missing content directory
	exitInternal = 3 // internal or I/O failure
)

// Version is the skillcat release, set with -ldflags "-X main.Version=…".
var Version = "0.1.0-dev"

// env is what a command runs with: its streams and environment, so tests
// run commands in-process.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
}

// command is one subcommand of skillcat.
type command struct {
	summary string
	run     func(ctx context.Context, e *env, args []string) int
}

// commands is filled by each command's file in its init function.
var commands = map[string]command{}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}, os.Args[1:])
	stop()
	os.Exit(code)
}

// run dispatches to a subcommand and returns the exit code.
func run(ctx context.Context, e *env, args []string) int {
	if len(args) == 2 && args[0] == "help" {
		args = []string{args[1], "--help"} // skillcat help build
	}
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		args = []string{"version"}
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		usage(e.stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(e.stderr, "skillcat: unknown command %q\n\n", args[0])
		usage(e.stderr)
		return exitUsage
	}
	return cmd.run(ctx, e, args[1:])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "skillcat builds and checks static catalogs of the Skill Sharing Protocol.")
	fmt.Fprintln(w, "\nUsage:\n  skillcat <command> [flags]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	width := 0
	for _, name := range names {
		width = max(width, len(name))
	}
	for _, name := range names {
		fmt.Fprintf(w, "  %-*s  %s\n", width, name, commands[name].summary)
	}
	fmt.Fprintln(w, "\nRun \"skillcat <command> --help\" for a command's flags.")
}

// newFlags returns a flag set for a command that prints its usage to the
// command's stderr (or stdout for --help).
func newFlags(e *env, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: skillcat %s %s\n\nFlags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// describe sets fs's usage to the synopsis, the text about the command
// (paragraphs separated by blank lines) and the flags.
func describe(fs *flag.FlagSet, synopsis, about string) {
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: skillcat %s %s\n\n%s\n\nFlags:\n", fs.Name(), synopsis, about)
		fs.PrintDefaults()
	}
}

// parseFlags parses args and returns the exit code to stop with, or -1 to go
// on. --help prints usage to stdout and exits 0; a bad flag exits 2.
func parseFlags(e *env, fs *flag.FlagSet, args []string) int {
	usage := fs.Usage
	fs.Usage = func() {} // the flag package would print it on every error, and for --help to stderr
	err := fs.Parse(args)
	fs.Usage = usage
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(e.stdout)
		fs.Usage()
		return exitOK
	}
	if err != nil {
		fs.Usage()
		return exitUsage
	}
	return -1
}
