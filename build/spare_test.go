package build

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/skillcat/skillcat/internal/treetest"
	"github.com/skillcat/skillcat/synth"
)

// These tests hold the spare (spare.go) to its promise: whatever is done
// to it, or to the output, between builds, a build that brings the spare
// up to date gives the tree a cold build gives, folders and modification
// times included, and leaves nothing but the output, its spare and the
// cache.

var spareTime = time.Unix(1700000000, 0)

// spareConfig is testConfig with a build date, so that times are stamped.
func spareConfig(content, out, cache string) Config {
	cfg := testConfig(content, out, cache)
	cfg.Time = spareTime
	return cfg
}

// shape is a tree's files (path → sha256), folders and entries whose
// modification time is not spareTime.
type shape struct {
	files    map[string]string
	dirs     []string
	offTimes []string
}

func shapeOf(t *testing.T, dir string) shape {
	t.Helper()
	s := shape{files: treetest.Files(t, dir)}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			s.dirs = append(s.dirs, rel)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if !info.ModTime().Equal(spareTime) {
			s.offTimes = append(s.offTimes, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// coldShapes is the shape of the cold builds of contents in turn, one
// after the other into one folder (so each change feed continues the last).
func coldShapes(t *testing.T, contents ...string) []shape {
	t.Helper()
	out := filepath.Join(t.TempDir(), "cold")
	var shapes []shape
	for _, c := range contents {
		if _, err := Build(context.Background(), spareConfig(c, out, "")); err != nil {
			t.Fatalf("cold build: %v", err)
		}
		shapes = append(shapes, shapeOf(t, out))
	}
	return shapes
}

// checkShape fails unless out has the shape of want.
func checkShape(t *testing.T, step string, out string, want shape) {
	t.Helper()
	got := shapeOf(t, out)
	if !maps.Equal(got.files, want.files) {
		t.Fatalf("%s: the output differs from a cold build's:\n%s", step, treetest.Diff(got.files, want.files))
	}
	if !slices.Equal(got.dirs, want.dirs) {
		t.Fatalf("%s: the output's folders are\n%v\nwant\n%v", step, got.dirs, want.dirs)
	}
	if len(got.offTimes) > 0 {
		t.Fatalf("%s: modification times not the build date: %v", step, got.offTimes)
	}
}

// shared returns the files of the spare that are one inode with the
// output's file at their path.
func shared(t *testing.T, out string) []string {
	t.Helper()
	spare := spareName(out)
	var paths []string
	filepath.WalkDir(spare, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(spare, p)
		a, errA := os.Lstat(p)
		b, errB := os.Lstat(filepath.Join(out, rel))
		if errA == nil && errB == nil && os.SameFile(a, b) {
			paths = append(paths, rel)
		}
		return nil
	})
	return paths
}

func TestSpareRebuilds(t *testing.T) {
	a, b := testContent(t, 12, 1), testContent(t, 14, 2) // B adds skills and changes all
	order := []string{a, b, a, b, a, a}
	want := coldShapes(t, order...)
	parent := t.TempDir()
	out, cache := filepath.Join(parent, "public"), filepath.Join(parent, ".cache", "public.sqlite")
	for i, c := range order {
		if i == len(order)-1 {
			// Nothing changed but a source's identity: rebuilt from the
			// spare, every file taken.
			name := filepath.Join(c, synth.Name(0))
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			os.Remove(name)
			os.WriteFile(name, data, 0o644)
		}
		res, err := Build(context.Background(), spareConfig(c, out, cache))
		if err != nil {
			t.Fatalf("build %d: %v", i, err)
		}
		checkShape(t, "build "+string(rune('0'+i)), out, want[i])
		checkNoDebris(t, parent, out)
		_, err = os.Lstat(spareName(out))
		switch {
		case i == 0 && err == nil:
			t.Fatal("the first build kept a spare: there was no output to keep")
		case i > 0 && err != nil:
			t.Fatalf("build %d kept no spare: %v", i, err)
		case i == len(order)-1 && (res.Files != 0 || len(shared(t, out)) != len(want[i].files)):
			t.Errorf("build %d: %d files written, %d of %d files of the spare shared with the output; want none written, all shared",
				i, res.Files, len(shared(t, out)), len(want[i].files))
		}
		t.Logf("build %d: %d files written, up to date %v", i, res.Files, res.UpToDate)
	}
}

// TestSpareTampered changes the spare, or the output, by hand between two
// builds in every way a person or a tool could, and checks that the next
// two builds equal cold builds.
func TestSpareTampered(t *testing.T) {
	a, b := testContent(t, 12, 1), testContent(t, 14, 2)
	want := coldShapes(t, a, b, a, b)
	// firstShared is a file of the spare that is one inode with the output's.
	firstShared := func(t *testing.T, out string) string {
		s := shared(t, out)
		if len(s) == 0 {
			t.Fatal("no file of the spare is shared with the output")
		}
		slices.Sort(s)
		return filepath.Join(spareName(out), s[len(s)/2])
	}
	for _, tc := range []struct {
		name   string
		tamper func(t *testing.T, out string)
	}{
		{"EditedInPlace", func(t *testing.T, out string) {
			f, err := os.OpenFile(firstShared(t, out), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("tampered")
			f.Close()
		}},
		{"Replaced", func(t *testing.T, out string) {
			p := firstShared(t, out)
			os.Remove(p)
			os.WriteFile(p, []byte("tampered"), 0o644)
		}},
		{"Deleted", func(t *testing.T, out string) { os.Remove(firstShared(t, out)) }},
		{"Symlink", func(t *testing.T, out string) {
			p := firstShared(t, out)
			os.Remove(p)
			os.Symlink("/etc/hostname", p)
		}},
		{"AddedWithTime", func(t *testing.T, out string) {
			// An entry that is no file of a build, in a folder whose time
			// is put back to the build's (a restore with cp -a does it):
			// its removal changes that time, which must be set again.
			d := filepath.Dir(firstShared(t, out))
			if err := os.Symlink("/etc/hostname", filepath.Join(d, "evil")); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(d, spareTime, spareTime); err != nil {
				t.Fatal(err)
			}
		}},
		{"Added", func(t *testing.T, out string) {
			spare := spareName(out)
			os.WriteFile(filepath.Join(spare, "CNAME"), []byte("tampered"), 0o644)
			os.MkdirAll(filepath.Join(spare, "skills", "extra", "deep"), 0o755)
			os.WriteFile(filepath.Join(spare, "skills", "extra", "deep", "index.html"), []byte("tampered"), 0o644)
		}},
		{"FolderMode", func(t *testing.T, out string) { os.Chmod(filepath.Join(spareName(out), "skills"), 0o700) }},
		{"FolderForFile", func(t *testing.T, out string) {
			p := filepath.Join(spareName(out), ".well-known", "skills.json")
			os.Remove(p)
			os.MkdirAll(filepath.Join(p, "x"), 0o755)
		}},
		{"FolderTimes", func(t *testing.T, out string) {
			os.Chtimes(filepath.Join(spareName(out), "skills"), time.Now(), time.Now())
		}},
		{"SpareRemoved", func(t *testing.T, out string) { os.RemoveAll(spareName(out)) }},
		{"SpareIsFile", func(t *testing.T, out string) {
			os.RemoveAll(spareName(out))
			os.WriteFile(spareName(out), []byte("tampered"), 0o644)
		}},
		{"OutputAdded", func(t *testing.T, out string) {
			// Once the output, now the spare of the next build.
			os.WriteFile(filepath.Join(out, "CNAME"), []byte("tampered"), 0o644)
		}},
		{"OutputEdited", func(t *testing.T, out string) {
			p := filepath.Join(out, ".well-known", "skills.json")
			os.Remove(p)
			os.WriteFile(p, []byte("tampered"), 0o644)
		}},
		{"KilledUpdate", func(t *testing.T, out string) {
			// What a build killed while it updated the spare leaves: the
			// spare under a new tree's name, unlocked, half changed.
			killed := filepath.Join(filepath.Dir(out), "."+filepath.Base(out)+newTreeMark+"killed")
			if err := os.Rename(spareName(out), killed); err != nil {
				t.Fatal(err)
			}
			os.RemoveAll(filepath.Join(killed, "skills"))
			os.WriteFile(filepath.Join(killed, "index.html"), []byte("half"), 0o644)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent := t.TempDir()
			out, cache := filepath.Join(parent, "public"), filepath.Join(parent, ".cache", "public.sqlite")
			for i, c := range []string{a, b, a, b} {
				if i == 2 {
					tc.tamper(t, out)
				}
				if _, err := Build(context.Background(), spareConfig(c, out, cache)); err != nil {
					t.Fatalf("build %d: %v", i, err)
				}
				checkShape(t, "build "+string(rune('0'+i)), out, want[i])
				checkNoDebris(t, parent, out)
			}
		})
	}
}

// TestSpareFailedBuild makes the exchange fail once the spare is brought
// up to date: the output is the old site, the tree is kept as the spare,
// and the next builds, which start from that tree, equal cold builds.
func TestSpareFailedBuild(t *testing.T) {
	a, b := testContent(t, 12, 1), testContent(t, 14, 2)
	want := coldShapes(t, a, b, a, b)
	defer func() { exchangeDirs = exchange }()
	parent := t.TempDir()
	out, cache := filepath.Join(parent, "public"), filepath.Join(parent, ".cache", "public.sqlite")
	for i, c := range []string{a, b} {
		if _, err := Build(context.Background(), spareConfig(c, out, cache)); err != nil {
			t.Fatal(err)
		}
		checkShape(t, "build "+string(rune('0'+i)), out, want[i])
	}
	exchangeDirs = func(x, y string) error { return &os.LinkError{Op: "renameat2", Old: x, New: y, Err: syscall.EACCES} }
	if _, err := Build(context.Background(), spareConfig(a, out, cache)); !errors.Is(err, syscall.EACCES) {
		t.Fatalf("got %v, want the permission error", err)
	}
	exchangeDirs = exchange
	checkShape(t, "after the failed build", out, want[1])
	checkNoDebris(t, parent, out)
	if _, err := os.Lstat(spareName(out)); err != nil {
		t.Fatalf("the failed build's tree is not the spare: %v", err)
	}
	for i, c := range []string{a, b} {
		if _, err := Build(context.Background(), spareConfig(c, out, cache)); err != nil {
			t.Fatal(err)
		}
		checkShape(t, "build after the failure "+string(rune('0'+i)), out, want[2+i])
		checkNoDebris(t, parent, out)
	}
}

// TestSpareWithoutCache checks that a build without the cache keeps no
// spare and removes the one there was: it could not vouch for it.
func TestSpareWithoutCache(t *testing.T) {
	a, b := testContent(t, 6, 1), testContent(t, 7, 2)
	parent := t.TempDir()
	out, cache := filepath.Join(parent, "public"), filepath.Join(parent, ".cache", "public.sqlite")
	for _, c := range []string{a, b} {
		if _, err := Build(context.Background(), spareConfig(c, out, cache)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Lstat(spareName(out)); err != nil {
		t.Fatalf("no spare after two builds with the cache: %v", err)
	}
	if _, err := Build(context.Background(), spareConfig(a, out, "")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(spareName(out)); err == nil {
		t.Fatal("a build without the cache left a spare")
	}
	want := coldShapes(t, a, b, a, b)
	if _, err := Build(context.Background(), spareConfig(b, out, cache)); err != nil {
		t.Fatal(err)
	}
	checkShape(t, "the build with the cache after one without", out, want[3])
	checkNoDebris(t, parent, out)
}
