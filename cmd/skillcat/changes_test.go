package main

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/internal/treetest"
)

// sinceJSON runs discover --since N --format json against url.
func sinceJSON(t *testing.T, url string, args ...string) changesOutput {
	t.Helper()
	code, stdout, stderr := runCmd(t, append([]string{"discover", url, "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("discover %v: exit %d: %s", args, code, stderr)
	}
	var out changesOutput
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("discover --since output: %v\n%s", err, stdout)
	}
	return out
}

// TestFollowChanges builds the sample catalog, serves it on 127.0.0.1, and
// follows its change feed with discover --since across several rebuilds:
// each time it lists exactly what changed, with the descriptors verified;
// and once a listed skill is made private, the feed is a new epoch that
// names it nowhere.
func TestFollowChanges(t *testing.T) {
	dir := t.TempDir()
	content := filepath.Join(dir, "content")
	copyContent(t, sampleContent, content)
	out := filepath.Join(dir, "public")
	rebuild := func() {
		t.Helper()
		if code, _, stderr := runSkillcat(t, nil, "build", "--content", content, "--out", out, "--quiet"); code != 0 {
			t.Fatalf("build: exit %d: %s", code, stderr)
		}
	}
	rebuild()
	srv := httptest.NewServer(staticHost(out))
	defer srv.Close()

	first := sinceJSON(t, srv.URL, "--since", "0")
	index := readIndex(t, filepath.Join(out, ".well-known", "skills.json"))
	if first.Latest != int64(len(index.Skills)) || len(first.Events) != len(index.Skills) {
		t.Fatalf("from 0: latest %d with %d events; want one upsert per listed skill (%d)", first.Latest, len(first.Events), len(index.Skills))
	}
	for i, e := range first.Events {
		if e.Op != skillcat.OpUpsert || e.ID != index.Skills[i].ID || e.Digest != index.Skills[i].Digest {
			t.Errorf("event %d: %+v, want an upsert of %s", i, e, index.Skills[i].ID)
		}
	}

	// Edit: rename one skill, remove one, add one.
	edit := func(rel string, f func([]byte) []byte) {
		p := filepath.Join(content, filepath.FromSlash(rel))
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(p, f(data), 0o644)
	}
	edit("geocode.json", func(b []byte) []byte {
		return bytes.Replace(b, []byte(`"name": "Address Geocoding"`), []byte(`"name": "Address Geocoding v3"`), 1)
	})
	victim := index.Skills[len(index.Skills)-1]
	os.Remove(filepath.Join(content, filepath.FromSlash(sourceOf(t, content, victim.ID))))
	added, _ := os.ReadFile(filepath.Join(content, "geocode.json"))
	added = regexp.MustCompile(`"id": "[^"]+"`).ReplaceAll(added, []byte(`"id": "geocode.reverse"`))
	os.WriteFile(filepath.Join(content, "reverse.json"), added, 0o644)
	rebuild()

	second := sinceJSON(t, srv.URL, "--since", "16", "--epoch", first.Epoch)
	got := map[string]skillcat.ChangeOp{}
	for _, e := range second.Events {
		got[e.ID] = e.Op
	}
	want := map[string]skillcat.ChangeOp{"geocode.address": skillcat.OpUpsert, "geocode.reverse": skillcat.OpUpsert, victim.ID: skillcat.OpDelete}
	if len(got) != len(want) {
		t.Errorf("events after 16: got %v, want %v", got, want)
	}
	for id, op := range want {
		if got[id] != op {
			t.Errorf("%s: got %q, want %q", id, got[id], op)
		}
	}
	if second.Latest != first.Latest+int64(len(want)) || second.Epoch != first.Epoch {
		t.Errorf("latest %d epoch %s; want %d and the same epoch", second.Latest, second.Epoch, first.Latest+int64(len(want)))
	}

	// Nothing changed: nothing new.
	rebuild()
	latest := strconv.FormatInt(second.Latest, 10)
	if third := sinceJSON(t, srv.URL, "--since", latest); len(third.Events) != 0 || third.Latest != second.Latest {
		t.Errorf("after a rebuild of the same sources: %+v", third)
	}
	if code, stdout, _ := runCmd(t, "discover", srv.URL, "--since", latest); code != 0 || !strings.HasPrefix(stdout, "no changes after "+latest+"\nlatest: "+latest) {
		t.Errorf("text output with nothing new: exit %d\n%s", code, stdout)
	}
	code, stdout, _ := runCmd(t, "discover", srv.URL, "--since", "0")
	if code != 0 || !strings.Contains(stdout, "latest: "+latest) || !strings.Contains(stdout, "--since "+latest+" --epoch "+first.Epoch) {
		t.Errorf("text output: exit %d\n%s", code, stdout)
	}

	t.Run("PreviousURL", func(t *testing.T) {
		fresh := filepath.Join(t.TempDir(), "public")
		if code, _, stderr := runSkillcat(t, nil, "build", "--content", content, "--out", fresh, "--previous", srv.URL, "--quiet"); code != 0 {
			t.Fatalf("build --previous URL: exit %d: %s", code, stderr)
		}
		if d := treetest.Diff(treeSums(t, filepath.Join(fresh, "changes"), false), treeSums(t, filepath.Join(out, "changes"), false)); d != "" {
			t.Errorf("the feed continued from the live site differs from the one built in place:\n%s", d)
		}
	})
	t.Run("PreviousURLWithoutFeed", func(t *testing.T) {
		empty := httptest.NewServer(staticHost(t.TempDir()))
		defer empty.Close()
		fresh := filepath.Join(t.TempDir(), "public")
		code, _, stderr := runSkillcat(t, nil, "build", "--content", content, "--out", fresh, "--previous", empty.URL, "--quiet")
		if code != 0 || !strings.Contains(stderr, "serves no change feed yet") {
			t.Fatalf("build --previous of a site without a feed: exit %d: %s", code, stderr)
		}
		down := httptest.NewServer(nil)
		down.Close()
		code, _, stderr = runSkillcat(t, nil, "build", "--content", content, "--out", filepath.Join(t.TempDir(), "p"), "--previous", down.URL, "--quiet")
		if code != exitInternal {
			t.Errorf("build --previous of a site that does not answer: exit %d, want %d (never a silent new history): %s", code, exitInternal, stderr)
		}
		withUser := strings.Replace(down.URL, "http://", "http://ci:hunter2-token@", 1)
		code, _, stderr = runSkillcat(t, nil, "build", "--content", content, "--out", filepath.Join(t.TempDir(), "q"), "--previous", withUser, "--quiet")
		if code != exitInternal || strings.Contains(stderr, "hunter2") {
			t.Errorf("build --previous with a password in the URL: exit %d, want %d, and the password never printed: %s", code, exitInternal, stderr)
		}
	})
	t.Run("ErrEpoch", func(t *testing.T) {
		code, _, stderr := runCmd(t, "discover", srv.URL, "--since", "3", "--epoch", "0000")
		if code != exitInvalid || !strings.Contains(stderr, "epoch") {
			t.Errorf("another epoch: exit %d, %s", code, stderr)
		}
	})
	t.Run("ErrBackwards", func(t *testing.T) {
		code, _, stderr := runCmd(t, "discover", srv.URL, "--since", "99")
		if code != exitInvalid || !strings.Contains(stderr, "backwards") {
			t.Errorf("since above latest: exit %d, %s", code, stderr)
		}
	})
	t.Run("ErrPageDigest", func(t *testing.T) {
		site := filepath.Join(t.TempDir(), "public")
		copyTree(t, out, site)
		pages, _ := filepath.Glob(filepath.Join(site, "changes", "pages", "*.json"))
		data, _ := os.ReadFile(pages[0])
		os.WriteFile(pages[0], bytes.Replace(data, []byte(`"upsert"`), []byte(`"delete"`), 1), 0o644)
		srv := httptest.NewServer(staticHost(site))
		defer srv.Close()
		code, stdout, stderr := runCmd(t, "discover", srv.URL, "--since", "0")
		if code != exitInvalid || !strings.Contains(stderr, "digest mismatch") || stdout != "" {
			t.Errorf("a changed page: exit %d\n%s\n%s", code, stdout, stderr)
		}
	})
	t.Run("ErrPreviousDamaged", func(t *testing.T) {
		site := filepath.Join(t.TempDir(), "public")
		copyTree(t, out, site)
		os.WriteFile(filepath.Join(site, "changes", "index.json"), []byte("{"), 0o644)
		before := treeSums(t, site, true)
		code, _, stderr := runSkillcat(t, nil, "build", "--content", content, "--out", site, "--quiet")
		if code != exitInvalid || !strings.Contains(stderr, "--reset-changes") {
			t.Errorf("damaged previous feed: exit %d, %s", code, stderr)
		}
		assertKept(t, site, before)
		if code, _, stderr := runSkillcat(t, nil, "build", "--content", content, "--out", site, "--quiet", "--reset-changes"); code != 0 {
			t.Errorf("--reset-changes: exit %d, %s", code, stderr)
		}
	})
	t.Run("MadePrivate", func(t *testing.T) {
		tr := translateID(t, content)
		if tr == "" || !bytes.Contains(readTestFile(t, filepath.Join(out, ".well-known", "skills.json")), []byte(`"`+tr+`"`)) {
			t.Fatalf("translate.md (id %q) is not listed to begin with", tr)
		}
		edit("translate.md", func(b []byte) []byte {
			return bytes.Replace(b, []byte("access: restricted"), []byte("access: private"), 1)
		})
		code, _, stderr := runSkillcat(t, nil, "build", "--content", content, "--out", out)
		if code != 0 || !strings.Contains(stderr, "change feed begins a new epoch") || strings.Contains(stderr, tr) {
			t.Fatalf("build: exit %d; want a note of the new epoch that does not name the skill:\n%s", code, stderr)
		}
		code, _, stderr = runCmd(t, "discover", srv.URL, "--since", latest, "--epoch", first.Epoch)
		if code != exitInvalid || !strings.Contains(stderr, "epoch") {
			t.Errorf("following the old epoch: exit %d, %s; want the epoch's change named", code, stderr)
		}
		again := sinceJSON(t, srv.URL, "--since", "0")
		index := readIndex(t, filepath.Join(out, ".well-known", "skills.json"))
		if again.Epoch == first.Epoch || len(again.Events) != len(index.Skills) {
			t.Errorf("new history: epoch %s (was %s), %d events for %d listed skills", again.Epoch, first.Epoch, len(again.Events), len(index.Skills))
		}
		filepath.WalkDir(filepath.Join(out, "changes"), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && bytes.Contains(readTestFile(t, p), []byte(tr)) {
				t.Errorf("%s names %s, which is private now", p, tr)
			}
			return nil
		})
	})
}

// sourceOf finds the source file of a skill id in content.
func sourceOf(t *testing.T, content, id string) string {
	t.Helper()
	var found string
	filepath.WalkDir(content, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && found == "" {
			data, _ := os.ReadFile(p)
			if bytes.Contains(data, []byte(`"id": "`+id+`"`)) || bytes.Contains(data, []byte("id: "+id+"\n")) {
				found, _ = filepath.Rel(content, p)
			}
		}
		return nil
	})
	if found == "" {
		t.Fatalf("no source for %s", id)
	}
	return found
}

// translateID is the id of content/translate.md.
func translateID(t *testing.T, content string) string {
	data, _ := os.ReadFile(filepath.Join(content, "translate.md"))
	m := regexp.MustCompile(`(?m)^id: *"?([a-z0-9._-]+)`).FindSubmatch(data)
	if m == nil {
		return ""
	}
	return string(m[1])
}
