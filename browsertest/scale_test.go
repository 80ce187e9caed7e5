package browsertest

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"html"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skillcat/skillcat/build"
	"github.com/skillcat/skillcat/synth"
)

// TestScaleFigures prints the figures of the paging issue's targets for
// generated catalogs of the sizes in $SKILLCAT_SCALE (comma-separated, such
// as 10000,100000): the largest HTML page, the home page's first view
// gzipped, the bytes of search files a one-word query fetches as it is
// typed, the time from the last keystroke to the results in headless
// Chromium, and whether every listed skill is reachable from / by links;
// with the build's time, the search index's share of it and its file
// count. It is a measurement, not a test: it runs only when asked.
//
//	SKILLCAT_SCALE=10000,100000 go test ./browsertest -run TestScaleFigures -v -timeout 3h
//
// $SKILLCAT_SCALE_DIR is where the catalogs and sites go (default: a
// temporary folder); 100,000 skills take about 4 GB. With
// $SKILLCAT_SCALE_REUSE set, a site built there before is measured again
// without building it.
func TestScaleFigures(t *testing.T) {
	sizes := os.Getenv("SKILLCAT_SCALE")
	if sizes == "" {
		t.Skip("a measurement: set SKILLCAT_SCALE=10000,100000 to run it")
	}
	root := os.Getenv("SKILLCAT_SCALE_DIR")
	if root == "" {
		root = t.TempDir()
	}
	for _, f := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			t.Fatalf("SKILLCAT_SCALE: %q is not a size", f)
		}
		scaleFigures(t, root, n)
	}
}

func scaleFigures(t *testing.T, root string, n int) {
	content := filepath.Join(root, fmt.Sprintf("content-%d", n))
	out := filepath.Join(root, fmt.Sprintf("site-%d", n))
	if _, err := os.Stat(content); err != nil {
		if err := synth.Write(content, n, 1); err != nil {
			t.Fatal(err)
		}
	}
	var res *build.Result
	if _, err := os.Stat(out); err == nil && os.Getenv("SKILLCAT_SCALE_REUSE") != "" {
		// Measure the pages of the site built before.
		report := fmt.Sprintf("N=%d  reusing the site in %s", n, out)
		fmt.Println(report)
		res = &build.Result{Published: len(readIndex(t, out))}
	} else {
		os.RemoveAll(out)
		start := time.Now()
		var err error
		res, err = build.Build(context.Background(), build.Config{Content: os.DirFS(content), ContentLabel: content, ContentPath: content, Out: out})
		if err != nil {
			t.Fatal(err)
		}
		wall := time.Since(start)
		var searchTime time.Duration
		for _, p := range res.Phases {
			if strings.Contains(p.Name, "search") {
				searchTime = p.Duration
			}
		}
		line := fmt.Sprintf("N=%d  build %.1fs (search index %.2fs, %.1f%%); %d listed; the site is %d files, %.1f MiB",
			n, wall.Seconds(), searchTime.Seconds(), 100*searchTime.Seconds()/wall.Seconds(), res.Published, res.Output.Files, float64(res.Output.Bytes)/(1<<20))
		fmt.Println(line)
		t.Log(line)
	}
	report := func(format string, a ...any) {
		line := fmt.Sprintf("N=%d  ", n) + fmt.Sprintf(format, a...)
		fmt.Println(line)
		t.Log(line)
	}

	// Files: the largest HTML page, listing pages apart; the search files.
	var largest, largestListing int64
	var largestName, largestListingName string
	var searchFiles int
	var searchBytes int64
	err := filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(rel, "search/") {
			searchFiles++
			searchBytes += info.Size()
		}
		if !strings.HasSuffix(rel, ".html") {
			return nil
		}
		if info.Size() > largest {
			largest, largestName = info.Size(), rel
		}
		if !strings.HasPrefix(rel, "skills/") && info.Size() > largestListing {
			largestListing, largestListingName = info.Size(), rel
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	report("largest HTML page %.1f KB (%s); largest listing page %.1f KB (%s)", float64(largest)/1000, largestName, float64(largestListing)/1000, largestListingName)
	report("search index: %d files, %.1f MiB", searchFiles, float64(searchBytes)/(1<<20))

	// The home page's first view: the page and what it loads, gzipped.
	var first int
	for _, f := range []string{"index.html", "assets/style.css", "assets/highlight.css", "assets/app.js", "assets/search.js", "assets/favicon.svg"} {
		data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		first += gzipSize(data)
	}
	report("home page first view (HTML, CSS, JS, icon) %.1f KB gzipped", float64(first)/1000)

	// Every listed skill reachable from / by links.
	reached := crawl(t, out)
	missingN := 0
	for _, e := range readIndex(t, out) {
		if !reached[e] {
			missingN++
		}
	}
	report("reachable from / by links: %d of %d listed skills (%d missing)", res.Published-missingN, res.Published, missingN)

	// One-word queries, typed key by key in a fresh tab each.
	srv := httptest.NewServer(siteHandler(out, true))
	defer srv.Close()
	for _, q := range scaleQueries(t, out) {
		ctx := newTab(t)
		w := watch(t, ctx, srv.URL)
		load(t, ctx, srv.URL+"/")
		eval[bool](t, ctx, `(() => {
			window.__key = 0; window.__shown = 0;
			document.addEventListener("keydown", () => { window.__key = performance.now(); window.__shown = 0; }, true);
			new MutationObserver(() => {
				if (document.documentElement.dataset.search === "ready") window.__shown = performance.now();
			}).observe(document.documentElement, {attributes: true, attributeFilter: ["data-search"]});
			return true;
		})()`)
		typeQuery(t, ctx, q)
		waitFor(t, ctx, `window.__shown > window.__key && document.documentElement.dataset.search === "ready"`)
		ms := eval[float64](t, ctx, `window.__shown - window.__key`)
		results := eval[string](t, ctx, `document.getElementById("status").textContent`)
		var fetched int64
		var files int
		for _, u := range w.requests() {
			pu, err := url.Parse(u)
			if err != nil || !strings.HasPrefix(pu.Path, "/search/") {
				continue
			}
			info, err := os.Stat(filepath.Join(out, filepath.FromSlash(pu.Path)))
			if err == nil {
				fetched += info.Size()
				files++
			}
		}
		report("query %-12q typed key by key: %d search files, %.1f KB fetched; results %.0f ms after the last key; %s", q, files, float64(fetched)/1000, ms, results)
	}
}

func gzipSize(data []byte) int {
	var b bytes.Buffer
	z, _ := gzip.NewWriterLevel(&b, gzip.DefaultCompression)
	z.Write(data)
	z.Close()
	return b.Len()
}

// crawl follows <a href> links from index.html through the site's pages
// and returns the ids of the skill pages reached.
func crawl(t *testing.T, out string) map[string]bool {
	t.Helper()
	href := regexp.MustCompile(`<a\b[^>]*\shref="([^"]*)"`)
	seen := map[string]bool{"": true}
	queue := []string{""}
	reached := map[string]bool{}
	for len(queue) > 0 {
		page := queue[0]
		queue = queue[1:]
		if id, ok := strings.CutPrefix(page, "skills/"); ok {
			if _, err := os.Stat(filepath.Join(out, filepath.FromSlash(page), "index.html")); err == nil {
				reached[strings.TrimSuffix(id, "/")] = true
			}
			continue
		}
		data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(page), "index.html"))
		if err != nil {
			continue
		}
		base, _ := url.Parse("https://site.test/" + page)
		for _, m := range href.FindAllSubmatch(data, -1) {
			u, err := base.Parse(html.UnescapeString(string(m[1])))
			if err != nil || u.Host != "site.test" || !strings.HasSuffix(u.Path, "/") {
				continue
			}
			p := strings.TrimPrefix(u.Path, "/")
			if !seen[p] {
				seen[p] = true
				queue = append(queue, p)
			}
		}
	}
	return reached
}

func readIndex(t *testing.T, out string) []string {
	t.Helper()
	var idx struct{ Skills []struct{ ID string } }
	readJSON(t, filepath.Join(out, ".well-known", "skills.json"), &idx)
	ids := make([]string, len(idx.Skills))
	for i, e := range idx.Skills {
		ids[i] = e.ID
	}
	return ids
}

// scaleQueries are one-word queries a person would type: a word of the
// last skill's name, the most common tag, and the most common word of the
// descriptions ("the", the worst case for a prefix index).
func scaleQueries(t *testing.T, out string) []string {
	t.Helper()
	var docs [][]any
	readJSON(t, filepath.Join(out, "search", "docs", "0.json"), &docs)
	name := strings.ToLower(strings.Fields(docs[0][1].(string))[0])
	tags := map[string]int{}
	for _, d := range docs {
		for _, tag := range d[7].([]any) {
			tags[tag.(string)]++
		}
	}
	var tag string
	for tg, c := range tags {
		if c > tags[tag] || c == tags[tag] && tg < tag {
			tag = tg
		}
	}
	qs := []string{name, tag, "the"}
	return slices.Compact(qs)
}
