package build

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillcat/skillcat/store"
)

// TestIntactByRecord checks the check of an output against a record of
// its folders: a folder noted well after it last changed is not read
// while it keeps its identity, and any entry added to or removed from
// any folder, however deep, still shows.
func TestIntactByRecord(t *testing.T) {
	tree := func(t *testing.T) (string, map[string]store.CachedOutput) {
		dir := t.TempDir()
		if !ownAttributes(dir) {
			t.Skipf("%s is on a file system whose attributes are not its own: no folder is noted there", dir)
		}
		out := filepath.Join(dir, "out")
		return out, recordedTree(t, out, "index.html", "skills/a/index.html", "skills/a.json", "skills/b/index.html", ".well-known/skills/a/SKILL.md")
	}
	// noted is the record the first check makes, as if made a racy window
	// later (settled) or at once.
	noted := func(t *testing.T, out string, prev map[string]store.CachedOutput, settled bool) *folderRecord {
		ok, rec := intact(out, prev, nil, false)
		if !ok || rec == nil {
			t.Fatalf("a first check: intact %v, record %v; want intact, a record", ok, rec)
		}
		if want := len(outputFolders(maps.Keys(prev))); len(rec.folders) != want {
			t.Fatalf("the record notes %d folders, want %d", len(rec.folders), want)
		}
		again, err := decodeFolders(rec.encode())
		if err != nil || again.asOf != rec.asOf || !maps.Equal(again.folders, rec.folders) {
			t.Fatalf("the record does not survive its encoding: %v", err)
		}
		if settled {
			rec.asOf += 2 * racyWindow.Nanoseconds()
		}
		return rec
	}
	t.Run("Settled", func(t *testing.T) {
		out, prev := tree(t)
		rec := noted(t, out, prev, true)
		if ok, found, usable := intactByRecord(out, prev, rec, false); !ok || found != nil || !usable {
			t.Errorf("got intact %v, folders read %v, usable %v; want intact, none read, usable", ok, found != nil, usable)
		}
	})
	t.Run("Racy", func(t *testing.T) {
		out, prev := tree(t)
		rec := noted(t, out, prev, false)
		ok, found, usable := intactByRecord(out, prev, rec, false)
		if !ok || found == nil || !usable {
			t.Errorf("got intact %v, folders read %v, usable %v; want intact, read, usable", ok, found != nil, usable)
		}
		if ok, again := intact(out, prev, rec, false); !ok || again != nil {
			t.Errorf("a check within the racy window: intact %v, a new record %v; want intact, none (it would settle nothing more)", ok, again != nil)
		}
	})
	t.Run("NotThisOutput", func(t *testing.T) {
		out, prev := tree(t)
		rec := noted(t, out, prev, true)
		delete(rec.folders, "skills/b")
		rec.folders["skills/c"] = store.FileID{}
		if _, _, usable := intactByRecord(out, prev, rec, false); usable {
			t.Error("a record of other folders was used")
		}
		if ok, again := intact(out, prev, rec, false); !ok || again == nil {
			t.Errorf("with a record of other folders: intact %v, a new record %v; want intact (walked), a new record", ok, again != nil)
		}
	})
	for name, change := range map[string]func(t *testing.T, out string){
		"FileAddedDeep": func(t *testing.T, out string) {
			os.WriteFile(filepath.Join(out, ".well-known", "skills", "a", "notes.md"), nil, 0o644)
		},
		"FileRemovedDeep": func(t *testing.T, out string) {
			os.Remove(filepath.Join(out, "skills", "b", "index.html"))
		},
		"FolderAdded": func(t *testing.T, out string) {
			os.Mkdir(filepath.Join(out, "skills", "a", "x"), 0o755)
		},
		"FolderMoved": func(t *testing.T, out string) {
			os.Rename(filepath.Join(out, "skills", "a"), filepath.Join(out, "skills", "c"))
			os.Mkdir(filepath.Join(out, "skills", "a"), 0o755)
			os.Rename(filepath.Join(out, "skills", "c", "index.html"), filepath.Join(out, "skills", "a", "index.html"))
			os.Remove(filepath.Join(out, "skills", "c"))
		},
		"FolderModeChanged": func(t *testing.T, out string) {
			os.Chmod(filepath.Join(out, "skills", "b"), 0o700)
		},
	} {
		for _, settled := range []bool{false, true} {
			t.Run(name+map[bool]string{false: "/Racy", true: "/Settled"}[settled], func(t *testing.T) {
				out, prev := tree(t)
				rec := noted(t, out, prev, settled)
				change(t, out)
				if ok, _ := intact(out, prev, rec, false); ok {
					t.Error("the output was found intact")
				}
			})
		}
	}
}

// TestFolderSettled checks the racy window of a noted folder: a second
// before the note, two where the file system keeps whole seconds.
func TestFolderSettled(t *testing.T) {
	const asOf = int64(1_700_000_010_500_000_000)
	for _, tc := range []struct {
		ctime int64
		want  bool
	}{
		{asOf - 1_200_000_000, true},
		{asOf - 800_000_000, false},
		{1_700_000_009_000_000_000, false}, // whole seconds, 1.5 s before
		{1_700_000_008_000_000_000, true},  // whole seconds, 2.5 s before
	} {
		id := store.FileID{Dev: 1, Ino: 2, Ctime: tc.ctime, Size: 40}
		rec := &folderRecord{asOf: asOf, folders: map[string]store.FileID{"": {Dev: 1, Ino: 1}, "skills": id}}
		if got := rec.settled("skills", id); got != tc.want {
			t.Errorf("changed at %d, noted at %d: settled %v, want %v", tc.ctime, asOf, got, tc.want)
		}
		other := id
		other.Ino++
		if rec.settled("skills", other) || rec.settled("other", id) {
			t.Errorf("a folder of another identity, or not noted, was taken for settled")
		}
		rec.folders[""] = store.FileID{Dev: 2, Ino: 1, Ctime: tc.ctime}
		if rec.settled("skills", id) {
			t.Errorf("a folder on a file system mounted inside the output was taken for settled")
		}
	}
}

// TestOwnAttributes checks which file systems the folder note is kept on:
// not on one whose attributes the kernel only caches or makes up.
func TestOwnAttributes(t *testing.T) {
	if ownAttributes("/proc") {
		t.Error("procfs taken for a file system that keeps its own attributes")
	}
	if _, err := os.Stat("/dev/shm"); err == nil && !ownAttributes("/dev/shm") {
		t.Error("tmpfs (/dev/shm) not taken for a file system that keeps its own attributes")
	}
}

// TestRacyOutput checks which output files are noted as unknown: those
// written within two seconds of the note on a file system that keeps
// whole seconds, whose identity a later edit of the same size could keep.
func TestRacyOutput(t *testing.T) {
	const now = int64(1_700_000_010_500_000_000)
	for _, tc := range []struct {
		ctime int64
		want  bool
	}{
		{1_700_000_010_000_000_000, true},  // whole seconds, this second
		{1_700_000_009_000_000_000, true},  // whole seconds, 1.5 s before
		{1_700_000_008_000_000_000, false}, // whole seconds, 2.5 s before
		{1_700_000_010_400_000_000, false}, // nanoseconds: a later edit has a later time
		{0, false},                         // no identity at all
	} {
		if got := racyOutput(store.FileID{Dev: 1, Ino: 2, Ctime: tc.ctime, Size: 9}, now); got != tc.want {
			t.Errorf("written at %d, noted at %d: racy %v, want %v", tc.ctime, now, got, tc.want)
		}
	}
}

// TestLiveFiles checks the look at every recorded file made beside the
// sources' read: each change to a file of the output shows, however the
// folders around it stay.
func TestLiveFiles(t *testing.T) {
	ctx := context.Background()
	tree := func(t *testing.T) (string, map[string]store.CachedOutput) {
		out := filepath.Join(t.TempDir(), "out")
		return out, recordedTree(t, out, "index.html", "skills/a/index.html", "skills/a.json", ".well-known/skills/a/SKILL.md")
	}
	out, prev := tree(t)
	if !liveFiles(ctx, out, prev) {
		t.Fatal("an untouched output: a file was found changed")
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if liveFiles(canceled, out, prev) {
		t.Error("a look stopped before it began found every file")
	}
	a := filepath.Join("skills", "a", "index.html")
	for name, change := range map[string]func(t *testing.T, out string, prev map[string]store.CachedOutput){
		"EditedInPlace": func(t *testing.T, out string, _ map[string]store.CachedOutput) {
			f, err := os.OpenFile(filepath.Join(out, a), os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("X") // the same size
			f.Close()
		},
		"Replaced": func(t *testing.T, out string, _ map[string]store.CachedOutput) {
			os.WriteFile(filepath.Join(out, "x"), []byte("skills/a/index.html"), 0o644)
			os.Rename(filepath.Join(out, "x"), filepath.Join(out, a))
		},
		"Removed": func(t *testing.T, out string, _ map[string]store.CachedOutput) { os.Remove(filepath.Join(out, a)) },
		"Symlinked": func(t *testing.T, out string, _ map[string]store.CachedOutput) {
			os.Remove(filepath.Join(out, a))
			os.Symlink("../a.json", filepath.Join(out, a))
		},
		"Unknown": func(t *testing.T, _ string, prev map[string]store.CachedOutput) {
			rec := prev["skills/a/index.html"]
			rec.Stat = store.FileID{} // noted as unknown: racyOutput
			prev["skills/a/index.html"] = rec
		},
	} {
		t.Run(name, func(t *testing.T) {
			out, prev := tree(t)
			change(t, out, prev)
			if liveFiles(ctx, out, prev) {
				t.Error("the change was not seen")
			}
		})
	}
}

// TestTakeConfirmsLookAhead replaces a file of the output after the look
// ahead found it as recorded: the new tree must not take the new file for
// the recorded one (a link or a copy of it), but make the file again.
func TestTakeConfirmsLookAhead(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "public")
	name := filepath.Join(out, "index.html")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte("recorded"), 0o644); err != nil {
		t.Fatal(err)
	}
	id, ok := lstatID(name)
	if !ok {
		t.Fatal("no identity")
	}
	prev := map[string]store.CachedOutput{"index.html": {Key: outputKey("k"), Size: 8, Stat: id}}
	o, err := newOutput(Config{Out: out}, prev)
	if err != nil {
		t.Fatal(err)
	}
	defer o.abandon()
	if !liveFiles(context.Background(), out, prev) {
		t.Fatal("the output was not found as recorded")
	}
	o.liveSame = func() bool { return true }
	os.WriteFile(filepath.Join(out, "x"), []byte("replaced"), 0o644)
	if err := os.Rename(filepath.Join(out, "x"), name); err != nil {
		t.Fatal(err)
	}
	if o.fresh("index.html", "k") {
		t.Fatal("the replaced file was taken for the recorded one")
	}
	if _, err := os.Lstat(filepath.Join(o.dir, "index.html")); err == nil {
		t.Error("the new tree holds a file that was not made")
	}
}

// recordedTree writes each of paths (its own path as its bytes) under out
// and returns the record a build would have left of them.
func recordedTree(t *testing.T, out string, paths ...string) map[string]store.CachedOutput {
	t.Helper()
	prev := map[string]store.CachedOutput{}
	for _, p := range paths {
		name := filepath.Join(out, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
		id, ok := lstatID(name)
		if !ok {
			t.Fatalf("no identity for %s", p)
		}
		prev[p] = store.CachedOutput{Size: int64(len(p)), Stat: id}
	}
	return prev
}
