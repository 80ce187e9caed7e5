package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "content")
		var stderr bytes.Buffer
		if code := run([]string{"-n", "10", "-out", out}, &stderr); code != 0 {
			t.Fatalf("got exit %d (%s), want 0", code, stderr.String())
		}
		if !strings.Contains(stderr.String(), "wrote 10 sources (5 .json, 5 .md)") {
			t.Errorf("got %q, want a summary line", stderr.String())
		}
		if _, err := os.Stat(filepath.Join(out, "g009", "skill-00009.md")); err != nil {
			t.Error(err)
		}
	})

	t.Run("ErrNotEmpty", func(t *testing.T) {
		out := t.TempDir()
		if err := os.WriteFile(filepath.Join(out, "keep.txt"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		if code := run([]string{"-n", "3", "-out", out}, &stderr); code != 1 {
			t.Fatalf("got exit %d, want 1", code)
		}
		if !strings.Contains(stderr.String(), "not empty") {
			t.Errorf("got %q, want it to say the folder is not empty", stderr.String())
		}
		if code := run([]string{"-n", "3", "-force", "-quiet", "-out", out}, &stderr); code != 0 {
			t.Fatalf("with -force: got exit %d, want 0", code)
		}
		if _, err := os.Stat(filepath.Join(out, "keep.txt")); err != nil {
			t.Errorf("-force removed an unrelated file: %v", err)
		}
	})

	t.Run("ErrUsage", func(t *testing.T) {
		for _, args := range [][]string{{}, {"-n", "-1", "-out", "x"}, {"-out", "x", "extra"}} {
			var stderr bytes.Buffer
			if code := run(args, &stderr); code != 2 {
				t.Errorf("%q: got exit %d, want 2", args, code)
			}
		}
	})
}
