package build

import (
	"errors"
	"fmt"
	"html/template"
	"io/fs"

	skillcat "github.com/skillcat/skillcat"
)

// SiteFile is the optional file in the content directory that sets the
// catalog's title, description (a one-line tagline) and logo in YAML front
// matter, with an intro in Markdown as its body. Its leading "_" keeps it
// from being a skill source.
const SiteFile = "_index.md"

// Site is the catalog's own settings.
type Site struct {
	Title       string
	Description string
	Logo        string        // a path inside the site, or an absolute URL
	Host        string        // where the site is deployed (Hosts), for its limits; "" for none
	Intro       template.HTML // rendered Markdown
	IntroSource string        // the intro's Markdown
	Exports     Exports       // the discovery formats published
}

// defaultSite is used when the content has no SiteFile.
var defaultSite = Site{Title: "Skill catalog", Description: "Skills published with the Skill Sharing Protocol.", Exports: allExports}

// readSite reads SiteFile, if there is one.
func readSite(fsys fs.FS, display func(string) string) (Site, skillcat.Violations) {
	data, err := fs.ReadFile(fsys, SiteFile)
	if errors.Is(err, fs.ErrNotExist) {
		return defaultSite, nil
	}
	name := display(SiteFile)
	if err != nil {
		return defaultSite, skillcat.Violations{{File: name, Line: 1, Column: 1, Field: skillcat.FileField,
			Reason: "cannot read file: " + plainErr(err), Severity: skillcat.SeverityError}}
	}
	src := &skillcat.Source{Name: name, Data: data}
	if vs := skillcat.CheckText(src); vs != nil {
		return defaultSite, vs
	}
	root, body, _, vs := parseFrontMatter(src)
	if vs != nil {
		return defaultSite, vs
	}
	site := defaultSite
	for _, f := range []struct {
		name string
		dst  *string
	}{{"title", &site.Title}, {"description", &site.Description}, {"logo", &site.Logo}, {"host", &site.Host}} {
		n := root.Get(f.name)
		if n == nil {
			continue
		}
		if n.Kind != skillcat.String || n.Text == "" {
			vs = append(vs, skillcat.Violation{File: name, Line: n.Line, Column: n.Column, Pointer: "/" + f.name, Field: f.name,
				Reason: "must be a non-empty string", Severity: skillcat.SeverityError})
			continue
		}
		if f.name == "host" {
			if _, ok := LookupHost(n.Text); !ok {
				vs = append(vs, skillcat.Violation{File: name, Line: n.Line, Column: n.Column, Pointer: "/host", Field: "host",
					Reason: fmt.Sprintf("unknown host %q; one of %s", n.Text, HostNames()), Severity: skillcat.SeverityError})
				continue
			}
		}
		*f.dst = n.Text
	}
	var evs skillcat.Violations
	site.Exports, evs = readExports(name, root.Get("exports"))
	vs = append(vs, evs...)
	if body != "" {
		site.IntroSource = body
		html, err := renderMarkdown(body)
		if err != nil {
			return site, append(vs, skillcat.Violation{File: name, Line: 1, Column: 1, Field: skillcat.FileField,
				Reason: "cannot render Markdown: " + err.Error(), Severity: skillcat.SeverityError})
		}
		site.Intro = template.HTML(html)
	}
	return site, vs
}
