package main

import (
	"bytes"
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// TestUseColor checks the colour rule: only on a terminal, and never with
// NO_COLOR or TERM=dumb.
func TestUseColor(t *testing.T) {
	getenv := func(vars map[string]string) func(string) string {
		return func(k string) string { return vars[k] }
	}
	file, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for name, e := range map[string]*env{
		"Buffer": {stderr: &bytes.Buffer{}, getenv: getenv(nil)},
		"File":   {stderr: file, getenv: getenv(nil)},
	} {
		if useColor(e) {
			t.Errorf("%s: got colour, want none off a terminal", name)
		}
	}

	tty := openTerminal(t)
	if !useColor(&env{stderr: tty, getenv: getenv(nil)}) {
		t.Errorf("Terminal: got no colour, want colour")
	}
	for _, vars := range []map[string]string{{"NO_COLOR": "1"}, {"TERM": "dumb"}} {
		if useColor(&env{stderr: tty, getenv: getenv(vars)}) {
			t.Errorf("Terminal with %v: got colour, want none", vars)
		}
	}
}

// openTerminal opens the terminal side of a new pseudo-terminal.
func openTerminal(t *testing.T) *os.File {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here (%v): the terminal case is not checked", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("cannot unlock a pseudo-terminal (%v)", err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Skipf("cannot name a pseudo-terminal (%v)", err)
	}
	tty, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR, 0)
	if err != nil {
		t.Skipf("cannot open the pseudo-terminal (%v)", err)
	}
	t.Cleanup(func() { tty.Close() })
	return tty
}
