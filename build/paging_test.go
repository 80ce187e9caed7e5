package build_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"html"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/build"
	"github.com/skillcat/skillcat/internal/treetest"
	"github.com/skillcat/skillcat/synth"
)

// pagedCatalog is a synthetic catalog long enough for several listing pages
// (504 listed skills: six home pages, two for each type).
const pagedCatalog = 560

// buildPaged writes the synthetic catalog and builds it with a base URL
// and a cache; it returns the content and output folders and the cache.
func buildPaged(t *testing.T) (content, out, cache string) {
	t.Helper()
	dir := t.TempDir()
	content, out, cache = filepath.Join(dir, "content"), filepath.Join(dir, "public"), filepath.Join(dir, "cache.sqlite")
	if err := synth.Write(content, pagedCatalog, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := build.Build(context.Background(), pagedConfig(content, out, cache)); err != nil {
		t.Fatal(err)
	}
	return content, out, cache
}

func pagedConfig(content, out, cache string) build.Config {
	return build.Config{Content: os.DirFS(content), ContentLabel: content, ContentPath: content, Out: out, Cache: cache,
		BaseURL: "https://skills.example.com/", Time: time.Unix(1700000000, 0)}
}

// privateIDs returns the ids of the catalog's private skills, read from
// the sources.
func privateIDs(t *testing.T, n int) []string {
	t.Helper()
	idRE := regexp.MustCompile(`(?m)^\s*"?id"?: "?([a-z0-9._-]+)`)
	var ids []string
	for i := 0; i < n; i++ {
		_, src := synth.Source(i, 3)
		if !bytes.Contains(src, []byte(`"private"`)) && !bytes.Contains(src, []byte("access: private")) {
			continue
		}
		m := idRE.FindSubmatch(src)
		if m == nil {
			t.Fatalf("source %d: no id", i)
		}
		ids = append(ids, string(m[1]))
	}
	if len(ids) == 0 {
		t.Fatal("the catalog has no private skill")
	}
	return ids
}

var anchorRE = regexp.MustCompile(`<a\b[^>]*\shref="([^"]*)"`)

// TestCrawlReachesEverySkill follows <a href> links alone from index.html
// and checks that every listed skill's page is reached, through the
// numbered listing pages, and no private one; that the sitemap lists every
// listing and skill page; and that nothing of a private skill is in any
// file of the output.
func TestCrawlReachesEverySkill(t *testing.T) {
	_, out, _ := buildPaged(t)
	var index skillcat.SkillIndex
	data, err := os.ReadFile(filepath.Join(out, ".well-known", "skills.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &index); err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, e := range index.Skills {
		listed[e.ID] = true
	}

	seen := map[string]bool{"": true}
	queue := []string{""}
	reached := map[string]bool{}
	listings := 0
	for len(queue) > 0 {
		page := queue[0]
		queue = queue[1:]
		data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(page), "index.html"))
		if err != nil {
			t.Errorf("link to /%s: %v", page, err)
			continue
		}
		if page == "" || strings.Contains(page, "page/") || strings.HasPrefix(page, "types/") {
			listings++
		}
		if id, ok := strings.CutPrefix(page, "skills/"); ok {
			reached[strings.TrimSuffix(id, "/")] = true
			continue // a skill page's links lead back to the listings
		}
		base, _ := url.Parse("https://site.test/" + page)
		for _, m := range anchorRE.FindAllSubmatch(data, -1) {
			u, err := base.Parse(html.UnescapeString(string(m[1])))
			if err != nil || u.Host != "site.test" || !strings.HasSuffix(u.Path, "/") {
				continue // another site, a file, or a JSON document
			}
			p := strings.TrimPrefix(u.Path, "/")
			if !seen[p] {
				seen[p] = true
				queue = append(queue, p)
			}
		}
	}
	for id := range listed {
		if !reached[id] {
			t.Errorf("skill %s is not reachable from / by links", id)
		}
	}
	for id := range reached {
		if !listed[id] {
			t.Errorf("crawl reached /skills/%s/, which is not listed", id)
		}
	}
	if want := 6 + 4*2; listings != want {
		t.Errorf("listing pages reached: got %d, want %d (6 home pages, 2 per type)", listings, want)
	}

	// The sitemap lists every listing page and every skill page.
	sm, err := os.ReadFile(filepath.Join(out, "sitemap.xml"))
	if err != nil {
		t.Fatal(err)
	}
	locs := map[string]bool{}
	for _, m := range regexp.MustCompile(`<loc>https://skills\.example\.com/([^<]*)</loc>`).FindAllSubmatch(sm, -1) {
		locs[string(m[1])] = true
	}
	for p := range seen {
		if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(p), "index.html")); err == nil && !locs[p] {
			t.Errorf("sitemap lacks /%s", p)
		}
	}
	if len(locs) != listings+len(listed) {
		t.Errorf("sitemap: %d URLs, want %d listing pages and %d skill pages", len(locs), listings, len(listed))
	}

	// Nothing of a private skill, in any file.
	private := privateIDs(t, pagedCatalog)
	err = filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, id := range private {
			// The id, and in the search shards its number, a token of its own.
			num := id[strings.LastIndexByte(id, '-')+1:]
			if bytes.Contains(data, []byte(id)) || strings.Contains(p, "search") && bytes.Contains(data, []byte(num)) {
				t.Errorf("%s holds something of private skill %s", p, id)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Counts count listed skills only.
	home, _ := os.ReadFile(filepath.Join(out, "index.html"))
	if want := fmt.Sprintf("Browse %d skills", len(listed)); !bytes.Contains(home, []byte(want)) {
		t.Errorf("home page lacks %q", want)
	}
}

// TestPagingRebuild edits one skill's summary and checks that the rebuild
// rewrites only the listing pages and search files whose bytes changed:
// the home and type page holding the skill, its card file, the shards of
// the words that came and went, and the manifest.
func TestPagingRebuild(t *testing.T) {
	content, out, cache := buildPaged(t)
	before := treeState(t, out)
	// Source 0 is JSON; its summary is the description's first paragraph.
	name := filepath.Join(content, filepath.FromSlash(synth.Name(0)))
	src, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(src, []byte(`"description": "`), []byte(`"description": "Zyzzyva quokka. `), 1)
	if bytes.Equal(edited, src) {
		t.Fatal("could not edit source 0")
	}
	if err := os.WriteFile(name, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(2 * time.Second)
	os.Chtimes(name, later, later)
	if _, err := build.Build(context.Background(), pagedConfig(content, out, cache)); err != nil {
		t.Fatal(err)
	}
	after := treeState(t, out)
	var pages, docs, shards []string
	for p, a := range after {
		b, ok := before[p]
		if !(strings.HasPrefix(p, "search/") || strings.HasSuffix(p, "index.html") && !strings.HasPrefix(p, "skills/")) {
			continue
		}
		if ok && a.ino != b.ino && a.sum == b.sum {
			t.Errorf("%s was rewritten with the same bytes", p)
		}
		if ok && a.sum == b.sum {
			continue
		}
		switch {
		case strings.HasPrefix(p, "search/docs/"):
			docs = append(docs, p)
		case strings.HasPrefix(p, "search/"):
			shards = append(shards, p)
		default:
			pages = append(pages, p)
		}
	}
	slices.Sort(pages)
	t.Logf("changed: pages %v, card files %v, index files %v", pages, docs, shards)
	if len(pages) != 2 || !slices.ContainsFunc(pages, func(p string) bool { return strings.HasPrefix(p, "types/") }) {
		t.Errorf("listing pages changed: %v, want one home page and one type page", pages)
	}
	if len(docs) != 1 {
		t.Errorf("card files changed: %v, want one", docs)
	}
	if !slices.Contains(shards, "search/manifest.json") || len(shards) > 4 {
		t.Errorf("index files changed: %v, want the manifest and the shards of zyzzyva and quokka", shards)
	}
}

// fileState is a file's inode (0 where the system has none) and digest.
type fileState struct {
	ino uint64
	sum [32]byte
}

func treeState(t *testing.T, dir string) map[string]fileState {
	t.Helper()
	st := map[string]fileState{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		st[path.Clean(filepath.ToSlash(rel))] = fileState{treetest.Inode(info), sha256.Sum256(data)}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}
