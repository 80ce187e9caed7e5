package build

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skillcat/skillcat/internal/treetest"
)

// mountTmpfs mounts a tmpfs of the given size at dir for the test, or
// skips it, loudly, where the machine does not allow mounting.
func mountTmpfs(t *testing.T, dir, size string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size+",mode=0755"); err != nil {
		t.Skipf("SKIPPED: cannot mount a tmpfs (%v); this test needs root with CAP_SYS_ADMIN: sudo go test ./build -run '%s'", err, t.Name())
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
}

// bindMount mounts the folder src at dst for the test, or skips it.
func bindMount(t *testing.T, src, dst string) {
	t.Helper()
	for _, d := range []string{src, dst} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mount(src, dst, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("SKIPPED: cannot bind-mount (%v); this test needs root with CAP_SYS_ADMIN: sudo go test ./build -run '%s'", err, t.Name())
	}
	t.Cleanup(func() { syscall.Unmount(dst, syscall.MNT_DETACH) })
}

// mountedOutput makes an output folder that is a mount point of kind
// "Tmpfs" (a 64 MiB tmpfs) or "Bind" (a bind mount of a folder elsewhere),
// and the cache file beside it.
func mountedOutput(t *testing.T, kind string) (out, cache string) {
	t.Helper()
	parent := t.TempDir()
	out, cache = filepath.Join(parent, "public"), filepath.Join(parent, ".cache", "public.sqlite")
	if kind == "Tmpfs" {
		mountTmpfs(t, out, "64m")
	} else {
		bindMount(t, filepath.Join(t.TempDir(), "volume"), out)
	}
	return out, cache
}

// TestMountPointOutput builds into an --out that is a mount point, as a
// container volume (docker run -v $PWD/public:/site/public), a tmpfs or a
// NAS export is: it cannot be renamed or exchanged, so files are moved in
// one by one, and every build still ends with exactly the cold build's
// site.
func TestMountPointOutput(t *testing.T) {
	contentA, contentB := testContent(t, 10, 1), testContent(t, 12, 2)
	wantA, wantB := coldTree(t, contentA), coldTree(t, contentA, contentB)
	for _, kind := range []string{"Tmpfs", "Bind"} {
		t.Run(kind, func(t *testing.T) {
			out, cache := mountedOutput(t, kind)
			if !isMountPoint(out) {
				t.Fatalf("%s is not seen as a mount point", out)
			}
			for i, step := range []struct {
				content string
				want    map[string]string
			}{{contentA, wantA}, {contentB, wantB}} {
				if _, err := Build(context.Background(), testConfig(step.content, out, cache)); err != nil {
					t.Fatalf("build %d: %v", i+1, err)
				}
				if got := treetest.Files(t, out); !maps.Equal(got, step.want) {
					t.Fatalf("build %d differs from a cold build:\n%s", i+1, treetest.Diff(got, step.want))
				}
				checkNoDebris(t, filepath.Dir(out), out)
			}

			// A failure half-way leaves a consistent site, which the next
			// build completes.
			defer func() { rename = os.Rename }()
			moves := 0
			rename = func(a, b string) error {
				if moves++; moves == 3 {
					return &os.LinkError{Op: "rename", Old: a, New: b, Err: syscall.EIO}
				}
				return os.Rename(a, b)
			}
			_, err := Build(context.Background(), testConfig(contentA, out, cache))
			if !errors.Is(err, ErrOutputPartial) || !errors.Is(err, syscall.EIO) {
				t.Fatalf("got %v, want ErrOutputPartial with the I/O error", err)
			}
			checkListed(t, out)
			rename = os.Rename
			if _, err := Build(context.Background(), testConfig(contentA, out, cache)); err != nil {
				t.Fatal(err)
			}
			checkListed(t, out)
			checkNoDebris(t, filepath.Dir(out), out)
		})
	}
}

// TestMountPointUpToDate: an output updated in place keeps its folders
// and their modes (a folder the user made, or chmod'ed, is reused as it
// is), so a folder of another mode must not keep every later build with
// nothing changed from being up to date.
func TestMountPointUpToDate(t *testing.T) {
	content := testContent(t, 6, 1)
	time.Sleep(1100 * time.Millisecond) // past the racy window
	parent := t.TempDir()
	out, cache := filepath.Join(parent, "public"), filepath.Join(parent, ".cache", "public.sqlite")
	mountTmpfs(t, out, "64m")
	build := func() *Result {
		t.Helper()
		res, err := Build(context.Background(), testConfig(content, out, cache))
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	build()
	build() // records the identities of the output's files
	if !build().UpToDate {
		t.Fatal("nothing changed, yet the build was not up to date")
	}
	if err := os.Chmod(filepath.Join(out, "skills"), 0o700); err != nil {
		t.Fatal(err)
	}
	build()
	if res := build(); !res.UpToDate {
		t.Error("a folder of another mode in an output updated in place: the build is never up to date again")
	}
}

// TestNoSpace fills the file system while the new tree is written: the
// build fails with ENOSPC, the output is the old site whole, and nothing
// of the new tree is left.
func TestNoSpace(t *testing.T) {
	contentA, contentB := testContent(t, 3, 1), testContent(t, 400, 2)
	wantA := coldTree(t, contentA)
	for _, kind := range []string{"Beside", "MountPoint"} {
		t.Run(kind, func(t *testing.T) {
			parent := filepath.Join(t.TempDir(), "disk")
			out := filepath.Join(parent, "public")
			if kind == "Beside" {
				mountTmpfs(t, parent, "2m")
			} else {
				os.MkdirAll(parent, 0o755)
				mountTmpfs(t, out, "2m")
			}
			cache := filepath.Join(t.TempDir(), "public.sqlite") // on another disk
			if _, err := Build(context.Background(), testConfig(contentA, out, cache)); err != nil {
				t.Fatalf("catalog A does not fit the small disk: %v", err)
			}
			_, err := Build(context.Background(), testConfig(contentB, out, cache))
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("got %v, want ENOSPC", err)
			}
			if errors.Is(err, ErrOutputPartial) {
				t.Errorf("the error says the output changed: %v", err)
			}
			if got := treetest.Files(t, out); !maps.Equal(got, wantA) {
				t.Fatalf("after ENOSPC the output is not the old site:\n%s", treetest.Diff(got, wantA))
			}
			checkNoDebris(t, filepath.Dir(out), out)
			if !strings.Contains(err.Error(), "no space left") {
				t.Errorf("the error does not say the disk is full: %v", err)
			}
		})
	}
}

// TestDiskFullKeepsNoSpare fills the output's file system with a build
// that cannot fit: it fails, the output is the old site, and its tree is
// not kept as the spare, which would hold the disk full (each next build
// failed the same, the space taken by a tree of a failed build).
func TestDiskFullKeepsNoSpare(t *testing.T) {
	disk := filepath.Join(t.TempDir(), "disk")
	mountTmpfs(t, disk, "4m")
	contentA, contentB := testContent(t, 8, 1), testContent(t, 300, 2)
	want := coldTree(t, contentA)
	out, cache := filepath.Join(disk, "public"), filepath.Join(t.TempDir(), "public.sqlite")
	if _, err := Build(context.Background(), testConfig(contentA, out, cache)); err != nil {
		t.Fatal(err)
	}
	var before syscall.Statfs_t
	syscall.Statfs(disk, &before)
	if _, err := Build(context.Background(), testConfig(contentB, out, cache)); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("a build larger than the disk: got %v, want ENOSPC", err)
	}
	if got := treetest.Files(t, out); !maps.Equal(got, want) {
		t.Fatalf("after the failed build the output is not the old site:\n%s", treetest.Diff(got, want))
	}
	checkNoDebris(t, disk, out)
	var after syscall.Statfs_t
	syscall.Statfs(disk, &after)
	if after.Bfree < before.Bfree {
		t.Errorf("the failed build left %d blocks taken", before.Bfree-after.Bfree)
	}
}
