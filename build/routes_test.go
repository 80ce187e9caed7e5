package build

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/skillcat/skillcat"
)

// TestRoutesLink pins how one document links to another: relative by
// default, directly to a file beside the page or its folder, through the
// root otherwise, and absolute from the 404 page.
func TestRoutesLink(t *testing.T) {
	r := newRoutes("")
	abs := newRoutes("https://x.example/cat/")
	for _, c := range []struct {
		r        routes
		from, to string
		want     string
	}{
		{r, r.home(), r.home(), ""},
		{r, r.home(), r.typePage("api"), "types/api/"},
		{r, r.home(), r.search(), "search/manifest.json"},
		{r, r.listingPage("api", 3), r.listingPage("api", 2), "../../../../types/api/page/2/"},
		{r, r.listingPage("", 2), r.listingPage("", 1), "../../"},
		{r, r.skillPage("a.b"), r.home(), "../../"},
		{r, r.skillPage("a.b"), r.descriptor("a.b"), "../a.b.json"},
		{r, r.skillPage("a.b"), r.typePage("api"), "../../types/api/"},
		{r, r.skillPage("a.b"), r.asset("style.css"), "../../assets/style.css"},
		{r, r.typePage("api"), r.typeIndex("api"), "../api.json"},
		{r, r.typePage("api"), r.typePage("task"), "../../types/task/"},
		{r, r.index(), r.descriptor("w"), "../skills/w.json"},
		{r, r.typeIndex("api"), r.descriptor("w"), "../skills/w.json"},
		{r, r.notFound(), r.home(), "/"},
		{r, r.notFound(), r.skillPage("w"), "/skills/w/"},
		{abs, r.notFound(), r.asset("app.js"), "https://x.example/cat/assets/app.js"},
		{abs, r.skillPage("w"), r.home(), "../../"},
	} {
		if got := c.r.link(c.from, c.to); got != c.want {
			t.Errorf("link(%q, %q) with base %q = %q; want %q", c.from, c.to, c.r.base, got, c.want)
		}
	}
	if got := abs.published(r.index(), r.descriptor("w")); got != "https://x.example/cat/skills/w.json" {
		t.Errorf("published with a base URL = %q", got)
	}
	if got := r.published(r.index(), r.descriptor("w")); got != "../skills/w.json" {
		t.Errorf("published without a base URL = %q", got)
	}
	if got := abs.absolute(r.typePage("api")); got != "https://x.example/cat/types/api/" {
		t.Errorf("absolute = %q", got)
	}
	if got := r.absolute(r.home()); got != "" {
		t.Errorf("absolute without a base URL = %q; want empty", got)
	}
}

// TestRoutesLinkIsTheSpelledOne holds link, which slices its folders out
// of from to allocate only its answer, to the plain spelling of the same
// rule on every pair of a set of paths, unclean ones and deep ones included.
func TestRoutesLinkIsTheSpelledOne(t *testing.T) {
	plain := func(r routes, from, to string) string {
		if from == r.notFound() {
			if r.base != "" {
				return r.base + r.url(to)
			}
			return "/" + r.url(to)
		}
		target := r.url(to)
		dir := path.Dir(from)
		if dir == "." {
			return target
		}
		dir += "/"
		parent := path.Dir(strings.TrimSuffix(dir, "/")) + "/"
		if parent == "./" {
			parent = ""
		}
		targetDir, name := splitURL(target)
		if page := strings.HasSuffix(name, "/"); !page {
			switch {
			case targetDir == dir:
				return name
			case strings.HasPrefix(targetDir, dir):
				return strings.TrimPrefix(target, dir)
			case targetDir == parent && parent != "":
				return "../" + name
			}
		}
		return strings.Repeat("../", strings.Count(dir, "/")) + target
	}
	r := newRoutes("")
	paths := []string{
		r.home(), r.notFound(), r.index(), r.search(), r.typePage("api"), r.typeIndex("api"),
		r.listingPage("api", 3), r.listingPage("", 2), r.skillPage("a.b"), r.descriptor("a.b"),
		r.asset("style.css"), r.asset("img/logo.svg"), r.skillMD("x"), r.agentSkillsIndex(),
		r.llmsFull(), r.changePage("5f65e4a5812cc40b", 1, 9), "a/b/c/d/e/f/g/h/i/j/index.html", "a/b/c/d/e/f/g/h/x.html",
		"a//b/index.html", "./a/index.html", "a/./b.json", "a/../b/c.json", "/abs/x.html", "a/", "a/b/",
	}
	for _, base := range []string{"", "https://x.example/cat/"} {
		r := newRoutes(base)
		for _, from := range paths {
			for _, to := range paths {
				if got, want := r.link(from, to), plain(r, from, to); got != want {
					t.Errorf("link(%q, %q) = %q; the plain rule gives %q", from, to, got, want)
				}
			}
		}
	}
}

// TestRoutesLinksResolve builds the golden catalog without a base URL and
// follows every href and src of every page: each relative link must name a
// file of the output (a folder link, its index.html).
func TestRoutesLinksResolve(t *testing.T) {
	out := filepath.Join(t.TempDir(), "public")
	cfg := Config{Content: os.DirFS("testdata/golden/content"), ContentLabel: "content", Out: out}
	if _, err := Build(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	site := os.DirFS(out)
	attr := regexp.MustCompile(`(?:href|src|action)="([^"]*)"`)
	pages, _ := fs.Glob(site, "*.html")
	more, _ := fs.Glob(site, "*/*/index.html")
	pages = append(pages, more...)
	checked := 0
	for _, page := range pages {
		if page == "404.html" {
			continue // its links are absolute from the host root
		}
		data, err := fs.ReadFile(site, page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range attr.FindAllStringSubmatch(string(data), -1) {
			u := m[1]
			if strings.Contains(u, ":") || strings.HasPrefix(u, "#") || strings.HasPrefix(u, "/") {
				continue // another origin, a fragment, or a mail address
			}
			u, _, _ = strings.Cut(u, "?")
			u, _, _ = strings.Cut(u, "#")
			target := path.Join(path.Dir(page), u)
			if u == "" || strings.HasSuffix(u, "/") || u == "." || u == ".." {
				target = path.Join(target, "index.html")
			}
			if _, err := fs.Stat(site, target); err != nil {
				t.Errorf("%s links to %q, which names no file (%s)", page, m[1], target)
			}
			checked++
		}
	}
	if checked < 50 {
		t.Errorf("followed only %d links; the pattern misses the pages' links", checked)
	}
}

// TestLayoutViolations checks the writer's rule that no path is both a file
// and a folder: the skill needing another's file as a folder is reported,
// whichever came first, and private skills, never published, take no part.
func TestLayoutViolations(t *testing.T) {
	x := &indexer{routes: newRoutes(""), sources: map[string]indexedSource{
		"a.json": {display: "content/a.json", id: "x.json", idLine: 2, idColumn: 9, listed: true},
		"b.json": {display: "content/b.json", id: "x", idLine: 3, idColumn: 9, listed: true},
		"c.json": {display: "content/c.json", id: "y.json", listed: true},
		"d.json": {display: "content/d.json", id: "y", listed: false},
	}}
	vs, err := x.layoutViolations()
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 1 {
		t.Fatalf("got %d violations, want 1: %v", len(vs), vs)
	}
	v := vs[0]
	want := `id "x.json" cannot be published beside "x" (content/b.json): /skills/x.json would be a file of one and a folder of the other; rename one of them`
	if v.File != "content/a.json" || v.Line != 2 || v.Column != 9 || v.Field != "id" || v.Reason != want {
		t.Errorf("got %s:%d:%d %s: %s\nwant content/a.json:2:9 id: %s", v.File, v.Line, v.Column, v.Field, v.Reason, want)
	}
}

// TestLayoutViolationsAsWalked holds layoutViolations, which cuts each
// file's path at its slashes, to the rule as first written: every folder
// above each file, by path.Dir, looked up among the files of the other
// listed skills. The ids are drawn so that they often need each other's
// files as folders (x, x.json, x.json.json).
func TestLayoutViolationsAsWalked(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		// Distinct ids, as the index leaves them: duplicates are rejected
		// before the layout is looked at.
		id := rapid.Custom(func(t *rapid.T) string {
			return rapid.SampledFrom([]string{"x", "y", "a-b", "a.b", "q1"}).Draw(t, "stem") + strings.Repeat(".json", rapid.IntRange(0, 2).Draw(t, "json"))
		})
		sources := map[string]indexedSource{}
		for i, id := range rapid.SliceOfNDistinct(id, 1, 8, rapid.ID).Draw(t, "ids") {
			name := fmt.Sprintf("s%d.json", i)
			sources[name] = indexedSource{display: "content/" + name, id: id, idLine: i + 1, idColumn: 9, listed: rapid.Bool().Draw(t, "listed")}
		}
		x := &indexer{routes: newRoutes(""), sources: sources}
		vs, err := x.layoutViolations()
		if err != nil {
			t.Fatal(err)
		}
		got, want := violationTexts(vs), violationTexts(layoutViolationsWalked(x))
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("layoutViolations:\n%s\nthe rule walked:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}

// BenchmarkLayoutViolations is the layout check of 10,000 sources, one in
// ten private, as every build makes it between the load and render; walked
// is the rule as first written (layoutViolationsWalked), which also left
// the sort of the listed sources to the load.
func BenchmarkLayoutViolations(b *testing.B) {
	sources := map[string]indexedSource{}
	for i := range 10000 {
		sources[fmt.Sprintf("g%03d/skill-%05d.json", i%100, i)] = indexedSource{display: "content/x", id: fmt.Sprintf("news.convert-%05d", i), listed: i%10 != 0}
	}
	x := &indexer{routes: newRoutes(""), sources: sources}
	b.Run("cut", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			x.layoutViolations()
		}
	})
	b.Run("walked", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			layoutViolationsWalked(x)
		}
	})
}

// violationTexts is each violation as text, sorted.
func violationTexts(vs skillcat.Violations) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = fmt.Sprintf("%s:%d:%d %s: %s", v.File, v.Line, v.Column, v.Field, v.Reason)
	}
	sort.Strings(out)
	return out
}

// layoutViolationsWalked is the layout rule as first written, the oracle
// of TestLayoutViolationsAsWalked.
func layoutViolationsWalked(x *indexer) skillcat.Violations {
	files := map[string]indexedSource{}
	var listed []indexedSource
	for _, src := range x.sources {
		if !src.listed {
			continue
		}
		listed = append(listed, src)
		for _, f := range x.routes.skillFiles(src.id) {
			files[f] = src
		}
	}
	var vs skillcat.Violations
	for _, src := range listed {
		named := map[string]bool{}
		for _, f := range x.routes.skillFiles(src.id) {
			for dir := path.Dir(f); dir != "."; dir = path.Dir(dir) {
				other, ok := files[dir]
				if !ok || other.id == src.id || named[other.id] {
					continue
				}
				named[other.id] = true
				vs = append(vs, x.idViolation(src, fmt.Sprintf(
					"id %q cannot be published beside %q (%s): /%s would be a file of one and a folder of the other; rename one of them",
					src.id, other.id, skillcat.EscapeName(other.display), strings.TrimSuffix(dir, "/"))))
			}
		}
	}
	return vs
}

// TestPlaceRank checks the order of an in-place update: skill files, then
// the listings that point to them, then the Well-Known index.
func TestPlaceRank(t *testing.T) {
	r := newRoutes("")
	for file, want := range map[string]int{
		r.descriptor("a"): 0, r.skillPage("a"): 0, r.asset("style.css"): 0, r.schema("x.schema.json"): 0,
		r.skillMD("a"): 0, r.notFound(): 0,
		r.home(): 1, r.listingPage("", 3): 1, r.typePage("api"): 1, r.listingPage("api", 2): 1, r.typeIndex("api"): 1,
		r.search(): 1, r.searchFile("t/ab.json"): 1, r.sitemap(): 1, r.sitemapPart(2): 1, r.catalogDB(): 1,
		r.agentSkillsIndex(): 1, r.apiCatalog(): 1, r.llmsTxt(): 1, r.llmsFull(): 1,
		r.index(): 2,
	} {
		if got := r.placeRank(file); got != want {
			t.Errorf("placeRank(%q) = %d; want %d", file, got, want)
		}
	}
}
