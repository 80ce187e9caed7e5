package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileFileNames names sources with a newline (which could forge a
// violation line or a GitHub Actions command) and with ESC (which could
// drive the terminal): every text format prints one line per violation,
// the names escaped.
func TestHostileFileNames(t *testing.T) {
	content := t.TempDir()
	names := []string{
		"a\n::error file=x.json,line=1::forged.json",
		"\x1b[2J\x1b[31mred.json",
		"bidi\u202etxt.json",
	}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(content, n), []byte("not json"), 0o644); err != nil {
			t.Skipf("cannot make a file named %q: %v", n, err)
		}
	}
	for _, format := range []string{"text", "github"} {
		t.Run(format, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, "validate", "--content", content, "--format", format)
			if code != exitInvalid {
				t.Fatalf("exit %d, want 1; stderr:\n%s", code, stderr)
			}
			out := stderr
			if format == "github" {
				out = stdout
			}
			var vlines []string
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				if strings.Contains(l, "invalid JSON") {
					vlines = append(vlines, l)
				}
			}
			if len(vlines) != len(names) {
				t.Errorf("got %d violation lines, want %d:\n%s", len(vlines), len(names), out)
			}
			for _, l := range strings.Split(stdout+stderr, "\n") {
				if strings.HasPrefix(l, "::error file=x.json") || strings.ContainsAny(l, "\x1b\u202e") {
					t.Errorf("a name reached the output raw: %q", l)
				}
			}
			for _, want := range []string{`a\n::error file=x.json,line=1::forged.json`, `\x1b[2J\x1b[31mred.json`, `bidi\u202etxt.json`} {
				if format == "github" {
					want = ghProperty(want)
				}
				if !strings.Contains(out, want) {
					t.Errorf("the escaped name %s is not in the output:\n%s", want, out)
				}
			}
		})
	}
}
