package build

import (
	"bytes"
	"html/template"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skillcat/skillcat/store"
	"github.com/skillcat/skillcat/templates"
)

// TestSkillListIsTheTemplate checks that skillList writes the bytes the
// built-in "skill-list" template does, on listing pages at every depth,
// for cards whose every text needs escaping.
func TestSkillListIsTheTemplate(t *testing.T) {
	var items []listItem
	for i, h := range hostileTexts {
		items = append(items, listItem{&store.Row{ID: "x." + h, Name: h, Summary: h, CapabilityType: []string{"api", "task", h}[i%3],
			Access: []string{"public", "restricted", h}[i%3], Version: h, ProviderName: h, Tags: []string{h, "plain"}[:1+i%2]}})
	}
	items = append(items, listItem{&store.Row{ID: "plain", Name: "Plain", CapabilityType: "api", Access: "public"}})
	for _, cfg := range []Config{{}, {BaseURL: "https://cat.example/sub/"}} {
		p, err := newPages(cfg, defaultSite)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"home.html", "type.html"} {
			tmpl := p.tmpls[name]
			list := skillListFunc(p.routes, tmpl)[skillListName].(func(*page) (template.HTML, error))
			for _, file := range []string{p.routes.listingPage("", 1), p.routes.listingPage("", 3), p.routes.listingPage("api", 1), p.routes.listingPage("task", 2)} {
				pg := p.newPage(file, "t", nil)
				pg.Skills = items
				var want bytes.Buffer
				if err := tmpl.ExecuteTemplate(&want, skillListTemplate, pg); err != nil {
					t.Fatal(err)
				}
				got, err := list(pg)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != want.String() {
					t.Errorf("%s on %s: skillList differs from the template\n%s", name, file, firstDiff([]byte(got), want.Bytes()))
				}
			}
		}
	}
}

// TestSkillListOverride checks that a site's own "skill-list" is what the
// listing pages show.
func TestSkillListOverride(t *testing.T) {
	data, err := fs.ReadFile(templates.FS(), "partials.html")
	if err != nil {
		t.Fatal(err)
	}
	mine := bytes.Replace(data, []byte(`<ul class="cards" id="skills">`), []byte(`<ul class="cards mine" id="skills">`), 1)
	p, err := newPages(Config{Templates: fstest.MapFS{"partials.html": {Data: mine}}}, defaultSite)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	err = p.listings([]listItem{{&store.Row{ID: "a", Name: "A", CapabilityType: "api", Access: "public"}}}, map[string]int{"api": 1}, "",
		func(string, string) bool { return false },
		func(file string, data []byte, _ string) error { files[file] = data; return nil })
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{p.routes.listingPage("", 1), p.routes.listingPage("api", 1)} {
		if !strings.Contains(string(files[file]), `<ul class="cards mine"`) {
			t.Errorf("%s: the site's skill-list is not used:\n%s", file, files[file])
		}
	}
}

// TestListItemHoldsOnlyTheKey checks that a listing template (a site's own,
// with --templates) can read of a skill only what listingKey holds: a
// field left out of the key, such as the row's digest or source path,
// would leave a rebuild's listing pages stale when only it changed
// (f9e848e embedded the whole row: a card showing {{.Digest}} kept the
// old digest after a description's later paragraphs changed).
func TestListItemHoldsOnlyTheKey(t *testing.T) {
	row := store.Row{ID: "a.b", Name: "N", Version: "1.0.0", CapabilityType: "api", Access: "public", Summary: "S",
		ProviderName: "P", Tags: []string{"t"}, Source: "g/a.json", Descriptor: []byte("{}"), Digest: "sha256:00"}
	item := items([]store.Row{row})[0]
	run := func(text string) (string, error) {
		var b strings.Builder
		err := template.Must(template.New("t").Parse(text)).Execute(&b, item)
		return b.String(), err
	}
	if got, err := run(`{{.ID}} {{.Name}} {{.Summary}} {{.Type}} {{.Access}} {{.Version}} {{.Provider}}{{range .Tags}} {{.}}{{end}}`); err != nil || got != "a.b N S api public 1.0.0 P t" {
		t.Errorf("the keyed fields: %q, %v", got, err)
	}
	for _, field := range []string{"Source", "Descriptor", "Digest", "Row"} {
		if got, err := run("{{." + field + "}}"); err == nil {
			t.Errorf("a template reads .%s of a listed skill (%q), which listingKey does not hold", field, got)
		}
	}
}
