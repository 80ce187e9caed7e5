package build

import (
	"context"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// treeModes returns the permission bits of every file and folder under
// root, by path.
func treeModes(t *testing.T, root string) map[string]fs.FileMode {
	t.Helper()
	modes := map[string]fs.FileMode{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		modes[rel] = info.Mode()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return modes
}

// TestUmaskChangeEqualsCold: a rebuild under another umask than the last
// build's gives the modes a cold build gives under it. Files taken from
// the previous output (by link, or kept in the spare) kept the modes of
// the umask they were written under: after a build under umask 077, a
// one-change rebuild under 022 left every unchanged file 0600 where a
// --no-cache build makes it 0644. Found by the review (find -printf '%m'
// of an incremental build against a --no-cache one, umask 077 then 022).
func TestUmaskChangeEqualsCold(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	content := testContent(t, 8, 1)
	parent := t.TempDir()
	out, cache := filepath.Join(parent, "public"), filepath.Join(parent, ".cache", "public.sqlite")
	when := time.Unix(1700000000, 0)
	build := func(out, cache string) {
		t.Helper()
		cfg := testConfig(content, out, cache)
		cfg.Time = when
		if _, err := Build(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
	}
	build(out, cache)
	build(out, cache)
	for _, mask := range []int{0o022, 0o002, 0o077} {
		syscall.Umask(mask)
		build(out, cache)
		cold := filepath.Join(t.TempDir(), "cold")
		build(cold, "")
		if got, want := treeModes(t, out), treeModes(t, cold); !maps.Equal(got, want) {
			for p, m := range want {
				if got[p] != m {
					t.Errorf("umask %03o: %s is %v, a cold build makes it %v", mask, p, got[p], m)
					break
				}
			}
			t.Fatalf("umask %03o: the rebuild's modes are not a cold build's", mask)
		}
	}
	if err := os.RemoveAll(parent); err != nil {
		t.Fatal(err)
	}
}

// TestUmaskModesFollow: under umask 077 every file and folder of the
// output is the user's alone, the root folder and catalog.sqlite
// included (they were 0755 and 0644 while every other file was 0600 and
// every other folder 0700), cold and incremental alike.
func TestUmaskModesFollow(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	contentA, contentB := testContent(t, 8, 1), testContent(t, 9, 2)
	parent := t.TempDir()
	out, cache := filepath.Join(parent, "public"), filepath.Join(parent, ".cache", "public.sqlite")
	for _, content := range []string{contentA, contentB, contentA} {
		cfg := testConfig(content, out, cache)
		cfg.Time = time.Unix(1700000000, 0)
		if _, err := Build(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
		for p, m := range treeModes(t, out) {
			want := fs.FileMode(0o600)
			if m.IsDir() {
				want = 0o700
			}
			if m.Perm() != want {
				t.Fatalf("under umask 077, %s is %v", p, m)
			}
		}
	}
}
