package build

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skillcat/skillcat/internal/treetest"
	"github.com/skillcat/skillcat/synth"
)

// These tests make one step of putting the output in place fail, as a full
// disk or a permission error would, and check that the output is then the
// old site whole, or (where it could not be exchanged and files were moved
// in one by one) a site whose index lists only descriptors that are there,
// and that the next build completes it.

func testContent(t *testing.T, n int, seed int64) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "content")
	if err := synth.Write(dir, n, seed); err != nil {
		t.Fatal(err)
	}
	return dir
}

// editDescription edits the JSON source name: a word more at the head of
// its description.
func editDescription(t *testing.T, name string) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(data, []byte(`"description": "`), []byte(`"description": "Zanzibarish `), 1)
	if bytes.Equal(edited, data) {
		t.Fatal("no description to edit")
	}
	if err := os.WriteFile(name, edited, 0o644); err != nil {
		t.Fatal(err)
	}
}

func testConfig(content, out, cache string) Config {
	return Config{Content: os.DirFS(content), ContentLabel: content, ContentPath: content, Out: out, Cache: cache, Workers: 2}
}

// coldTree is the output of builds without a cache of each content in
// turn, into one folder.
func coldTree(t *testing.T, contents ...string) map[string]string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "cold")
	for _, content := range contents {
		if _, err := Build(context.Background(), testConfig(content, out, "")); err != nil {
			t.Fatalf("cold build: %v", err)
		}
	}
	return treetest.Files(t, out)
}

// checkListed fails unless every descriptor the Well-Known index in out
// lists is a file of out.
func checkListed(t *testing.T, out string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, ".well-known", "skills.json"))
	if err != nil {
		t.Fatal(err)
	}
	var idx struct {
		Skills []struct {
			DescriptorURL string `json:"descriptor_url"`
		} `json:"skills"`
	}
	if err := json.Unmarshal(data, &idx); err != nil {
		t.Fatal(err)
	}
	for _, s := range idx.Skills {
		p := filepath.Join(out, ".well-known", filepath.FromSlash(s.DescriptorURL))
		if _, err := os.Stat(p); err != nil {
			t.Errorf("the index lists %s, which is missing: %v", s.DescriptorURL, err)
		}
	}
}

// checkNoDebris fails unless parent holds only the output and the cache
// folder, and the output no in-place tree.
func checkNoDebris(t *testing.T, parent, out string) {
	t.Helper()
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		if e.Name() != filepath.Base(out) && e.Name() != ".cache" && e.Name() != "content" && e.Name() != "."+filepath.Base(out)+spareMark {
			t.Errorf("left beside the output: %s", e.Name())
		}
	}
	inside, _ := os.ReadDir(out)
	for _, e := range inside {
		if strings.HasPrefix(e.Name(), inPlaceTree) {
			t.Errorf("left inside the output: %s", e.Name())
		}
	}
}

func TestOutputFaults(t *testing.T) {
	contentA, contentB := testContent(t, 12, 1), testContent(t, 14, 2)
	// B as built after A: its change feed continues A's.
	wantA, wantB := coldTree(t, contentA), coldTree(t, contentA, contentB)
	eacces := func(op, a, b string) error { return &os.LinkError{Op: op, Old: a, New: b, Err: syscall.EACCES} }
	restore := func() { rename, exchangeDirs = os.Rename, exchange }
	t.Cleanup(restore)

	for _, tc := range []struct {
		name    string
		inPlace bool // exchange impossible: files are moved in one by one
		failAt  int  // the rename that fails, counting from 1
	}{
		{"Exchange", false, 0},
		{"InPlaceFirstRename", true, 1},
		{"InPlaceMidway", true, 9},
		{"InPlaceIndex", true, -1}, // the last rename: the Well-Known index
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer restore()
			parent := t.TempDir()
			out, cache := filepath.Join(parent, "public"), filepath.Join(parent, ".cache", "public.sqlite")
			if _, err := Build(context.Background(), testConfig(contentA, out, cache)); err != nil {
				t.Fatal(err)
			}
			renames := 0
			if tc.inPlace {
				exchangeDirs = func(a, b string) error { return syscall.EINVAL }
				rename = func(a, b string) error {
					if renames++; renames == tc.failAt || (tc.failAt < 0 && strings.HasSuffix(b, "skills.json")) {
						return eacces("rename", a, b)
					}
					return os.Rename(a, b)
				}
			} else {
				exchangeDirs = func(a, b string) error { return eacces("renameat2", a, b) }
			}
			_, err := Build(context.Background(), testConfig(contentB, out, cache))
			if err == nil || !errors.Is(err, syscall.EACCES) {
				t.Fatalf("got %v, want the permission error", err)
			}
			got := treetest.Files(t, out)
			partial := errors.Is(err, ErrOutputPartial)
			switch {
			case maps.Equal(got, wantA):
				if partial {
					t.Errorf("the output is the old site, but the error says it holds part of the new one: %v", err)
				}
			case !tc.inPlace:
				t.Fatalf("after a failed exchange the output is not the old site")
			default:
				if !partial {
					t.Errorf("the output changed, but the error does not say so: %v", err)
				}
				for p, h := range got {
					if wantA[p] != h && wantB[p] != h {
						t.Errorf("%s is neither the old file nor the new one", p)
					}
				}
				checkListed(t, out)
			}
			restore()
			if tc.inPlace {
				exchangeDirs = func(a, b string) error { return syscall.EINVAL }
			}
			if _, err := Build(context.Background(), testConfig(contentB, out, cache)); err != nil {
				t.Fatalf("the next build: %v", err)
			}
			if got := treetest.Files(t, out); !maps.Equal(got, wantB) {
				t.Fatalf("the next build's output differs from a cold build's:\n%s", treetest.Diff(got, wantB))
			}
			checkNoDebris(t, parent, out)
		})
	}
}

// TestOutputFirstBuildFails checks that a first build that cannot rename
// its tree into place writes nothing and leaves nothing.
func TestOutputFirstBuildFails(t *testing.T) {
	content := testContent(t, 4, 1)
	parent := t.TempDir()
	out := filepath.Join(parent, "public")
	rename = func(a, b string) error { return &os.LinkError{Op: "rename", Old: a, New: b, Err: syscall.EACCES} }
	defer func() { rename = os.Rename }()
	if _, err := Build(context.Background(), testConfig(content, out, filepath.Join(parent, ".cache", "c.sqlite"))); !errors.Is(err, syscall.EACCES) {
		t.Fatalf("got %v, want the permission error", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("the output exists")
	}
	checkNoDebris(t, parent, out)
}

// TestOutputFailedLeavesNoParents checks that a build into an output
// whose folders above do not exist yet leaves none of them when it fails,
// with or without the cache (without it, the new tree is made before the
// sources are loaded), keeps a folder something else was put in
// meanwhile, and makes them all when it succeeds.
func TestOutputFailedLeavesNoParents(t *testing.T) {
	content := testContent(t, 4, 1)
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, "broken.json"), []byte(`{"id": "broken"`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cached := range []bool{false, true} {
		root := t.TempDir()
		out := filepath.Join(root, "a", "b", "public")
		cache := ""
		if cached {
			cache = filepath.Join(root, "cache.sqlite")
		}
		if _, err := Build(context.Background(), testConfig(bad, out, cache)); err == nil {
			t.Fatal("a broken source built")
		}
		if _, err := os.Stat(filepath.Join(root, "a")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("cache %v: the failed build left %s (%v)", cached, filepath.Join(root, "a"), err)
		}
		if _, err := Build(context.Background(), testConfig(content, out, cache)); err != nil {
			t.Fatal(err)
		}
		checkListed(t, out)
	}
	// A folder the build made that something else filled meanwhile stays.
	root := t.TempDir()
	parents, err := mkdirParents(filepath.Join(root, "a", "b"))
	if err != nil || len(parents) != 2 {
		t.Fatalf("mkdirParents = %q, %v; want a and b", parents, err)
	}
	if err := os.WriteFile(filepath.Join(root, "a", "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	removeDirs(parents)
	if _, err := os.Stat(filepath.Join(root, "a", "keep")); err != nil {
		t.Errorf("a file put in a made folder went: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "a", "b")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the empty folder stays: %v", err)
	}
}

// TestWriteNew holds writeNew to what os.WriteFile with O_EXCL would do:
// the bytes, the mode the umask leaves of 0644, the time when one is
// given, and a refusal that leaves an existing file as it was.
func TestWriteNew(t *testing.T) {
	dir := t.TempDir()
	when := time.Unix(1700000000, 0)
	data := []byte(strings.Repeat("0123456789", 100000))
	for _, c := range []struct {
		name string
		data []byte
		t    time.Time
	}{{"empty", nil, time.Time{}}, {"big", data, time.Time{}}, {"stamped", data, when}} {
		name := filepath.Join(dir, c.name)
		if err := writeNew(name, c.data, c.t); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(name)
		if err != nil || string(got) != string(c.data) {
			t.Fatalf("%s: read %d bytes (%v), want %d", c.name, len(got), err, len(c.data))
		}
		info, _ := os.Stat(name)
		if want := os.WriteFile(name+".os", nil, 0o644); want == nil {
			if w, _ := os.Stat(name + ".os"); info.Mode().Perm() != w.Mode().Perm() {
				t.Errorf("%s: mode %v, want os.WriteFile's %v", c.name, info.Mode().Perm(), w.Mode().Perm())
			}
		}
		if !c.t.IsZero() && !info.ModTime().Equal(c.t) {
			t.Errorf("%s: time %v, want %v", c.name, info.ModTime(), c.t)
		}
		if err := writeNew(name, []byte("other"), time.Time{}); !errors.Is(err, os.ErrExist) {
			t.Errorf("%s: writing it again: %v, want an error of an existing file", c.name, err)
		}
		if got, _ := os.ReadFile(name); string(got) != string(c.data) {
			t.Errorf("%s: changed by the refused write", c.name)
		}
	}
}

// TestOutputParentDenied builds into a folder the user may write whose
// parent they may not (a deploy user's /srv/site in root's /srv): no tree
// can be made beside it, so it is updated in place, as a mount point is,
// and every build, first or incremental, gives a cold build's site.
func TestOutputParentDenied(t *testing.T) {
	contentA, contentB := testContent(t, 12, 1), testContent(t, 14, 2)
	wantB := coldTree(t, contentA, contentB)
	parent := t.TempDir()
	out, cache := filepath.Join(parent, "site"), filepath.Join(t.TempDir(), "public.sqlite")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	makeTree = func(dir, pattern string) (string, error) {
		if filepath.Clean(dir) == parent {
			return "", &os.PathError{Op: "mkdir", Path: filepath.Join(dir, pattern), Err: syscall.EACCES}
		}
		return os.MkdirTemp(dir, pattern)
	}
	defer func() { makeTree = os.MkdirTemp }()
	for _, content := range []string{contentA, contentB} {
		if _, err := Build(context.Background(), testConfig(content, out, cache)); err != nil {
			t.Fatalf("build into a folder whose parent is not writable: %v", err)
		}
	}
	if got := treetest.Files(t, out); !maps.Equal(got, wantB) {
		t.Fatalf("the output differs from a cold build's:\n%s", treetest.Diff(got, wantB))
	}
	checkNoDebris(t, parent, out)
}
