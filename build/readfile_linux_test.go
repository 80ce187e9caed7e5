package build

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestReadFile checks readFile against os.ReadFile: the same bytes for
// files empty, small and larger than a page; fs.ErrNotExist in a
// *fs.PathError for a missing file; errNotRegular, at once, for a folder
// and a FIFO with no writer (which os.ReadFile would wait on for ever).
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	for _, size := range []int{0, 1, 511, 4096, 70000} {
		name := filepath.Join(dir, "f")
		data := bytes.Repeat([]byte("abcdefg\n"), size/8+1)[:size]
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readFile(name)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("size %d: readFile = %d bytes, %v; want the %d written", size, len(got), err, size)
		}
	}
	var pe *fs.PathError
	if _, err := readFile(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) {
		t.Errorf("missing file: %v, want a *fs.PathError wrapping fs.ErrNotExist", err)
	}
	if _, err := readFile(dir); !errors.Is(err, errNotRegular) {
		t.Errorf("folder: %v, want errNotRegular", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("cannot make a FIFO: %v", err)
	}
	refusedAtOnce(t, "readFile of a FIFO", func() error { _, err := readFile(fifo); return err })
}

// refusedAtOnce checks that read returns errNotRegular without blocking.
func refusedAtOnce(t *testing.T, what string, read func() error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- read() }()
	select {
	case err := <-done:
		if !errors.Is(err, errNotRegular) {
			t.Errorf("%s: %v, want errNotRegular", what, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s blocked", what)
	}
}

// TestLoadFromDirFS checks that a source of os.DirFS is read straight from
// the disk (onDisk) with what fs.ReadFile would give, and that a FIFO put
// in its place since the walk is refused, not waited on.
func TestLoadFromDirFS(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a", "s.json"), []byte(`{"id":"s"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	fsys := os.DirFS(dir)
	if got, ok := onDisk(fsys, "a/s.json"); !ok || got != dir+"/a/s.json" {
		t.Fatalf("onDisk(os.DirFS(%q), a/s.json) = %q, %v", dir, got, ok)
	}
	if _, ok := onDisk(os.DirFS(""), "a/s.json"); ok {
		t.Error("onDisk took os.DirFS(\"\"), whose Open always fails")
	}
	if _, ok := onDisk(fsys, "../s.json"); ok {
		t.Error("onDisk took a name os.DirFS refuses")
	}
	f := SourceFile{Path: "a/s.json", at: "a/s.json"}
	if err := f.load(fsys); err != nil || string(f.Data) != `{"id":"s"}` {
		t.Fatalf("load = %q, %v", f.Data, err)
	}
	if err := os.Remove(filepath.Join(dir, "a", "s.json")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "a", "s.json"), 0o644); err != nil {
		t.Skipf("cannot make a FIFO: %v", err)
	}
	refusedAtOnce(t, "load of a FIFO put there since the walk", func() error {
		f := SourceFile{Path: "a/s.json", at: "a/s.json"}
		return f.load(fsys)
	})
}

// TestStatFile checks statFile against os.Stat for each kind of file a
// content directory may hold: what readAll reads of it (the mode, the
// size, the identity fileStat makes, the error) is the same.
func TestStatFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.md")
	if err := os.WriteFile(file, []byte("---\nid: a\n---\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "p.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{
		os.Symlink("a.md", filepath.Join(dir, "link.md")),
		os.Symlink("gone.md", filepath.Join(dir, "dangling.md")),
		os.Mkdir(filepath.Join(dir, "d.md"), 0o755),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"a.md", "p.md", "link.md", "dangling.md", "d.md", "missing.md", "a.md/x"} {
		full := filepath.Join(dir, name)
		want, werr := os.Stat(full)
		got, err := statFile(full)
		if (err == nil) != (werr == nil) || err != nil && plainErr(err) != plainErr(werr) {
			t.Errorf("%s: got error %v, want %v", name, err, werr)
			continue
		}
		if err != nil {
			continue
		}
		if got.Mode() != want.Mode() || got.Size() != want.Size() || got.IsDir() != want.IsDir() || got.Name() != want.Name() || !got.ModTime().Equal(want.ModTime()) {
			t.Errorf("%s: got %v %d %v %q %v, want %v %d %v %q %v", name, got.Mode(), got.Size(), got.IsDir(), got.Name(), got.ModTime(),
				want.Mode(), want.Size(), want.IsDir(), want.Name(), want.ModTime())
		}
		gs, gc := fileStat(got)
		ws, wc := fileStat(want)
		if gs != ws || gc != wc || gs == "" {
			t.Errorf("%s: identity %q %d, want %q %d", name, gs, gc, ws, wc)
		}
	}
}
