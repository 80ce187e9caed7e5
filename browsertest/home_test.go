package browsertest

import (
	"context"
	"encoding/json"
	"maps"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"golang.org/x/text/unicode/norm"

	skillcat "github.com/skillcat/skillcat"
)

// sample is the repository's sample catalog.
const sample = "../content"

// visibleJS lists the ids of the cards on screen.
const visibleJS = `Array.from(document.querySelectorAll("#skills .card")).filter(c => c.offsetParent !== null).map(c => c.dataset.id).sort()`

// catalogText is what the search box looks at for each listed skill, read
// from the published documents (descriptors and index), not from the page.
type catalogText struct {
	ids   []string
	text  map[string][]string // id → the words of its id, name, summary, provider, tags and description
	typ   map[string]string
	tags  map[string][]string
	prov  map[string]string
	sum   map[string]string
	names map[string]string
}

func readCatalog(t *testing.T, s *site) catalogText {
	t.Helper()
	c := catalogText{text: map[string][]string{}, typ: map[string]string{}, tags: map[string][]string{}, prov: map[string]string{}, sum: map[string]string{}, names: map[string]string{}}
	for _, e := range s.Index.Skills {
		var d skillcat.SkillDescriptor
		readJSON(t, filepath.Join(s.Dir, "skills", e.ID+".json"), &d)
		c.ids = append(c.ids, e.ID)
		c.typ[e.ID] = string(e.CapabilityType)
		c.tags[e.ID] = d.Tags
		c.prov[e.ID] = d.Provider.Name
		c.sum[e.ID] = e.Summary
		c.names[e.ID] = d.Name
		c.text[e.ID] = words(strings.Join([]string{e.ID, d.Name, e.Summary, d.Provider.Name, strings.Join(d.Tags, " "), d.Description}, "\n"))
	}
	slices.Sort(c.ids)
	return c
}

// words splits text into the words the search rule speaks of: runs of
// letters and digits, lower-cased, accents removed.
func words(text string) []string {
	text = strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Mn, r) {
			return -1
		}
		return r
	}, norm.NFKD.String(strings.ToLower(text)))
	return strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
}

// match is the search rule the page promises: every word of the query
// begins a word of the skill's id, name, summary, provider, tags or
// description, ignoring case and accents.
func (c catalogText) match(query, typ string) []string {
	qwords := words(query)
	out := []string{}
	for _, id := range c.ids {
		if typ != "" && c.typ[id] != typ {
			continue
		}
		ok := true
		for _, w := range qwords {
			if !slices.ContainsFunc(c.text[id], func(t string) bool { return strings.HasPrefix(t, w) }) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, id)
		}
	}
	return out
}

func visible(t *testing.T, ctx context.Context) []string {
	t.Helper()
	return eval[[]string](t, ctx, visibleJS)
}

// waitVisible waits until the page shows exactly want (sorted ids).
func waitVisible(t *testing.T, ctx context.Context, what string, want []string) {
	t.Helper()
	js, _ := json.Marshal(want)
	pctx, cancel := context.WithTimeout(ctx, 5e9)
	defer cancel()
	if _, err := chromedp.Run(pctx, chromedp.Poll[bool](`JSON.stringify(`+visibleJS+`) === `+"`"+string(js)+"`")); err != nil {
		t.Fatalf("%s: got %v, want %v", what, visible(t, ctx), want)
	}
}

// typeQuery replaces the search box's text by typing, key by key.
func typeQuery(t *testing.T, ctx context.Context, q string) {
	t.Helper()
	cur := eval[string](t, ctx, `document.getElementById("q").value`)
	do(t, ctx,
		chromedp.Focus(chromedp.ID("q")),
		chromedp.KeyEvent(kb.End+strings.Repeat(kb.Backspace, len([]rune(cur)))),
	)
	if q != "" {
		do(t, ctx, chromedp.SendKeys(chromedp.ID("q"), q))
	}
	// The page filters once per frame; it has caught up when the URL holds
	// the whole query.
	want, _ := json.Marshal(strings.TrimSpace(q))
	waitFor(t, ctx, `(new URLSearchParams(location.search).get("q") || "") === `+string(want))
}

func TestHome(t *testing.T) {
	s := builtSite(t, sample, true)
	cat := readCatalog(t, s)
	ctx := newTab(t)
	w := watch(t, ctx, s.Origin)
	load(t, ctx, s.URL)

	fetchedIndex := func() bool {
		return slices.ContainsFunc(w.requests(), func(u string) bool { return strings.HasPrefix(u, s.URL+"search/") })
	}
	t.Run("IndexOnlyWhenNeeded", func(t *testing.T) {
		if fetchedIndex() {
			t.Error("the search index was fetched before anyone searched")
		}
	})

	t.Run("ListsEverySkill", func(t *testing.T) {
		if got := visible(t, ctx); !slices.Equal(got, cat.ids) {
			t.Errorf("cards: got %v, want %v", got, cat.ids)
		}
	})

	t.Run("CountsListedOnly", func(t *testing.T) {
		counts := eval[map[string]string](t, ctx, `Object.fromEntries(Array.from(document.querySelectorAll(".filter")).map(b => [b.dataset.type || "all", b.querySelector(".count").textContent]))`)
		want := map[string]string{"all": strconv.Itoa(len(cat.ids))}
		for _, typ := range skillcat.CapabilityTypes {
			want[string(typ)] = strconv.Itoa(len(cat.match("", string(typ))))
		}
		if !maps.Equal(counts, want) {
			t.Errorf("type counts: got %v, want %v", counts, want)
		}
	})

	t.Run("TypeButtons", func(t *testing.T) {
		for _, typ := range skillcat.CapabilityTypes {
			sel := `button.filter[data-type="` + string(typ) + `"]`
			do(t, ctx, chromedp.Click(chromedp.CSS(sel)))
			waitVisible(t, ctx, "type "+string(typ), cat.match("", string(typ)))
			if p := eval[string](t, ctx, `document.querySelector('`+sel+`').getAttribute("aria-pressed")`); p != "true" {
				t.Errorf("%s: aria-pressed %q, want true", typ, p)
			}
			if q := eval[string](t, ctx, `location.search`); q != "?type="+string(typ) {
				t.Errorf("%s: URL query %q, want ?type=%s", typ, q, typ)
			}
		}
		do(t, ctx, chromedp.Click(chromedp.CSS(`button.filter[data-type=""]`)))
		waitVisible(t, ctx, "all types", cat.ids)
		if q := eval[string](t, ctx, `location.search`); q != "" {
			t.Errorf("URL query after All: %q, want none", q)
		}
	})

	queries := searchQueries(t, cat)
	for _, q := range queries {
		t.Run("Search/"+q.name, func(t *testing.T) {
			typeQuery(t, ctx, q.query)
			want := cat.match(q.query, "")
			for _, id := range q.mustFind {
				if !slices.Contains(want, id) {
					t.Fatalf("query %q: rule does not find %s", q.query, id)
				}
			}
			if len(want) == 0 || len(want) == len(cat.ids) {
				t.Fatalf("query %q finds %d of %d skills: not a useful test", q.query, len(want), len(cat.ids))
			}
			waitVisible(t, ctx, "search "+q.query, want)
			waitFor(t, ctx, `document.documentElement.dataset.search === "ready"`)
			if !fetchedIndex() {
				t.Error("searched without fetching the search index")
			}
			if got := eval[string](t, ctx, `new URLSearchParams(location.search).get("q")`); got != q.query {
				t.Errorf("URL q: got %q, want %q", got, q.query)
			}
		})
	}

	t.Run("SearchWithinType", func(t *testing.T) {
		q := queries[0]
		typeQuery(t, ctx, q.query)
		typ := cat.typ[q.mustFind[0]]
		do(t, ctx, chromedp.Click(chromedp.CSS(`button.filter[data-type="`+typ+`"]`)))
		waitVisible(t, ctx, "search "+q.query+" in "+typ, cat.match(q.query, typ))
		do(t, ctx, chromedp.Click(chromedp.CSS(`button.filter[data-type="`+typ+`"]`))) // toggles off
		waitVisible(t, ctx, "search "+q.query+" in all", cat.match(q.query, ""))
	})

	t.Run("NoMatch", func(t *testing.T) {
		typeQuery(t, ctx, "zzzz-no-such-skill")
		waitVisible(t, ctx, "no match", []string{})
		waitFor(t, ctx, `!document.getElementById("empty").hidden`)
		do(t, ctx, chromedp.Click(chromedp.ID("clear")))
		waitVisible(t, ctx, "after Show all", cat.ids)
		if v := eval[string](t, ctx, `document.getElementById("q").value`); v != "" {
			t.Errorf("search box after Show all: %q, want empty", v)
		}
	})

	t.Run("ClearingRestoresAll", func(t *testing.T) {
		typeQuery(t, ctx, queries[0].query)
		waitVisible(t, ctx, "search", cat.match(queries[0].query, ""))
		typeQuery(t, ctx, "")
		waitVisible(t, ctx, "cleared", cat.ids)
		if q := eval[string](t, ctx, `location.search`); q != "" {
			t.Errorf("URL query after clearing: %q, want none", q)
		}
	})

	t.Run("TagLinkSearches", func(t *testing.T) {
		tag := queries[0].query
		do(t, ctx, chromedp.Click(chromedp.CSS(`#skills .tags a[href$="?q=`+tag+`"]`)))
		waitVisible(t, ctx, "tag "+tag, cat.match(tag, ""))
		typeQuery(t, ctx, "")
	})

	if p := w.problems(); len(p) > 0 {
		t.Errorf("browser problems on the home page:\n%s", strings.Join(p, "\n"))
	}
}

// TestURLState checks that the query and the type live in the URL: a shared
// link opens the same search, and a reload keeps it.
func TestURLState(t *testing.T) {
	s := builtSite(t, sample, true)
	cat := readCatalog(t, s)
	q := searchQueries(t, cat)[1] // a provider name
	typ := cat.typ[q.mustFind[0]]
	ctx := newTab(t)
	w := watch(t, ctx, s.Origin)

	check := func(t *testing.T, when string) {
		t.Helper()
		waitVisible(t, ctx, when, cat.match(q.query, typ))
		if v := eval[string](t, ctx, `document.getElementById("q").value`); v != q.query {
			t.Errorf("%s: search box %q, want %q", when, v, q.query)
		}
		if p := eval[string](t, ctx, `document.querySelector('button.filter[aria-pressed="true"]').dataset.type`); p != typ {
			t.Errorf("%s: pressed type %q, want %q", when, p, typ)
		}
	}

	t.Run("SharedLink", func(t *testing.T) {
		load(t, ctx, s.URL+"?"+url.Values{"q": {q.query}, "type": {typ}}.Encode())
		check(t, "opened")
		do(t, ctx, chromedp.Reload())
		waitFor(t, ctx, `document.documentElement.hasAttribute("data-search")`)
		check(t, "reloaded")
	})

	t.Run("TypedThenReloaded", func(t *testing.T) {
		load(t, ctx, s.URL)
		typeQuery(t, ctx, q.query)
		do(t, ctx, chromedp.Click(chromedp.CSS(`button.filter[data-type="`+typ+`"]`)))
		check(t, "typed")
		got := eval[string](t, ctx, `location.search`)
		u, _ := url.ParseQuery(strings.TrimPrefix(got, "?"))
		if u.Get("q") != q.query || u.Get("type") != typ {
			t.Errorf("URL query %q, want q=%q and type=%q", got, q.query, typ)
		}
		do(t, ctx, chromedp.Reload())
		waitFor(t, ctx, `document.documentElement.hasAttribute("data-search")`)
		check(t, "reloaded")
	})

	t.Run("UnknownTypeIgnored", func(t *testing.T) {
		load(t, ctx, s.URL+"?type=nonsense")
		waitVisible(t, ctx, "unknown type", cat.ids)
	})

	if p := w.problems(); len(p) > 0 {
		t.Errorf("browser problems:\n%s", strings.Join(p, "\n"))
	}
}

// TestWithoutJavaScript checks the page still lists everything, and the type
// filter still works as links to the type pages.
func TestWithoutJavaScript(t *testing.T) {
	s := builtSite(t, sample, true)
	cat := readCatalog(t, s)
	ctx := newTab(t)
	do(t, ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	}))
	do(t, ctx, chromedp.Navigate(s.URL))
	if got := visible(t, ctx); !slices.Equal(got, cat.ids) {
		t.Errorf("cards without JavaScript: got %v, want %v", got, cat.ids)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#filters a.filter").length`); n != len(skillcat.CapabilityTypes)+1 {
		t.Errorf("type filter links: got %d, want %d", n, len(skillcat.CapabilityTypes)+1)
	}
	if eval[bool](t, ctx, `!document.getElementById("search").hidden`) {
		t.Error("the search box shows without JavaScript, where it cannot work")
	}
	for _, typ := range skillcat.CapabilityTypes {
		do(t, ctx, chromedp.Navigate(s.URL))
		resp, err := chromedp.RunResponse(ctx, chromedp.Click(chromedp.CSS(`#filters a.filter[data-type="`+string(typ)+`"]`)))
		if err != nil {
			t.Fatal(err)
		}
		if want := s.URL + "types/" + string(typ) + "/"; resp.URL != want || resp.Status != 200 {
			t.Fatalf("type link leads to %s (HTTP %d), want %s", resp.URL, resp.Status, want)
		}
		if got := visible(t, ctx); !slices.Equal(got, cat.match("", string(typ))) {
			t.Errorf("type page %s: got %v, want %v", typ, got, cat.match("", string(typ)))
		}
	}
}

// TestKeyboard walks the home page with the keyboard: the skip link comes
// first, focus is always visible, and the filter answers to Space.
func TestKeyboard(t *testing.T) {
	s := builtSite(t, sample, true)
	cat := readCatalog(t, s)
	ctx := newTab(t)
	load(t, ctx, s.URL)

	const focused = `(() => { const e = document.activeElement; const s = getComputedStyle(e); return {tag: e.tagName, cls: e.className, id: e.id, type: e.dataset ? (e.dataset.type ?? null) : null, outline: s.outlineStyle, width: s.outlineWidth}; })()`
	type focus struct {
		Tag, Cls, ID string
		Type         *string
		Outline      string
		Width        string
	}
	do(t, ctx, chromedp.KeyEvent(kb.Tab))
	f := eval[focus](t, ctx, focused)
	if f.Cls != "skip-link" {
		t.Fatalf("first Tab focuses %+v, want the skip link", f)
	}
	if f.Outline == "none" || f.Width == "0px" {
		t.Errorf("skip link focus is not visible: outline %s %s", f.Outline, f.Width)
	}
	if top := eval[float64](t, ctx, `document.activeElement.getBoundingClientRect().top`); top < 0 {
		t.Errorf("focused skip link is off screen (top %v)", top)
	}

	// Tab on until the search box, checking every stop shows its focus.
	for i := 0; i < 30; i++ {
		do(t, ctx, chromedp.KeyEvent(kb.Tab))
		f = eval[focus](t, ctx, focused)
		if f.Outline == "none" && f.ID != "q" {
			t.Errorf("focus on %s.%s is not visible", f.Tag, f.Cls)
		}
		if f.ID == "q" {
			break
		}
	}
	if f.ID != "q" {
		t.Fatalf("Tab never reached the search box; stopped at %+v", f)
	}
	typeQuery(t, ctx, "")
	do(t, ctx, chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Tab)) // All, then the first type
	f = eval[focus](t, ctx, focused)
	if f.Tag != "BUTTON" || f.Type == nil || *f.Type == "" {
		t.Fatalf("two Tabs after the search box focus %+v, want a type button", f)
	}
	do(t, ctx, chromedp.KeyEvent(" "))
	waitVisible(t, ctx, "type by keyboard", cat.match("", *f.Type))
	do(t, ctx, chromedp.KeyEvent(" "))
	waitVisible(t, ctx, "type off by keyboard", cat.ids)

	// "/" jumps to the search box.
	do(t, ctx, chromedp.Focus(chromedp.CSS(`#skills a`)), chromedp.KeyEvent("/"))
	if id := eval[string](t, ctx, `document.activeElement.id`); id != "q" {
		t.Errorf(`"/" focuses %q, want the search box`, id)
	}
}

type searchQuery struct {
	name     string
	query    string
	mustFind []string // skills the query is about
}

// searchQueries picks, from the catalog itself, a tag shared by several
// skills, the name of a provider with few skills, and a word that only one
// skill's summary has.
func searchQueries(t *testing.T, c catalogText) []searchQuery {
	t.Helper()
	// The most used tag (ties: the first by name).
	tagged := map[string][]string{}
	for _, id := range c.ids {
		for _, tag := range c.tags[id] {
			tagged[tag] = append(tagged[tag], id)
		}
	}
	var tag string
	for tg, ids := range tagged {
		if len(ids) > len(tagged[tag]) || (len(ids) == len(tagged[tag]) && tg < tag) {
			tag = tg
		}
	}
	// The provider with the fewest skills (ties: the first by name).
	byProv := map[string][]string{}
	for _, id := range c.ids {
		byProv[c.prov[id]] = append(byProv[c.prov[id]], id)
	}
	var prov string
	for p, ids := range byProv {
		if prov == "" || len(ids) < len(byProv[prov]) || (len(ids) == len(byProv[prov]) && p < prov) {
			prov = p
		}
	}
	// A summary word of 6+ letters that finds exactly one skill.
	var word, wordID string
	for _, id := range c.ids {
		for _, f := range strings.FieldsFunc(c.sum[id], func(r rune) bool { return !unicode.IsLetter(r) }) {
			if len([]rune(f)) >= 6 && len(c.match(f, "")) == 1 {
				word, wordID = strings.ToLower(f), id
				break
			}
		}
		if word != "" {
			break
		}
	}
	// A word of the description alone (not of the name, summary, tags or
	// provider) that finds exactly one skill.
	var desc, descID string
	for _, id := range c.ids {
		other := words(strings.Join([]string{id, c.sum[id], c.prov[id], strings.Join(c.tags[id], " ")}, " "))
		for _, f := range c.text[id] {
			if len([]rune(f)) >= 5 && !slices.Contains(other, f) && len(c.match(f, "")) == 1 {
				desc, descID = f, id
				break
			}
		}
		if desc != "" {
			break
		}
	}
	if tag == "" || prov == "" || word == "" || desc == "" {
		t.Fatalf("catalog too small to pick queries: tag %q, provider %q, word %q, description word %q", tag, prov, word, desc)
	}
	// The id of the last skill, which today's pages show on its card's page.
	id := c.ids[len(c.ids)-1]
	return []searchQuery{
		{"Tag", tag, tagged[tag]},
		{"Provider", prov, byProv[prov]},
		{"SummaryWord", word, []string{wordID}},
		{"Id", id, []string{id}},
		{"DescriptionWord", desc, []string{descID}},
		{"Prefix", desc[:4], []string{descID}},
	}
}
