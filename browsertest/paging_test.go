package browsertest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/skillcat/skillcat/build"
	"github.com/skillcat/skillcat/synth"
)

// pagedSize is the generated catalog's size: 1,800 listed skills, 18 home
// pages and 4 or 5 per type, large enough for several index shards.
const pagedSize = 2000

var (
	synthOnce sync.Once
	synthDir  string
	synthErr  error
)

// pagedSite builds (once per run) and serves a synthetic catalog of
// pagedSize skills.
func pagedSite(t *testing.T) *site {
	t.Helper()
	synthOnce.Do(func() {
		synthDir = filepath.Join(tmpRoot, "synth-content")
		synthErr = synth.Write(synthDir, pagedSize, 5)
	})
	if synthErr != nil {
		t.Fatal(synthErr)
	}
	start := time.Now()
	s := builtSite(t, synthDir, true)
	if d := time.Since(start); d > time.Second {
		t.Logf("built the %d-skill catalog in %v", pagedSize, d.Round(time.Millisecond))
	}
	return s
}

// listing is the home listing in order, read from the built pages alone:
// the ids of the cards of every page, page after page.
func listing(t *testing.T, s *site) [][]string {
	t.Helper()
	card := regexp.MustCompile(`<li class="card" data-id="([^"]+)"`)
	var pages [][]string
	for n := 1; ; n++ {
		p := filepath.Join(s.Dir, "index.html")
		if n > 1 {
			p = filepath.Join(s.Dir, "page", strconv.Itoa(n), "index.html")
		}
		data, err := os.ReadFile(p)
		if err != nil {
			break
		}
		var ids []string
		for _, m := range card.FindAllSubmatch(data, -1) {
			ids = append(ids, string(m[1]))
		}
		pages = append(pages, ids)
	}
	return pages
}

const cardsJS = `Array.from(document.querySelectorAll("#skills .card")).filter(c => c.offsetParent !== null).map(c => c.dataset.id)`

func noScript(t *testing.T, ctx context.Context) {
	t.Helper()
	do(t, ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}))
}

// TestPagingWithoutJavaScript walks the numbered pages of the home listing
// and of a type listing with scripts off: each page shows its share of the
// listing, Next and Previous lead to the neighbours, the numbered links to
// the first and last pages, and the counts stay those of the whole catalog.
func TestPagingWithoutJavaScript(t *testing.T) {
	s := pagedSite(t)
	pages := listing(t, s)
	total := len(s.Index.Skills)
	if len(pages) != (total+build.ListingPageSize-1)/build.ListingPageSize || len(pages) < 10 {
		t.Fatalf("%d listed skills on %d home pages", total, len(pages))
	}
	ctx := newTab(t)
	w := watch(t, ctx, s.Origin)
	noScript(t, ctx)
	do(t, ctx, chromedp.Navigate(s.URL))
	var seen []string
	for n := 1; n <= len(pages); n++ {
		got := eval[[]string](t, ctx, cardsJS)
		if !slices.Equal(got, pages[n-1]) {
			t.Fatalf("page %d shows %d cards %v…, want the page's %d", n, len(got), got[:min(3, len(got))], len(pages[n-1]))
		}
		seen = append(seen, got...)
		if c := eval[string](t, ctx, `document.querySelector('.filter[data-type=""] .count').textContent`); c != strconv.Itoa(total) {
			t.Errorf("page %d: All count %q, want %d", n, c, total)
		}
		if cur := eval[string](t, ctx, `document.querySelector('.pagination [aria-current="page"]').textContent`); cur != strconv.Itoa(n) {
			t.Errorf("page %d: current page marked %q", n, cur)
		}
		if n == len(pages) {
			if eval[bool](t, ctx, `document.querySelector('a[rel="next"]') !== null`) {
				t.Error("the last page has a Next link")
			}
			break
		}
		resp := follow(t, ctx, `.pagination a[rel="next"]`)
		if want := s.URL + "page/" + strconv.Itoa(n+1) + "/"; resp.URL != want || resp.Status != 200 {
			t.Fatalf("Next from page %d leads to %s (HTTP %d), want %s", n, resp.URL, resp.Status, want)
		}
	}
	slices.Sort(seen)
	var ids []string
	for _, e := range s.Index.Skills {
		ids = append(ids, e.ID)
	}
	if !slices.Equal(seen, ids) {
		t.Errorf("the pages show %d skills, want the %d listed, each once", len(seen), len(ids))
	}
	// Previous, and the numbered link to page 1.
	if resp := follow(t, ctx, `.pagination a[rel="prev"]`); resp.URL != s.URL+"page/"+strconv.Itoa(len(pages)-1)+"/" {
		t.Fatalf("Previous from the last page leads to %s", resp.URL)
	}
	if resp := follow(t, ctx, `.pagination a[aria-label="Page 1"]`); resp.URL != s.URL {
		t.Fatalf("the link to page 1 leads to %s", resp.URL)
	}
	// A type listing has pages of its own.
	do(t, ctx, chromedp.Navigate(s.URL+"types/api/"))
	n := eval[int](t, ctx, `document.querySelectorAll(".pagination .page-number").length`)
	if n < 2 {
		t.Fatalf("the API listing has %d numbered pages", n)
	}
	if resp := follow(t, ctx, `.pagination a[rel="next"]`); resp.URL != s.URL+"types/api/page/2/" {
		t.Fatalf("Next on the API listing leads to %s", resp.URL)
	}
	for _, typ := range eval[[]string](t, ctx, `Array.from(document.querySelectorAll("#skills .card")).map(c => c.dataset.type)`) {
		if typ != "api" {
			t.Fatalf("the API listing's page 2 shows a %s skill", typ)
		}
	}
	if p := w.problems(); len(p) > 0 {
		t.Errorf("browser problems:\n%s", strings.Join(p, "\n"))
	}
}

// follow goes where the link that sel selects points, as a browser
// without scripts does, and fails unless the page is there.
func follow(t *testing.T, ctx context.Context, sel string) *network.Response {
	t.Helper()
	href := eval[string](t, ctx, `(a => a ? a.href : "")(document.querySelector('`+sel+`'))`)
	if href == "" {
		t.Fatalf("no link %s on %s", sel, eval[string](t, ctx, `location.href`))
	}
	resp, err := chromedp.RunResponse(ctx, chromedp.Navigate(href))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != 200 {
		t.Fatalf("%s leads to %s: HTTP %d", sel, href, resp.Status)
	}
	return resp
}

// lastSkill is a skill on the last home page, with its name and the
// words of its id.
func lastSkill(t *testing.T, s *site) (id, name string) {
	t.Helper()
	pages := listing(t, s)
	last := pages[len(pages)-1]
	id = last[len(last)-1]
	for _, e := range s.Index.Skills {
		if e.ID == id {
			return id, e.Name
		}
	}
	t.Fatalf("%s is not in the index", id)
	return "", ""
}

// TestPagingWithJavaScript: with scripts on, the numbered pages still work,
// the search finds a skill that lives on the last page from the first page
// (by id and by name) and ranks it first, the type filter works over the
// whole catalog with "Show more", and a query survives a reload.
func TestPagingWithJavaScript(t *testing.T) {
	s := pagedSite(t)
	cat := readCatalog(t, s)
	ctx := newTab(t)
	w := watch(t, ctx, s.Origin)
	load(t, ctx, s.URL)

	if eval[int](t, ctx, `document.querySelectorAll("#skills .card").length`) != build.ListingPageSize {
		t.Fatalf("the first page does not show %d cards", build.ListingPageSize)
	}
	id, name := lastSkill(t, s)
	t.Run("FindsLastPageSkillByID", func(t *testing.T) {
		typeQuery(t, ctx, id)
		waitFor(t, ctx, `document.documentElement.dataset.search === "ready"`)
		got := eval[[]string](t, ctx, cardsJS)
		if len(got) == 0 || got[0] != id {
			t.Fatalf("search %q: first results %v, want %s first", id, got[:min(3, len(got))], id)
		}
		if eval[bool](t, ctx, `!document.querySelector("nav.pagination").hidden`) {
			t.Error("the page navigation shows beside search results")
		}
		// The card is the listing's card: same markup, a working link.
		href := eval[string](t, ctx, `document.querySelector("#skills .card .card-title a").getAttribute("href")`)
		if href != "skills/"+id+"/" {
			t.Errorf("result link %q, want skills/%s/", href, id)
		}
	})
	t.Run("NameRanksFirst", func(t *testing.T) {
		word := strings.ToLower(strings.Fields(name)[0])
		typeQuery(t, ctx, word)
		waitFor(t, ctx, `document.documentElement.dataset.search === "ready"`)
		want := cat.match(word, "")
		if len(want) <= 50 {
			t.Skipf("%q matches only %d skills", word, len(want))
		}
		// The first cards shown are skills whose name has the word.
		for _, rid := range eval[[]string](t, ctx, cardsJS)[:10] {
			if !slices.ContainsFunc(words(cat.name(rid)), func(x string) bool { return strings.HasPrefix(x, word) }) {
				t.Errorf("%s ranks in the first ten for %q, but its name %q lacks the word", rid, word, cat.name(rid))
			}
		}
		// The first batch is on the page, and "Show more" offers the rest.
		waitFor(t, ctx, `document.querySelectorAll("#skills .card").length === 24 && !document.getElementById("more").hidden`)
		n := eval[int](t, ctx, `document.querySelectorAll("#skills .card").length`)
		// Clicked from script: a pointer click lands wherever the button was
		// when its position was read, and the cards above it may still move.
		eval[bool](t, ctx, `document.getElementById("more-button").click(), true`)
		waitFor(t, ctx, `document.querySelectorAll("#skills .card").length > `+strconv.Itoa(n))
	})
	t.Run("TypeOverWholeCatalog", func(t *testing.T) {
		typeQuery(t, ctx, "")
		do(t, ctx, chromedp.Click(chromedp.CSS(`button.filter[data-type="task"]`)))
		waitFor(t, ctx, `document.documentElement.dataset.search === "ready" && location.search === "?type=task"`)
		got := eval[[]string](t, ctx, cardsJS)
		want := cat.match("", "task")
		if len(got) == 0 || len(got) >= len(want) {
			t.Fatalf("type task: %d cards, want a first batch of the %d task skills", len(got), len(want))
		}
		for _, rid := range got {
			if cat.typ[rid] != "task" {
				t.Fatalf("type task shows %s, a %s skill", rid, cat.typ[rid])
			}
		}
		do(t, ctx, chromedp.Click(chromedp.CSS(`button.filter[data-type="task"]`)))
		waitFor(t, ctx, `location.search === "" && !document.querySelector("nav.pagination").hidden`)
	})
	t.Run("URLStateSurvivesReload", func(t *testing.T) {
		q := strings.ToLower(strings.Fields(name)[0])
		load(t, ctx, s.URL+"page/3/?"+url.Values{"q": {q}, "type": {"api"}}.Encode())
		waitFor(t, ctx, `document.documentElement.dataset.search === "ready"`)
		before := eval[[]string](t, ctx, cardsJS)
		if len(before) == 0 {
			t.Fatalf("no results for %q in api", q)
		}
		do(t, ctx, chromedp.Reload())
		waitFor(t, ctx, `document.documentElement.dataset.search === "ready"`)
		if after := eval[[]string](t, ctx, cardsJS); !slices.Equal(after, before) {
			t.Errorf("after a reload: %d results, want the same %d", len(after), len(before))
		}
		if v := eval[string](t, ctx, `document.getElementById("q").value`); v != q {
			t.Errorf("search box after reload: %q, want %q", v, q)
		}
	})
	// Shards were fetched as the queries needed them, never all of them.
	var fetched int
	for _, u := range w.requests() {
		if strings.Contains(u, "/search/index/") {
			fetched++
		}
	}
	var man struct{ Shards [][]any }
	readJSON(t, filepath.Join(s.Dir, "search", "manifest.json"), &man)
	if fetched == 0 || fetched >= len(man.Shards) {
		t.Errorf("fetched %d of %d shards", fetched, len(man.Shards))
	}
	if p := w.problems(); len(p) > 0 {
		t.Errorf("browser problems:\n%s", strings.Join(p, "\n"))
	}
}

// TestSearchShardFailure serves the site with its index shards failing:
// the page says the search is unavailable, and keeps the listing.
func TestSearchShardFailure(t *testing.T) {
	s := pagedSite(t)
	site := siteHandler(s.Dir, true)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/search/index/") {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		site.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ctx := newTab(t)
	w := watch(t, ctx, srv.URL)
	w.allow = func(p string) bool { return strings.Contains(p, "/search/index/") }
	load(t, ctx, srv.URL+"/")
	typeQuery(t, ctx, "weather")
	waitFor(t, ctx, `document.documentElement.dataset.search === "error"`)
	msg := eval[string](t, ctx, `(e => e.hidden ? "" : e.textContent)(document.getElementById("search-error"))`)
	if !strings.Contains(msg, "could not be loaded") || !strings.Contains(msg, "search/index/") || !strings.Contains(msg, "503") {
		t.Errorf("error message %q, want it to name the shard and the failure", msg)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#skills .card:not([hidden])").length`); n != build.ListingPageSize {
		t.Errorf("after the failure the page shows %d cards, want the listing's %d", n, build.ListingPageSize)
	}
	if p := w.problems(); len(p) > 0 {
		t.Errorf("browser problems:\n%s", strings.Join(p, "\n"))
	}
}

// name is a skill's name, from its descriptor.
func (c catalogText) name(id string) string { return c.names[id] }

// TestPagingAccessibility runs axe-core on the numbered pages and on
// search results, light and dark.
func TestPagingAccessibility(t *testing.T) {
	src, err := os.ReadFile(npmTool(t, "axe-core/axe.min.js", "axe-core"))
	if err != nil {
		t.Fatal(err)
	}
	s := pagedSite(t)
	id, _ := lastSkill(t, s)
	type violation struct {
		ID, Impact, Help string
		Nodes            []struct {
			Target         []any
			FailureSummary string
		}
	}
	for _, sch := range []string{"light", "dark"} {
		for _, p := range []string{"", "page/2/", "types/api/page/2/", "?q=" + url.QueryEscape(id)} {
			ctx := newTab(t) // a tab each: axe takes a while over 100 cards
			do(t, ctx, viewport(1280, 900), scheme(sch))
			load(t, ctx, s.URL+p)
			waitFor(t, ctx, `!document.body.classList.contains("page-home") || ["idle", "ready"].includes(document.documentElement.dataset.search)`)
			eval[bool](t, ctx, string(src)+"\n;true")
			for _, v := range eval[[]violation](t, ctx, `axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations)`) {
				if v.Impact != "serious" && v.Impact != "critical" {
					t.Logf("/%s %s: %s (%s) %s", p, sch, v.ID, v.Impact, v.Help)
					continue
				}
				var where []string
				for _, n := range v.Nodes {
					where = append(where, fmt.Sprint(n.Target)+": "+n.FailureSummary)
				}
				t.Errorf("/%s %s: %s (%s): %s\n    %s", p, sch, v.ID, v.Impact, v.Help, strings.Join(where, "\n    "))
			}
		}
	}
}

// pagedPages are the listing pages of the generated catalog that the Nu
// checker reads: the first, second and last home pages and a type's second.
func pagedPages(t *testing.T) []string {
	s := pagedSite(t)
	last := strconv.Itoa(len(listing(t, s)))
	var files []string
	for _, p := range []string{"index.html", "page/2/index.html", "page/" + last + "/index.html", "types/api/page/2/index.html"} {
		files = append(files, filepath.Join(s.Dir, filepath.FromSlash(p)))
	}
	return files
}

// TestPagingScreenshots photographs, for people to look at, a numbered
// page, its page navigation at desktop and phone widths, search results
// with "Show more", and the message of a failed search.
func TestPagingScreenshots(t *testing.T) {
	s := pagedSite(t)
	dir := artifactsDir(t)
	ctx := newTab(t)
	shot := func(name string, act chromedp.Action[[]byte]) {
		t.Helper()
		img, err := chromedp.Run(ctx, act)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".png"), img, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, width := range []int64{1280, 390} {
		do(t, ctx, viewport(width, 900), scheme("light"))
		load(t, ctx, s.URL+"page/9/")
		if over := eval[float64](t, ctx, `document.documentElement.scrollWidth - document.documentElement.clientWidth`); over > 0 {
			t.Errorf("page 9 at %dpx is %vpx wider than the screen", width, over)
		}
		w := strconv.FormatInt(width, 10)
		eval[bool](t, ctx, `document.querySelector("nav.pagination").scrollIntoView({block: "center"}), true`)
		shot("paged-nav-"+w, chromedp.CaptureScreenshot())
		eval[bool](t, ctx, `window.scrollTo(0, 0), true`)
		shot("paged-top-"+w, chromedp.CaptureScreenshot())
	}
	do(t, ctx, viewport(1280, 900), scheme("dark"))
	id, name := lastSkill(t, s)
	load(t, ctx, s.URL+"?q="+url.QueryEscape(strings.ToLower(strings.Fields(name)[0])))
	waitFor(t, ctx, `document.documentElement.dataset.search === "ready"`)
	shot("paged-results-dark-1280", chromedp.CaptureScreenshot())
	eval[bool](t, ctx, `document.getElementById("more").scrollIntoView({block: "center"}), true`)
	shot("paged-more-dark-1280", chromedp.CaptureScreenshot())
	do(t, ctx, scheme("light"))
	load(t, ctx, s.URL+"?q="+url.QueryEscape(id))
	waitFor(t, ctx, `document.documentElement.dataset.search === "ready"`)
	shot("paged-id-1280", chromedp.CaptureScreenshot())
	t.Logf("screenshots in %s", dir)
}
