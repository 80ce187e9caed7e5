package browsertest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
)

// pageName names a page path for a subtest.
func pageName(p string) string {
	if p == "" {
		return "home"
	}
	return strings.TrimSuffix(p, "/")
}

// TestPagesClean loads every page of the sample catalog under the
// production Content-Security-Policy, light and dark, phone and desktop:
// no console errors or warnings (a CSP violation is one), no uncaught
// exceptions, no failed requests, and no request leaving the site.
func TestPagesClean(t *testing.T) {
	s := builtSite(t, sample, true)
	ctx := newTab(t)
	w := watch(t, ctx, s.Origin)
	notFound := s.URL + "no/such/page/"
	w.allow = func(p string) bool {
		// The 404 page itself comes with status 404, as it should.
		return strings.Contains(p, notFound) && (strings.Contains(p, "HTTP 404") || strings.Contains(p, "404 (Not Found)"))
	}
	pages := append(s.pages(t), "no/such/page/")
	for _, size := range []struct {
		w      int64
		scheme string
	}{{1280, "light"}, {390, "dark"}} {
		do(t, ctx, viewport(size.w, 900), scheme(size.scheme))
		for _, p := range pages {
			load(t, ctx, s.URL+p)
			if probs := w.problems(); len(probs) > 0 {
				t.Errorf("/%s at %dpx %s:\n  %s", p, size.w, size.scheme, strings.Join(probs, "\n  "))
			}
		}
	}
	for _, u := range w.requests() {
		if !strings.HasPrefix(u, s.URL) && !strings.HasPrefix(u, "data:") {
			t.Errorf("request off the site: %s", u)
		}
	}
}

// TestLinks follows every link and resource of every page (on the site's own
// origin) and expects each to be there.
func TestLinks(t *testing.T) {
	s := builtSite(t, sample, true)
	ctx := newTab(t)
	targets := map[string][]string{} // URL without fragment → pages linking to it
	for _, p := range append(s.pages(t), "no/such/page/") {
		load(t, ctx, s.URL+p)
		refs := eval[[]string](t, ctx, `Array.from(document.querySelectorAll("a[href], link[href], script[src], img[src], form[action]")).map(e => e.href || e.src || e.action)`)
		for _, r := range refs {
			u, err := url.Parse(r)
			if err != nil {
				t.Errorf("/%s: bad URL %q", p, r)
				continue
			}
			if u.Scheme+"://"+u.Host != s.Origin {
				continue
			}
			u.Fragment = ""
			if u.String() == s.URL+p {
				continue // a link within the page
			}
			if !slices.Contains(targets[u.String()], p) {
				targets[u.String()] = append(targets[u.String()], p)
			}
		}
	}
	for u, from := range targets {
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: HTTP %d, linked from %v", u, resp.StatusCode, from)
		}
	}
	if len(targets) < len(s.Index.Skills) {
		t.Errorf("only %d distinct link targets: the link scan found too little", len(targets))
	}
}

// TestSkillPage checks what a skill page promises beyond looks: every
// example's request and response, copy buttons that copy the JSON, the
// schema tables, and tags that search the home page.
func TestSkillPage(t *testing.T) {
	s := builtSite(t, sample, true)
	cat := readCatalog(t, s)
	ctx := newTab(t)
	w := watch(t, ctx, s.Origin)
	if _, err := chromedp.Run(ctx, func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.CallBrowser(ctx, browser.SetPermission, browser.SetPermissionParams{
			Permission: &browser.PermissionDescriptor{Name: "clipboard-write"},
			Setting:    browser.PermissionSettingGranted,
			Origin:     s.Origin,
		})
		if err != nil {
			return chromedp.Void{}, err
		}
		_, err = chromedp.CallBrowser(ctx, browser.SetPermission, browser.SetPermissionParams{
			Permission: &browser.PermissionDescriptor{Name: "clipboard-read"},
			Setting:    browser.PermissionSettingGranted,
			Origin:     s.Origin,
		})
		return chromedp.Void{}, err
	}); err != nil {
		t.Fatalf("grant clipboard permissions: %v", err)
	}

	for _, e := range s.Index.Skills {
		t.Run(e.ID, func(t *testing.T) {
			load(t, ctx, s.URL+"skills/"+e.ID+"/")
			var d struct {
				Examples []struct {
					Output any `json:"output"`
				} `json:"examples"`
				Tags []string `json:"tags"`
			}
			readJSON(t, s.Dir+"/skills/"+e.ID+".json", &d)
			type block struct {
				Title string
				JSON  string
				Copy  bool
			}
			blocks := eval[[]block](t, ctx, `Array.from(document.querySelectorAll(".example figure.codeblock")).map(f => ({title: f.querySelector(".codeblock-title").textContent, json: f.querySelector("pre code").textContent, copy: !!f.querySelector("button.copy")}))`)
			want := max(1, len(d.Examples))
			for _, ex := range d.Examples {
				if ex.Output != nil {
					want++
				}
			}
			if len(blocks) != want {
				t.Fatalf("example code blocks: got %d, want %d", len(blocks), want)
			}
			for i, b := range blocks {
				var v map[string]any
				if err := jsonUnmarshal(b.JSON, &v); err != nil {
					t.Errorf("block %d (%s) is not JSON: %v", i, b.Title, err)
				}
				if v["skill_id"] != e.ID {
					t.Errorf("block %d (%s): skill_id %v, want %s", i, b.Title, v["skill_id"], e.ID)
				}
				if !b.Copy {
					t.Errorf("block %d (%s) has no copy button", i, b.Title)
				}
			}
			if n := eval[int](t, ctx, `document.querySelectorAll("#inputs ~ .schema tbody tr, section[aria-labelledby=inputs] table.schema tbody tr").length`); n == 0 && !strings.Contains(eval[string](t, ctx, `document.querySelector("section[aria-labelledby=inputs]").textContent`), "Any JSON value") {
				t.Error("no inputs table")
			}
			tags := eval[[]string](t, ctx, `Array.from(document.querySelectorAll(".skill-head .tags a")).map(a => a.getAttribute("href"))`)
			for i, tag := range d.Tags {
				if i >= len(tags) || tags[i] != "../../?q="+tag {
					t.Errorf("tag %q links to %v, want ../../?q=%s", tag, tags, tag)
					break
				}
			}
			if ty := eval[string](t, ctx, `document.querySelector(".skill-facts .badge").textContent`); !strings.EqualFold(ty, cat.typ[e.ID]) {
				t.Errorf("type badge %q, want %s", ty, cat.typ[e.ID])
			}
		})
	}

	t.Run("CopyButton", func(t *testing.T) {
		id := s.Index.Skills[0].ID
		load(t, ctx, s.URL+"skills/"+id+"/")
		want := eval[string](t, ctx, `document.querySelector(".example pre code").textContent`)
		do(t, ctx, chromedp.Click(chromedp.CSS(".example button.copy")))
		waitFor(t, ctx, `document.querySelector(".example button.copy").dataset.state === "done"`)
		got := eval[string](t, ctx, `navigator.clipboard.readText()`)
		if got != want {
			t.Errorf("clipboard: got %q, want the request JSON %q", got, want)
		}
	})

	t.Run("TagSearchesHome", func(t *testing.T) {
		id := s.Index.Skills[0].ID
		tag := cat.tags[id][0]
		load(t, ctx, s.URL+"skills/"+id+"/")
		if _, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`.skill-head .tags a`))); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, `document.documentElement.hasAttribute("data-search")`)
		waitVisible(t, ctx, "tag "+tag, cat.match(tag, ""))
	})

	if p := w.problems(); len(p) > 0 {
		t.Errorf("browser problems:\n%s", strings.Join(p, "\n"))
	}
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// TestSubPath serves the site under /catalog/, as GitHub Pages serves a
// project site: the pages' relative links, styles, scripts and the search
// index must all still be found.
func TestSubPath(t *testing.T) {
	s := builtSite(t, sample, true)
	cat := readCatalog(t, s)
	srv := httptest.NewServer(http.StripPrefix("/catalog", siteHandler(s.Dir, true)))
	defer srv.Close()
	base := srv.URL + "/catalog/"
	ctx := newTab(t)
	w := watch(t, ctx, srv.URL)
	for _, p := range []string{"", "types/task/", "skills/" + cat.ids[0] + "/"} {
		load(t, ctx, base+p)
		if n := eval[int](t, ctx, `document.styleSheets.length`); n < 2 {
			t.Errorf("/catalog/%s: %d style sheets loaded", p, n)
		}
	}
	load(t, ctx, base+"?q="+url.QueryEscape(cat.tags[cat.ids[0]][0]))
	waitFor(t, ctx, `document.documentElement.getAttribute("data-search") === "ready"`)
	waitVisible(t, ctx, "search under a sub-path", cat.match(cat.tags[cat.ids[0]][0], ""))
	for _, u := range w.requests() {
		if !strings.HasPrefix(u, base) {
			t.Errorf("request outside /catalog/: %s", u)
		}
	}
	if p := w.problems(); len(p) > 0 {
		t.Errorf("browser problems:\n%s", strings.Join(p, "\n"))
	}
}
