package treetest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillcat/skillcat/internal/treetest"
)

func TestFilesAndDiff(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755)
	os.WriteFile(filepath.Join(dir, "a", "b", "c.txt"), []byte("c"), 0o644)
	os.WriteFile(filepath.Join(dir, "d.txt"), []byte("d"), 0o644)
	got := treetest.Files(t, dir)
	if len(got) != 2 || got["a/b/c.txt"] == "" || got["d.txt"] == "" || got["a/b/c.txt"] == got["d.txt"] {
		t.Fatalf("Files = %v; want a/b/c.txt and d.txt with their digests", got)
	}
	if d := treetest.Diff(got, got); d != "" {
		t.Errorf("Diff of a tree with itself = %q; want nothing", d)
	}
	want := map[string]string{"a/b/c.txt": "other", "e.txt": "e"}
	if d, w := treetest.Diff(got, want), "changed a/b/c.txt: got "+got["a/b/c.txt"]+", want other\nextra d.txt\nmissing e.txt"; d != w {
		t.Errorf("Diff = %q; want %q", d, w)
	}
	many := map[string]string{}
	for _, c := range "abcdefghijklmnopqrstuvwxy" {
		many[string(c)] = "x"
	}
	if d := treetest.Diff(nil, many); !strings.HasSuffix(d, "… and 5 more") || strings.Count(d, "\n") != 20 {
		t.Errorf("Diff of 25 differences = %q; want 20 lines and a count of the rest", d)
	}
}
