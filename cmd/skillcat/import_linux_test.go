package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestImportFIFO: a FIFO given as the input is refused at once; opening it
// would wait for a writer that never comes.
func TestImportFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "openapi.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	code, _, errOut := runNewCmd(t, "import", "openapi", fifo, "--content", filepath.Join(dir, "content"))
	if code != exitUsage || !strings.Contains(errOut, "not a regular file") {
		t.Fatalf("exit %d, want 2 saying it is not a regular file:\n%s", code, errOut)
	}
}
