// Package treetest records directory trees and says how two records
// differ, for tests that hold an output folder to another byte for byte.
// It is imported by tests only.
package treetest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// TB is the part of testing.TB (and of rapid.TB) that Files needs.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Files maps every regular file under dir, by its slash-separated path
// relative to dir, to the sha256 of its bytes in hex.
func Files(t TB, dir string) map[string]string {
	t.Helper()
	tree := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		sum := sha256.Sum256(data)
		tree[filepath.ToSlash(rel)] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatalf("read tree %s: %v", dir, err)
	}
	return tree
}

// maxDiff is how many differences Diff lists before it counts the rest.
const maxDiff = 20

// Diff lists how the record got differs from want, one line a path in
// path order ("missing p", "extra p", "changed p: got g, want w"), at
// most 20 lines, or returns "" when they are equal.
func Diff(got, want map[string]string) string {
	paths := make([]string, 0, len(want))
	for p := range want {
		paths = append(paths, p)
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	var lines []string
	for _, p := range paths {
		g, inGot := got[p]
		w, inWant := want[p]
		switch {
		case !inGot:
			lines = append(lines, "missing "+p)
		case !inWant:
			lines = append(lines, "extra "+p)
		case g != w:
			lines = append(lines, fmt.Sprintf("changed %s: got %s, want %s", p, g, w))
		}
	}
	if len(lines) > maxDiff {
		lines = append(lines[:maxDiff], fmt.Sprintf("… and %d more", len(lines)-maxDiff))
	}
	return strings.Join(lines, "\n")
}
