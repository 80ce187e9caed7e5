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
