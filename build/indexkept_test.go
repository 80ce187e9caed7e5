package build_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/skillcat/skillcat/build"
	"github.com/skillcat/skillcat/internal/treetest"
	"github.com/skillcat/skillcat/synth"
)

// The index is kept in the rebuild cache, and a rebuild changes only the
// rows of the sources that changed. These tests make the changes that
// could leave a kept row stale or a false duplicate behind, and check
// that every build gives exactly a cold build's site, or a cold build's
// violations.

// idRE finds the id member of a source, JSON or YAML.
var idRE = regexp.MustCompile(`(?m)^(\s*"id": "|id: )([^"\n]+)`)

// sourceID returns the id of the source at name.
func sourceID(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	m := idRE.FindSubmatch(data)
	if m == nil {
		t.Fatalf("%s: no id", name)
	}
	return string(m[2])
}

// setID gives the source at name the id id.
func setID(t *testing.T, name, id string) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, idRE.ReplaceAll(data, []byte("${1}"+id)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// buildKept builds with the cache and fails the test on error or on a
// notice (a cache dropped: the kept index was not what was tested).
func (f *cacheFixture) buildKept(t *testing.T) *build.Result {
	t.Helper()
	res := f.build(t)
	if res.Notice != "" {
		t.Fatalf("notice: %s", res.Notice)
	}
	return res
}

// buildErr builds with the cache and returns the error.
func (f *cacheFixture) buildErr(t *testing.T) (*build.Result, error) {
	t.Helper()
	f.keepHistory(t)
	return build.Build(context.Background(), f.config(f.out, f.cache))
}

// checkColdViolations fails unless err is an *InvalidError with exactly
// the violations a cold validation of the content reports.
func (f *cacheFixture) checkColdViolations(t *testing.T, err error) {
	t.Helper()
	var got *build.InvalidError
	if !errors.As(err, &got) {
		t.Fatalf("got %v, want an InvalidError", err)
	}
	_, cerr := build.Validate(context.Background(), f.config(filepath.Join(t.TempDir(), "none"), ""))
	var want *build.InvalidError
	if !errors.As(cerr, &want) {
		t.Fatalf("cold validation: got %v, want an InvalidError", cerr)
	}
	if !reflect.DeepEqual(got.Violations, want.Violations) {
		t.Fatalf("violations:\ngot  %v\nwant %v (a cold validation's)", got.Violations, want.Violations)
	}
}

func TestKeptIndex(t *testing.T) {
	defer build.SetRacyWindow(0)()
	src := func(f *cacheFixture, i int) string {
		return filepath.Join(f.content, filepath.FromSlash(synth.Name(i)))
	}
	t.Run("RemovedAddedRenamed", func(t *testing.T) {
		t.Parallel()
		f := newCacheFixture(t, 8)
		first := f.buildKept(t)
		if err := os.Remove(src(f, 2)); err != nil {
			t.Fatal(err)
		}
		res := f.buildKept(t)
		if res.Published != first.Published-1 {
			t.Errorf("removed: published %d, want %d", res.Published, first.Published-1)
		}
		f.checkCold(t)
		// The same source under another path: its old row must go first,
		// or its id would be a duplicate of itself.
		if err := os.Rename(src(f, 4), filepath.Join(f.content, "g000", "moved.json")); err != nil {
			t.Fatal(err)
		}
		_, data := synth.Source(9, 77)
		data = idRE.ReplaceAll(data, []byte("${1}added.skill"))
		if err := os.WriteFile(filepath.Join(f.content, "g001", "added.md"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if res := f.buildKept(t); res.Published != first.Published {
			t.Errorf("renamed and added: published %d, want %d", res.Published, first.Published)
		}
		f.checkCold(t)
	})
	t.Run("IDsExchanged", func(t *testing.T) {
		// Source 0 takes source 3's id and source 3 takes 0's: neither is a
		// duplicate once both are read, whichever row the index meets first.
		t.Parallel()
		f := newCacheFixture(t, 6)
		f.buildKept(t)
		a, b := sourceID(t, src(f, 0)), sourceID(t, src(f, 3))
		setID(t, src(f, 0), b)
		setID(t, src(f, 3), a)
		f.buildKept(t)
		f.checkCold(t)
	})
	t.Run("Duplicate", func(t *testing.T) {
		// A changed source claims an unchanged one's id, later and then
		// earlier in source order than its holder: the violations are a
		// cold build's, and the output and the kept index are as they were.
		t.Parallel()
		f := newCacheFixture(t, 8)
		f.buildKept(t)
		for _, pair := range [][2]int{{5, 2}, {2, 5}} {
			name := src(f, pair[0])
			old, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			setID(t, name, sourceID(t, src(f, pair[1])))
			before := snapshot(t, f.out)
			_, err = f.buildErr(t)
			f.checkColdViolations(t, err)
			if d := treetest.Diff(snapshot(t, f.out), before); d != "" {
				t.Fatalf("a failed build changed the output:\n%s", d)
			}
			if err := os.WriteFile(name, old, 0o644); err != nil {
				t.Fatal(err)
			}
			f.buildKept(t)
			f.checkCold(t)
		}
	})
	t.Run("AddedDuplicate", func(t *testing.T) {
		t.Parallel()
		f := newCacheFixture(t, 6)
		f.buildKept(t)
		_, data := synth.Source(3, 1)
		data = idRE.ReplaceAll(data, []byte("${1}"+sourceID(t, src(f, 1))))
		if err := os.WriteFile(filepath.Join(f.content, "g000", "a.md"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := f.buildErr(t)
		f.checkColdViolations(t, err)
	})
	t.Run("FailedBuildLeavesIndex", func(t *testing.T) {
		// Rows changed by a build that then fails (two skills whose files
		// would need one path, found after the rows are in) are not kept.
		t.Parallel()
		f := newCacheFixture(t, 6)
		f.buildKept(t)
		a := sourceID(t, src(f, 0))
		old, _ := os.ReadFile(src(f, 2))
		setID(t, src(f, 2), a+".json")
		_, err := f.buildErr(t)
		f.checkColdViolations(t, err)
		if err := os.WriteFile(src(f, 2), old, 0o644); err != nil {
			t.Fatal(err)
		}
		f.buildKept(t)
		f.checkCold(t)
	})
	t.Run("LayoutAtUnchanged", func(t *testing.T) {
		// The skill whose folder would be another's file is the unchanged
		// one: its violation, name and id position come from the kept
		// index, and are a cold build's.
		t.Parallel()
		f := newCacheFixture(t, 6)
		setID(t, src(f, 2), "held.json")
		f.buildKept(t)
		setID(t, src(f, 4), "held")
		_, err := f.buildErr(t)
		f.checkColdViolations(t, err)
		var got *build.InvalidError
		if errors.As(err, &got) && (len(got.Violations) != 1 || !strings.HasSuffix(got.Violations[0].File, filepath.FromSlash(synth.Name(2))) || got.Violations[0].Line == 0) {
			t.Fatalf("got %v, want one violation at the id of %s", got.Violations, synth.Name(2))
		}
	})
	t.Run("LayoutAtAdded", func(t *testing.T) {
		// The same, the violation at a source added since the last build:
		// its id's position is the one this build's parse put in the
		// kept sources.
		t.Parallel()
		f := newCacheFixture(t, 6)
		f.buildKept(t)
		_, data := synth.Source(9, 5)
		data = idRE.ReplaceAll(data, []byte("${1}"+sourceID(t, src(f, 3))+".json"))
		if err := os.WriteFile(filepath.Join(f.content, "g000", "added.md"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := f.buildErr(t)
		f.checkColdViolations(t, err)
		var got *build.InvalidError
		if errors.As(err, &got) && (len(got.Violations) != 1 || !strings.HasSuffix(got.Violations[0].File, filepath.FromSlash("g000/added.md")) || got.Violations[0].Line == 0) {
			t.Fatalf("got %v, want one violation at the id of g000/added.md", got.Violations)
		}
	})
	t.Run("TurnedPrivate", func(t *testing.T) {
		t.Parallel()
		f := newCacheFixture(t, 6)
		f.buildKept(t)
		name := src(f, 0)
		id := sourceID(t, name)
		data, _ := os.ReadFile(name)
		data = regexp.MustCompile(`"access": "[a-z]+"`).ReplaceAll(data, []byte(`"access": "private"`))
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		f.buildKept(t)
		f.checkCold(t)
		idx, _ := os.ReadFile(filepath.Join(f.out, ".well-known", "skills.json"))
		if strings.Contains(string(idx), `"`+id+`"`) {
			t.Fatalf("%s, made private, is still listed", id)
		}
		if _, err := os.Stat(filepath.Join(f.out, "skills", id+".json")); err == nil {
			t.Fatalf("%s, made private, is still published", id)
		}
	})
}

// TestKeptIndexTampered changes rows of the kept index with SQLite, the
// way a user with the sqlite3 shell would: valid rows, a private skill
// made public among them. The write breaks the seal, so the next build
// that uses the rows verifies every one, finds the checksums wrong, and
// builds cold, even when a build that found nothing changed (and read no
// row) came between.
func TestKeptIndexTampered(t *testing.T) {
	for _, tc := range []struct{ name, sql string }{
		{"PrivateMadePublicThenUpToDate", `UPDATE skills SET access = 'public' WHERE access = 'private'`},
		{"Name", `UPDATE skills SET name = 'Forged' WHERE rowid = (SELECT min(rowid) FROM skills)`},
		{"PrivateMadePublic", `UPDATE skills SET access = 'public' WHERE access = 'private'`},
		{"RowGone", `DELETE FROM skills WHERE rowid = (SELECT max(rowid) FROM skills)`},
		{"Tag", `UPDATE skill_tags SET tag = 'forged' WHERE position = 0 AND skill_id = (SELECT min(skill_id) FROM skill_tags)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newCacheFixture(t, 8)
			f.build(t)
			upToDate := strings.HasSuffix(tc.name, "ThenUpToDate")
			if upToDate {
				f.build(t) // records the output's identities
			}
			db, err := sql.Open("sqlite", f.cache)
			if err != nil {
				t.Fatal(err)
			}
			res, err := db.Exec(tc.sql)
			if err != nil {
				t.Fatal(err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				t.Fatal("nothing tampered with")
			}
			db.Close()
			if upToDate {
				if res := f.build(t); !res.UpToDate {
					t.Fatal("the build after the tampering was not up to date")
				}
			}
			// One other source changed, so the build is not up to date and
			// uses the rows it kept.
			sameSizeEdit(t, filepath.Join(f.content, filepath.FromSlash(synth.Name(3))), false)
			if res := f.build(t); !strings.Contains(res.Notice, "damaged") {
				t.Errorf("notice: got %q, want one saying the cache was damaged", res.Notice)
			}
			f.checkCold(t)
		})
	}
}

// TestKeptIndexUnsealed: a cache whose seal is gone or stale (a build
// killed between its commit and its seal, a cache restored from an
// artifact) is verified whole and then used: no notice, a cold build's
// output.
func TestKeptIndexUnsealed(t *testing.T) {
	for _, tc := range []struct {
		name   string
		unseal func(t *testing.T, f *cacheFixture, seal []byte)
	}{
		{"SealRemoved", func(t *testing.T, f *cacheFixture, seal []byte) { os.Remove(f.cache + "-seal") }},
		{"SealOfTheBuildBefore", func(t *testing.T, f *cacheFixture, seal []byte) {
			os.WriteFile(f.cache+"-seal", seal, 0o600) // as a kill before the seal leaves it
		}},
		{"Restored", func(t *testing.T, f *cacheFixture, seal []byte) {
			saved := f.cache + ".saved"
			cpP(t, f.cache, saved)
			os.Remove(f.cache)
			cpP(t, saved, f.cache) // an artifact restored: same bytes, new file
			os.Remove(saved)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newCacheFixture(t, 6)
			f.build(t)
			seal, err := os.ReadFile(f.cache + "-seal")
			if err != nil {
				t.Fatalf("no seal after a build: %v", err)
			}
			sameSizeEdit(t, filepath.Join(f.content, filepath.FromSlash(synth.Name(0))), false)
			f.build(t)
			tc.unseal(t, f, seal)
			sameSizeEdit(t, filepath.Join(f.content, filepath.FromSlash(synth.Name(1))), false)
			if res := f.build(t); res.Notice != "" || res.Parsed != 1 {
				t.Errorf("got notice %q, %d parsed; want none, 1 parsed", res.Notice, res.Parsed)
			}
			f.checkCold(t)
		})
	}
}

// TestKeptIndexUpToDateWritesNothing: a build that finds nothing changed
// leaves the cache and its seal as they were, and the next rebuild still
// trusts them (it parses only the source that changed).
func TestKeptIndexUpToDateWritesNothing(t *testing.T) {
	t.Parallel()
	f := newCacheFixture(t, 6)
	f.build(t)
	// The first check after a build notes the output's folders; a second
	// after the build, none is within the racy window, and the next check
	// has none to note again.
	time.Sleep(1100 * time.Millisecond)
	f.build(t)
	stamp := func() string {
		var s string
		for _, p := range []string{f.cache, f.cache + "-seal"} {
			info, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(p)
			s += fmt.Sprintf("%s %d %v %x\n", p, info.Size(), info.ModTime().UnixNano(), sha256.Sum256(data))
		}
		return s
	}
	before := stamp()
	if res := f.build(t); !res.UpToDate {
		t.Fatal("not up to date")
	}
	if after := stamp(); after != before {
		t.Errorf("an up-to-date build wrote the cache:\nbefore %s\nafter  %s", before, after)
	}
	sameSizeEdit(t, filepath.Join(f.content, filepath.FromSlash(synth.Name(2))), false)
	if res := f.build(t); res.Notice != "" || res.Parsed != 1 {
		t.Errorf("got notice %q, %d parsed; want none, 1 parsed", res.Notice, res.Parsed)
	}
	f.checkCold(t)
}
