package preview

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestFingerprint(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string, mtime time.Time) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	write("a.json", "{}", base)
	last := fingerprint([]string{dir})
	if again := fingerprint([]string{dir}); again != last {
		t.Fatal("fingerprint of an unchanged tree changed")
	}
	step := func(name string, changed bool, change func()) {
		t.Helper()
		change()
		fp := fingerprint([]string{dir})
		if (fp != last) != changed {
			t.Errorf("%s: changed: got %v, want %v", name, fp != last, changed)
		}
		last = fp
	}
	step("EditSameSize", true, func() { write("a.json", "[]", base.Add(time.Second)) })
	step("EditSize", true, func() { write("a.json", "{ }", base.Add(time.Second)) })
	step("NewFolder", true, func() {
		if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
	})
	step("NewFileInNewFolder", true, func() { write("sub/deeper/b.md", "---", base) })
	step("Hidden", false, func() {
		write(".git/index", "x", base)
		write("sub/.b.md.swp", "x", base)
	})
	step("Remove", true, func() {
		if err := os.RemoveAll(filepath.Join(dir, "sub")); err != nil {
			t.Fatal(err)
		}
	})
	step("RootGone", true, func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
	})
}
