package build_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/skillcat/skillcat/build"
	"github.com/skillcat/skillcat/internal/treetest"
	"github.com/skillcat/skillcat/synth"
	_ "modernc.org/sqlite"
)

// The rebuild cache can only save work: these tests fool it the ways a
// real user does (tools that keep times, a build without the cache in
// between, an output restored from an artifact, a torn or foreign cache
// file) and check that every build still gives exactly a cold build's
// site.

// cacheFixture is a content folder old enough that its files' identities
// are trusted (see racyWindow), an output folder and a cache file.
type cacheFixture struct {
	content, out, cache string
	when                time.Time
	previous            string // the change feed the last build continued
}

func newCacheFixture(t *testing.T, n int) *cacheFixture {
	t.Helper()
	dir := t.TempDir()
	f := &cacheFixture{content: filepath.Join(dir, "content"), out: filepath.Join(dir, "public"),
		cache: filepath.Join(dir, ".cache", "public.sqlite"), when: time.Unix(1700000000, 0).UTC(), previous: filepath.Join(dir, "previous")}
	if err := synth.Write(f.content, n, 5); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // past the racy window
	return f
}

func (f *cacheFixture) config(out, cache string) build.Config {
	return build.Config{Content: os.DirFS(f.content), ContentLabel: f.content, ContentPath: f.content, Out: out, Cache: cache, Workers: 2, Time: f.when}
}

// build builds with the cache and fails the test on error.
func (f *cacheFixture) build(t *testing.T) *build.Result {
	t.Helper()
	f.keepHistory(t)
	res, err := build.Build(context.Background(), f.config(f.out, f.cache))
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	return res
}

// checkCold fails unless the output is what a cold build of the content
// makes now.
func (f *cacheFixture) checkCold(t *testing.T) {
	t.Helper()
	cold := filepath.Join(t.TempDir(), "cold")
	cfg := f.config(cold, "")
	cfg.Previous = os.DirFS(f.previous)
	if _, err := build.Build(context.Background(), cfg); err != nil {
		t.Fatalf("cold build: %v", err)
	}
	got, want := snapshot(t, f.out), snapshot(t, cold)
	if d := treetest.Diff(got, want); d != "" {
		t.Fatalf("the output differs from a cold build's:\n%s", d)
	}
}

// keepHistory copies the output's change feed, which the next build
// continues, for the cold build to continue too (as build --previous
// does).
func (f *cacheFixture) keepHistory(t *testing.T) {
	t.Helper()
	os.RemoveAll(f.previous)
	os.MkdirAll(f.previous, 0o755)
	if _, err := os.Stat(filepath.Join(f.out, "changes")); err != nil {
		return
	}
	if err := os.CopyFS(filepath.Join(f.previous, "changes"), os.DirFS(filepath.Join(f.out, "changes"))); err != nil {
		t.Fatal(err)
	}
}

// sameSizeEdit rewrites a source in place with an edit of the same size
// and gives it back its modification time, as an editor followed by
// touch -d, or cp -p, leaves it. private switches the skill to private.
func sameSizeEdit(t *testing.T, name string, private bool) {
	t.Helper()
	info, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	edited := data
	if private {
		for _, r := range [][2]string{{`"access": "public"`, `"access":"private"`}, {`"access": "restricted"`, `"access":"private"    `},
			{"access: restricted", "access: private   "}} {
			edited = bytes.Replace(edited, []byte(r[0]), []byte(r[1]), 1)
		}
	} else {
		edited = regexp.MustCompile(`("name": "|\nname: )([A-Za-z])`).ReplaceAllFunc(data, func(m []byte) []byte {
			m = bytes.Clone(m)
			m[len(m)-1] ^= 0x20 // swap the case of the name's first letter
			return m
		})
	}
	if bytes.Equal(edited, data) || len(edited) != len(data) {
		t.Fatalf("%s: no same-size edit applies", name)
	}
	f, err := os.OpenFile(name, os.O_WRONLY, 0) // in place, as cp -p writes: same inode
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(edited, 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Chtimes(name, info.ModTime(), info.ModTime()); err != nil { // touch -d
		t.Fatal(err)
	}
}

// cpP copies src over dst with cp -p (its bytes, mode and times) when the
// system has cp, as a provider restoring a file from a backup does.
func cpP(t *testing.T, src, dst string) {
	t.Helper()
	if _, err := exec.LookPath("cp"); err != nil {
		t.Skip("cp is not installed")
	}
	if out, err := exec.Command("cp", "-p", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp -p: %v: %s", err, out)
	}
}

// copyTree copies a folder with its files' times, as restoring a CI
// artifact does.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if _, err := exec.LookPath("cp"); err != nil {
		t.Skip("cp is not installed")
	}
	if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp -a: %v: %s", err, out)
	}
}

func TestCacheIsNotFooled(t *testing.T) {
	first := filepath.Join("g000", synth.Name(0)[len("g000/"):])
	t.Run("TouchD", func(t *testing.T) {
		t.Parallel()
		f := newCacheFixture(t, 6)
		f.build(t)
		sameSizeEdit(t, filepath.Join(f.content, first), false)
		f.build(t)
		f.checkCold(t)
	})
	t.Run("PrivateWithTouchD", func(t *testing.T) {
		t.Parallel()
		f := newCacheFixture(t, 6)
		f.build(t)
		name := filepath.Join(f.content, first)
		sameSizeEdit(t, name, true)
		res := f.build(t)
		f.checkCold(t)
		idx, _ := os.ReadFile(filepath.Join(f.out, ".well-known", "skills.json"))
		data, _ := os.ReadFile(name)
		id := regexp.MustCompile(`"id": "([^"]+)"`).FindSubmatch(data)
		if id == nil || bytes.Contains(idx, []byte(`"`+string(id[1])+`"`)) {
			t.Fatalf("the skill made private is still listed (%d published)", res.Published)
		}
	})
	t.Run("CpP", func(t *testing.T) {
		t.Parallel()
		f := newCacheFixture(t, 6)
		name := filepath.Join(f.content, first)
		backup := filepath.Join(t.TempDir(), "backup.json")
		cpP(t, name, backup)
		f.build(t)
		sameSizeEdit(t, name, false)
		f.build(t)
		cpP(t, backup, name) // the old bytes back, with the old time
		f.build(t)
		f.checkCold(t)
	})
	t.Run("NoCacheBuildBetween", func(t *testing.T) {
		t.Parallel()
		f := newCacheFixture(t, 6)
		name := filepath.Join(f.content, first)
		backup := filepath.Join(t.TempDir(), "backup.json")
		cpP(t, name, backup)
		f.build(t)
		sameSizeEdit(t, name, false)
		f.keepHistory(t)
		if _, err := build.Build(context.Background(), f.config(f.out, "")); err != nil {
			t.Fatal(err)
		}
		cpP(t, backup, name)
		f.build(t) // the cache describes this content, but not the output
		f.checkCold(t)
	})
	t.Run("RestoredOutput", func(t *testing.T) {
		t.Parallel()
		f := newCacheFixture(t, 6)
		f.build(t)
		saved := filepath.Join(t.TempDir(), "artifact")
		copyTree(t, f.out, saved)
		sameSizeEdit(t, filepath.Join(f.content, first), false)
		f.build(t)
		os.RemoveAll(f.out)
		copyTree(t, saved, f.out) // yesterday's site, times and all
		res := f.build(t)
		if res.UpToDate {
			t.Error("a restored older output was taken as up to date")
		}
		f.checkCold(t)
	})
	t.Run("UpToDate", func(t *testing.T) {
		t.Parallel()
		f := newCacheFixture(t, 6)
		built := f.build(t)
		f.build(t) // records the identities of the output's files
		res := f.build(t)
		if !res.UpToDate || res.Files != 0 {
			t.Errorf("nothing changed: got up to date %v, %d files written; want up to date, none", res.UpToDate, res.Files)
		}
		if res.Output != built.Output || res.Output.Files == 0 {
			t.Errorf("nothing changed: the site measures %+v, want %+v as built", res.Output, built.Output)
		}
		f.checkCold(t)
	})
}

// TestUpToDateSeesTheOutput checks that a change to the output alone,
// anywhere in its tree, makes a build that would otherwise find nothing
// changed bring the output back to a cold build's.
func TestUpToDateSeesTheOutput(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, out string)
	}{
		{"FileAddedDeep", func(t *testing.T, out string) {
			writeFile(t, filepath.Join(out, "skills", "extra", "deep", "note.txt"), "hand-made")
		}},
		{"FileAddedBesideAPage", func(t *testing.T, out string) {
			pages, err := filepath.Glob(filepath.Join(out, "skills", "*", "index.html"))
			if err != nil || len(pages) == 0 {
				t.Fatalf("no skill page: %v", err)
			}
			writeFile(t, filepath.Join(filepath.Dir(pages[0]), "note.txt"), "hand-made")
		}},
		{"FileAddedAtTheTop", func(t *testing.T, out string) { writeFile(t, filepath.Join(out, "CNAME"), "example.com") }},
		{"SymlinkAdded", func(t *testing.T, out string) {
			if err := os.Symlink("index.html", filepath.Join(out, "link.html")); err != nil {
				t.Fatal(err)
			}
		}},
		{"EditedInPlace", func(t *testing.T, out string) {
			name := filepath.Join(out, ".well-known", "skills.json")
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			data[len(data)-2] ^= 1
			if err := os.WriteFile(name, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"Removed", func(t *testing.T, out string) {
			if err := os.Remove(filepath.Join(out, "index.html")); err != nil {
				t.Fatal(err)
			}
		}},
		{"EmptyFolderAdded", func(t *testing.T, out string) {
			if err := os.Mkdir(filepath.Join(out, "skills", "empty"), 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"FolderModeChanged", func(t *testing.T, out string) {
			if err := os.Chmod(filepath.Join(out, "skills"), 0o700); err != nil {
				t.Fatal(err)
			}
		}},
		{"RootModeChanged", func(t *testing.T, out string) {
			if err := os.Chmod(out, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
		{"FileModeChanged", func(t *testing.T, out string) {
			if err := os.Chmod(filepath.Join(out, "index.html"), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"FifoAdded", func(t *testing.T, out string) {
			if err := mkfifo(filepath.Join(out, "skills", "fifo")); err != nil {
				t.Skipf("cannot make a FIFO: %v", err)
			}
		}},
		{"HardLinkAddedInside", func(t *testing.T, out string) {
			if err := os.Link(filepath.Join(out, "index.html"), filepath.Join(out, "copy.html")); err != nil {
				t.Fatal(err)
			}
		}},
		{"HardLinkAddedOutside", func(t *testing.T, out string) {
			if err := os.Link(filepath.Join(out, "index.html"), filepath.Join(t.TempDir(), "copy.html")); err != nil {
				t.Fatal(err)
			}
		}},
		{"FileReplacedByFolder", func(t *testing.T, out string) {
			name := filepath.Join(out, "index.html")
			if err := os.Remove(name); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(name, "x"), "x")
		}},
		{"FolderReplacedByLink", func(t *testing.T, out string) {
			dir := filepath.Join(out, "schemas")
			moved := filepath.Join(t.TempDir(), "schemas")
			if err := os.Rename(dir, moved); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(moved, dir); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		// The first check after a build notes the output's folders. Noted
		// within the racy window of the build, they are all read again;
		// noted after it (Settled), a folder is read only when it is no
		// longer the one noted.
		for _, settled := range []bool{false, true} {
			name := tc.name
			if settled {
				name += "/Settled"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				f := newCacheFixture(t, 6)
				f.build(t)
				if settled {
					time.Sleep(1100 * time.Millisecond)
				}
				f.build(t) // notes the output's folders
				if res := f.build(t); !res.UpToDate {
					t.Fatal("nothing changed, yet the build was not up to date")
				}
				tc.change(t, f.out)
				if res := f.build(t); res.UpToDate {
					t.Fatalf("%s: the build found the output up to date", tc.name)
				}
				f.checkCold(t)
			})
		}
	}
}

// writeFile writes data to name, making its folders.
func writeFile(t *testing.T, name, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCacheDamaged(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, data []byte) []byte
	}{
		{"Truncated", func(t *testing.T, data []byte) []byte { return data[:len(data)/2] }},
		{"FlippedBytes", func(t *testing.T, data []byte) []byte {
			for i := 4096; i < len(data); i += 509 {
				data[i] ^= 0x5a
			}
			return data
		}},
		{"TamperedDescriptor", func(t *testing.T, data []byte) []byte {
			// A change that keeps the JSON valid: only the checksums can
			// tell.
			key := []byte(`"description": "`)
			if !bytes.Contains(data, key) {
				t.Fatal("no descriptor found in the cache file")
			}
			for i := 0; ; i++ {
				j := bytes.Index(data[i:], key)
				if j < 0 {
					return data
				}
				i += j + len(key) + 4
				data[i] ^= 0x20
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newCacheFixture(t, 8)
			f.build(t)
			data, err := os.ReadFile(f.cache)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f.cache, tc.damage(t, data), 0o644); err != nil {
				t.Fatal(err)
			}
			os.RemoveAll(f.out) // the build must render from what the cache gave
			res := f.build(t)
			if !strings.Contains(res.Notice, "damaged") {
				t.Errorf("notice: got %q, want one saying the cache was damaged", res.Notice)
			}
			f.checkCold(t)
			if _, err := os.Stat(f.cache + "-seal"); err != nil {
				t.Errorf("the cache made again is not sealed: %v", err)
			}
			if res := f.build(t); res.Notice != "" {
				t.Errorf("the cache made again: got notice %q, want none", res.Notice)
			}
			f.checkCold(t)
		})
	}
}

// TestCacheTamperedOutputRecords changes the record of the output's files
// in a way SQLite cannot see (one byte of each bucket's first file hash):
// a record's hash is published as a file's digest (the Agent Skills index
// gives each SKILL.md's), so the build must find the records damaged and
// run cold, not publish the edited digest.
func TestCacheTamperedOutputRecords(t *testing.T) {
	t.Parallel()
	f := newCacheFixture(t, 8)
	f.build(t)
	f.build(t) // records the identities of the output's files
	db, err := sql.Open("sqlite", f.cache)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(`SELECT bucket, data FROM outputs`)
	if err != nil {
		t.Fatal(err)
	}
	edited := map[int64][]byte{}
	for rows.Next() {
		var bucket int64
		var data []byte
		if err := rows.Scan(&bucket, &data); err != nil {
			t.Fatal(err)
		}
		n, k := binary.Uvarint(data)
		data[k+int(n)+sha256.Size] ^= 1 // the first record's hash: path length, path, key, hash
		edited[bucket] = data
	}
	if err := rows.Close(); err != nil || len(edited) == 0 {
		t.Fatalf("read the records: %d buckets, %v", len(edited), err)
	}
	for bucket, data := range edited {
		if _, err := db.Exec(`UPDATE outputs SET data = ? WHERE bucket = ?`, data, bucket); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	sameSizeEdit(t, filepath.Join(f.content, filepath.FromSlash(synth.Name(0))), false) // not up to date
	if res := f.build(t); !strings.Contains(res.Notice, "damaged") {
		t.Errorf("notice: got %q, want one saying the cache was damaged", res.Notice)
	}
	f.checkCold(t)
}

// TestCacheTamperedSearchTokens changes the search tokens the cache keeps
// of every skill in a way SQLite cannot see (a valid row, a token more):
// their checksums must catch it, and the build run cold.
func TestCacheTamperedSearchTokens(t *testing.T) {
	t.Parallel()
	f := newCacheFixture(t, 8)
	f.build(t)
	keepSearchTokens(t, f)
	db, err := sql.Open("sqlite", f.cache)
	if err != nil {
		t.Fatal(err)
	}
	res, err := db.Exec(`UPDATE parts SET data = '3forged' || char(10) || data WHERE kind = 'search-tokens'`)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		t.Fatal("the cache holds no search tokens")
	}
	db.Close()
	os.RemoveAll(f.out) // not up to date: the search index is made again
	if res := f.build(t); !strings.Contains(res.Notice, "damaged") {
		t.Errorf("notice: got %q, want one saying the cache was damaged", res.Notice)
	}
	f.checkCold(t)
}

// keepSearchTokens builds f once more without its output, so that the
// cache keeps every listed skill's search tokens: a first build, which
// makes each skill's files at its parse, keeps none (the next build reads
// them back from its search index), and a build with no previous search
// index keeps all it makes.
func keepSearchTokens(t *testing.T, f *cacheFixture) {
	t.Helper()
	os.RemoveAll(f.out)
	f.build(t)
}

func TestCacheForeign(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(t *testing.T, path string)
	}{
		{"SQLite", func(t *testing.T, path string) {
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec(`CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES ('owner', 'alice');
				CREATE TABLE sources (path TEXT)`); err != nil {
				t.Fatal(err)
			}
		}},
		{"Text", func(t *testing.T, path string) {
			os.WriteFile(path, []byte("shopping list: milk, eggs\n"), 0o644)
		}},
		{"Folder", func(t *testing.T, path string) { os.Mkdir(path, 0o755) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			content := filepath.Join(dir, "content")
			if err := synth.Write(content, 2, 1); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "app.db")
			tc.make(t, path)
			before := fileSum(path)
			out := filepath.Join(dir, "public")
			_, err := build.Build(context.Background(), build.Config{Content: os.DirFS(content), ContentLabel: content, ContentPath: content, Out: out, Cache: path})
			if !errors.Is(err, build.ErrConfig) || !strings.Contains(err.Error(), "not a skillcat rebuild cache") {
				t.Fatalf("got %v, want a configuration error saying it is not a cache", err)
			}
			if fileSum(path) != before {
				t.Error("the foreign file was changed")
			}
			for _, p := range []string{path + "-wal", path + "-shm", path + "-journal", out} {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("%s was created", p)
				}
			}
		})
	}
}

func fileSum(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "unreadable: " + err.Error()
	}
	sum := sha256.Sum256(data)
	return string(sum[:])
}

// TestCacheNotBlamedForTemplates runs a cached build whose --templates
// override fails to execute, or to parse: the error is the template's, no
// notice blames the rebuild cache, and the cache stays, so the build after
// the fix is incremental.
func TestCacheNotBlamedForTemplates(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct{ template, want string }{
		"Execute": {`{{define "skill.html"}}{{.NoSuchField}}{{end}}`, "NoSuchField"},
		"Parse":   {`{{define "skill.html"}}{{.Name}{{end}}`, `parse template "skill.html"`},
	} {
		t.Run(name, func(t *testing.T) {
			f := newCacheFixture(t, 6)
			f.build(t)
			cfg := f.config(f.out, f.cache)
			cfg.Templates = fstest.MapFS{"skill.html": {Data: []byte(tc.template)}}
			res, err := build.Build(context.Background(), cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("build with a failing template: got %v, want the template's error", err)
			}
			if strings.Contains(err.Error(), "cache") || res.Notice != "" {
				t.Errorf("got error %q and notice %q, want neither to blame the cache", err, res.Notice)
			}
			if _, err := os.Stat(f.cache); err != nil {
				t.Errorf("the rebuild cache is gone: %v", err)
			}
			if res := f.build(t); res.Notice != "" || res.Parsed != 0 {
				t.Errorf("the build after the fix: notice %q, %d sources parsed; want no notice, none parsed", res.Notice, res.Parsed)
			}
			f.checkCold(t)
		})
	}
}

// TestFreshCheckout rebuilds after the content was checked out afresh, as
// in CI: every source has a new identity, all but one the same bytes. The
// unchanged ones take their new identity without being parsed (their rows
// kept, not read: store.CacheTx.SetStat), the edited one is parsed, the
// site is a cold build's, and the next build finds nothing changed.
func TestFreshCheckout(t *testing.T) {
	f := newCacheFixture(t, 30)
	f.build(t)
	old := f.content + ".old"
	if err := os.Rename(f.content, old); err != nil {
		t.Fatal(err)
	}
	copyTree(t, old, f.content)
	sameSizeEdit(t, filepath.Join(f.content, firstSource(t, f.content)), false)
	time.Sleep(1100 * time.Millisecond) // past the racy window
	if res := f.build(t); res.Parsed != 1 || res.UpToDate {
		t.Fatalf("after a fresh checkout with one edit: %d parsed (want 1), up to date %v", res.Parsed, res.UpToDate)
	}
	f.checkCold(t)
	if res := f.build(t); !res.UpToDate {
		t.Fatal("the build after the checkout's: not up to date")
	}
}

// firstSource is the first .json source under content, by walk order.
func firstSource(t *testing.T, content string) string {
	t.Helper()
	var found string
	filepath.WalkDir(content, func(p string, d os.DirEntry, err error) error {
		if err == nil && found == "" && !d.IsDir() && strings.HasSuffix(p, ".json") {
			found, _ = filepath.Rel(content, p)
		}
		return nil
	})
	if found == "" {
		t.Fatal("no .json source")
	}
	return found
}

// TestRestoredOutput rebuilds after the output was restored from a copy
// (a CI artifact: new inodes, the same bytes, modes and times): the files
// whose bytes are the recorded ones are taken, not made again, and the
// site is a cold build's.
func TestRestoredOutput(t *testing.T) {
	f := newCacheFixture(t, 30)
	first := f.build(t)
	old := f.out + ".old"
	if err := os.Rename(f.out, old); err != nil {
		t.Fatal(err)
	}
	copyTree(t, old, f.out)
	os.RemoveAll(old)
	sameSizeEdit(t, filepath.Join(f.content, firstSource(t, f.content)), false)
	time.Sleep(1100 * time.Millisecond)
	res := f.build(t)
	if res.Files*4 > first.Files {
		t.Errorf("after the output's restore and one edit: %d of %d files written", res.Files, first.Files)
	}
	f.checkCold(t)
}

// TestSymlinkedOutput builds into an output that is a link to a folder
// elsewhere (public -> /srv/site, common on servers): the link stays a
// link, the folder it points to is exchanged whole, a build with nothing
// changed finds the site up to date, and a rebuild gives a cold build's.
func TestSymlinkedOutput(t *testing.T) {
	f := newCacheFixture(t, 20)
	site := filepath.Join(t.TempDir(), "srv", "site")
	if err := os.MkdirAll(site, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(site, f.out); err != nil {
		t.Skipf("cannot make symbolic links: %v", err)
	}
	f.build(t)
	time.Sleep(1100 * time.Millisecond)
	if res := f.build(t); !res.UpToDate {
		t.Fatal("nothing changed, but the symlinked output is not up to date")
	}
	sameSizeEdit(t, filepath.Join(f.content, firstSource(t, f.content)), false)
	time.Sleep(1100 * time.Millisecond)
	if res := f.build(t); res.UpToDate {
		t.Fatal("a source changed, but the build found the output up to date")
	}
	if info, err := os.Lstat(f.out); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the output link was replaced: %v, %v", info, err)
	}
	f.out = site // the tree the link points to
	f.checkCold(t)
}
