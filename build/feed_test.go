package build_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/build"
	"pgregory.net/rapid"
)

// feedSkill is one skill of a generated catalog state.
type feedSkill struct {
	version string
	private bool
}

// feedSource is a valid descriptor for a skill of the feed tests.
func feedSource(id string, s feedSkill) []byte {
	access := "public"
	if s.private {
		access = "private"
	}
	return fmt.Appendf(nil, `{"protocol":{"version":"1.0.0"},"id":%q,"name":"Skill %s","version":%q,
"capability_type":"api","access":%q,"description":"Does %s things for the change feed tests.",
"provider":{"name":"Feed Tests"},"endpoint":{"url":"https://api.example.com/%s"},
"inputs":{"type":"object"},"output":true,"auth":{"type":"none"}}`, id, id, s.version, access, id, id)
}

// feedContent is a content tree holding a catalog state.
func feedContent(state map[string]feedSkill) fstest.MapFS {
	fsys := fstest.MapFS{}
	for id, s := range state {
		fsys[id+".json"] = &fstest.MapFile{Data: feedSource(id, s)}
	}
	return fsys
}

// readFeed replays a built site's change feed from 0, checking every page's
// digest and sequence, and returns the state and the feed document.
func readFeed(t rapid.TB, out string) (map[string]skillcat.ChangeEvent, *skillcat.ChangeFeed, map[string][]byte) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, "changes", "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	feed, err := skillcat.ParseChangeFeed(data, 1)
	if err != nil {
		t.Fatalf("changes/index.json: %v", err)
	}
	state := map[string]skillcat.ChangeEvent{}
	pages := map[string][]byte{}
	for _, ref := range feed.Pages {
		page, err := os.ReadFile(filepath.Join(out, "changes", filepath.FromSlash(ref.URL)))
		if err != nil {
			t.Fatal(err)
		}
		if got := digest(page); got != ref.Digest {
			t.Fatalf("%s: digest %s, feed says %s", ref.URL, got, ref.Digest)
		}
		p, err := skillcat.ParseChangePage(page, ref.From, ref.To)
		if err != nil {
			t.Fatalf("%s: %v", ref.URL, err)
		}
		skillcat.Replay(state, p.Events)
		pages[ref.URL] = page
	}
	return state, feed, pages
}

// TestChangeFeed is the feed's property: over any sequence of catalog
// edits, replaying the events from 0 gives exactly the current index (ids,
// versions, digests); pages that were full never change within an epoch,
// and no page URL ever names other bytes; no id that was never listed, or
// is private now, appears in the feed; a new epoch starts exactly when the
// feed named a skill that is private now; and a build continuing a copy of
// the previous feed (--previous DIR), or with the rebuild cache, writes the
// same feed as one continuing in place.
func TestChangeFeed(t *testing.T) {
	defer build.SetPageSize(3)()
	rapid.Check(t, func(rt *rapid.T) {
		dir := t.TempDir()
		out := filepath.Join(dir, "public")
		content := filepath.Join(dir, "content")
		cached := filepath.Join(dir, "cached")
		ids := []string{"a.one", "b.two", "c.three", "d.four", "e.five", "f.six", "g.seven"}
		state := map[string]feedSkill{}
		everListed := map[string]bool{}
		var fullPages map[string][]byte
		urls := map[string][]byte{} // every page URL published, and its bytes
		named := map[string]bool{}  // the ids the feed named after the step before
		epoch := ""                 // the feed's epoch after the step before
		steps := rapid.IntRange(1, 3).Draw(rt, "steps")
		for step := range steps {
			for _, id := range ids {
				switch rapid.IntRange(0, 4).Draw(rt, "op "+id) {
				case 0: // unchanged
				case 1:
					delete(state, id)
				case 2:
					state[id] = feedSkill{version: fmt.Sprintf("1.%d.0", rapid.IntRange(0, 2).Draw(rt, "version"))}
				case 3:
					s := state[id]
					if s.version == "" {
						s.version = "1.0.0"
					}
					s.private = !s.private
					state[id] = s
				case 4: // unchanged too: most skills stay as they were
				}
			}
			for id, s := range state {
				if !s.private {
					everListed[id] = true
				}
			}
			// Continue a copy of the previous feed, as --previous DIR does.
			copyDir := filepath.Join(dir, fmt.Sprintf("copy%d", step))
			if _, err := os.Stat(filepath.Join(out, "changes")); err == nil {
				if err := os.CopyFS(filepath.Join(copyDir, "changes"), os.DirFS(filepath.Join(out, "changes"))); err != nil {
					rt.Fatal(err)
				}
			}
			when := time.Unix(1700000000+int64(step)*3600, 0)
			cfg := build.Config{Content: feedContent(state), Out: out, Time: when}
			res, err := build.Build(context.Background(), cfg)
			if err != nil {
				rt.Fatalf("step %d: %v", step, err)
			}
			os.RemoveAll(content)
			if err := os.CopyFS(content, feedContent(state)); err != nil {
				rt.Fatal(err)
			}
			withCache := build.Config{Content: os.DirFS(content), ContentLabel: content, ContentPath: content,
				Out: cached, Cache: filepath.Join(dir, "cache.sqlite"), Time: when}
			if _, err := build.Build(context.Background(), withCache); err != nil {
				rt.Fatalf("step %d, with the cache: %v", step, err)
			}
			other := filepath.Join(dir, fmt.Sprintf("elsewhere%d", step))
			cfg.Out, cfg.Previous = other, os.DirFS(copyDir)
			if _, err := build.Build(context.Background(), cfg); err != nil {
				rt.Fatalf("step %d, --previous: %v", step, err)
			}

			replayed, feed, pages := readFeed(rt, out)
			index, err := os.ReadFile(filepath.Join(out, ".well-known", "skills.json"))
			if err != nil {
				rt.Fatal(err)
			}
			var x skillcat.SkillIndex
			if err := json.Unmarshal(index, &x); err != nil {
				rt.Fatal(err)
			}
			if len(replayed) != len(x.Skills) {
				rt.Fatalf("step %d: replay gives %d skills, the index lists %d", step, len(replayed), len(x.Skills))
			}
			for _, e := range x.Skills {
				r, ok := replayed[e.ID]
				if !ok || r.Digest != e.Digest || r.Version != e.Version {
					rt.Fatalf("step %d: %s: replay gives %+v, the index says %s %s", step, e.ID, r, e.Version, e.Digest)
				}
			}
			reset := false
			for id, s := range state {
				reset = reset || s.private && named[id]
			}
			if epoch != "" && (feed.Epoch != epoch) != reset {
				rt.Fatalf("step %d: epoch %s after %s; a new one is due only when the feed named a skill private now (%v)", step, feed.Epoch, epoch, reset)
			}
			if res.FeedRestarted != reset {
				rt.Fatalf("step %d: Result.FeedRestarted is %v, want %v", step, res.FeedRestarted, reset)
			}
			for url, data := range fullPages {
				if feed.Epoch == epoch && !bytes.Equal(pages[url], data) {
					rt.Fatalf("step %d: full page %s changed", step, url)
				}
			}
			for url, data := range pages {
				if before, ok := urls[url]; ok && !bytes.Equal(before, data) {
					rt.Fatalf("step %d: page URL %s names other bytes than it did before", step, url)
				}
				urls[url] = data
			}
			epoch, named = feed.Epoch, map[string]bool{}
			for _, id := range ids {
				for _, data := range pages {
					named[id] = named[id] || bytes.Contains(data, []byte(`"`+id+`"`))
				}
			}
			fullPages = map[string][]byte{}
			for _, ref := range feed.Pages {
				if ref.To-ref.From+1 == 3 {
					fullPages[ref.URL] = pages[ref.URL]
				}
			}
			doc, err := os.ReadFile(filepath.Join(out, "changes", "index.json"))
			if err != nil {
				rt.Fatal(err)
			}
			for _, id := range ids {
				if everListed[id] && !state[id].private {
					continue
				}
				if bytes.Contains(doc, []byte(id)) {
					rt.Fatalf("step %d: the feed document names %s, which was never listed or is private now", step, id)
				}
				for url, data := range pages {
					if bytes.Contains(data, []byte(id)) {
						rt.Fatalf("step %d: %s names %s, which was never listed or is private now", step, url, id)
					}
				}
			}
			inPlace := snapshot(rt, filepath.Join(out, "changes"))
			if !maps.Equal(inPlace, snapshot(rt, filepath.Join(other, "changes"))) {
				rt.Fatalf("step %d: the feed built from a copy (--previous) differs from the one built in place", step)
			}
			if !maps.Equal(inPlace, snapshot(rt, filepath.Join(cached, "changes"))) {
				rt.Fatalf("step %d: the feed built with the rebuild cache differs from the one built without", step)
			}
		}
	})
}

// TestChangeFeedErrors checks what a build does with a previous feed it
// cannot continue, and that ResetChanges starts a new epoch.
func TestChangeFeedErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "public")
	state := map[string]feedSkill{"a.one": {version: "1.0.0"}, "b.two": {version: "1.0.0"}}
	cfg := build.Config{Content: feedContent(state), Out: out}
	if _, err := build.Build(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	_, first, _ := readFeed(t, out)
	if first.Latest != 2 {
		t.Fatalf("first build: latest %d, want 2 (one upsert per listed skill)", first.Latest)
	}
	// Nothing changed: no event, same bytes.
	before := snapshot(t, filepath.Join(out, "changes"))
	if _, err := build.Build(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(before, snapshot(t, filepath.Join(out, "changes"))) {
		t.Fatal("a rebuild of the same sources changed the feed")
	}

	page := filepath.Join(out, "changes", filepath.FromSlash(first.Pages[0].URL))
	data, _ := os.ReadFile(page)
	os.WriteFile(page, bytes.Replace(data, []byte(`"a.one"`), []byte(`"a.two"`), 1), 0o644)
	_, err := build.Build(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "previous change feed") || !strings.Contains(err.Error(), "digest") {
		t.Fatalf("damaged previous page: got %v, want an error about the previous change feed's digest", err)
	}
	got, _ := os.ReadFile(page)
	if bytes.Equal(got, data) {
		t.Fatal("the output was replaced by a failed build")
	}

	cfg.ResetChanges = true
	if _, err := build.Build(context.Background(), cfg); err != nil {
		t.Fatalf("--reset-changes: %v", err)
	}
	_, reset, _ := readFeed(t, out)
	if reset.Epoch == first.Epoch || reset.Latest != 2 {
		t.Fatalf("reset: epoch %s (was %s), latest %d; want a new epoch and 2 events", reset.Epoch, first.Epoch, reset.Latest)
	}
}

func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// TestNewHistoryNeverReusesPageURLs builds two catalogs that differ only
// past the first page, each as a new history (no previous feed, no date,
// as a deploy from a clean checkout does): a page URL the two share must
// name the same bytes, since a CDN may cache changes/pages/* for good.
func TestNewHistoryNeverReusesPageURLs(t *testing.T) {
	defer build.SetPageSize(3)()
	dir := t.TempDir()
	state := map[string]feedSkill{"a.one": {version: "1.0.0"}, "b.two": {version: "1.0.0"}, "c.three": {version: "1.0.0"},
		"d.four": {version: "1.0.0"}, "e.five": {version: "1.0.0"}}
	var built []map[string][]byte
	for i, v := range []string{"1.0.0", "1.1.0"} {
		state["e.five"] = feedSkill{version: v}
		out := filepath.Join(dir, fmt.Sprintf("public%d", i))
		if _, err := build.Build(context.Background(), build.Config{Content: feedContent(state), Out: out}); err != nil {
			t.Fatal(err)
		}
		_, _, pages := readFeed(t, out)
		built = append(built, pages)
	}
	for url, data := range built[1] {
		if before, ok := built[0][url]; ok && !bytes.Equal(before, data) {
			t.Errorf("page URL %s names other bytes in two new histories:\n%s\n%s", url, before, data)
		}
	}
}
