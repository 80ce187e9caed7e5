package build

import (
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/url"
	"path"
	"strings"

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

	logoLine, logoColumn int // where logo is set in SiteFile
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
		if f.name == "title" || f.name == "description" {
			*f.dst = skillcat.Printable(n.Text) // shown as HTML text, as a skill's name is
		}
		if f.name == "logo" {
			site.logoLine, site.logoColumn = n.Line, n.Column
		}
	}
	var evs skillcat.Violations
	site.Exports, evs = readExports(name, root.Get("exports"))
	vs = append(vs, evs...)
	if body != "" {
		site.IntroSource = body
		html, err := renderMarkdown(skillcat.Printable(body))
		if err != nil {
			return site, append(vs, skillcat.Violation{File: name, Line: 1, Column: 1, Field: skillcat.FileField,
				Reason: "cannot render Markdown: " + err.Error(), Severity: skillcat.SeverityError})
		}
		site.Intro = template.HTML(html)
	}
	return site, vs
}

// checkLogo reports a logo the pages could not show: the pages' strict
// Content-Security-Policy lets an image come only from the site itself or a
// data:image URL, so the logo must be one of those, and a path must name a
// file the site will have (an asset shipped with --templates).
func (s Site) checkLogo(name string, assets fs.FS) skillcat.Violations {
	if s.Logo == "" {
		return nil
	}
	reason := ""
	u, err := url.Parse(s.Logo)
	switch {
	case err != nil:
		reason = fmt.Sprintf("%q is not a valid URL", s.Logo)
	case strings.EqualFold(u.Scheme, "data"):
		if !strings.HasPrefix(strings.ToLower(u.Opaque), "image/") {
			reason = fmt.Sprintf("a data: logo must be an image (data:image/...); got %q", abbreviate(s.Logo))
		}
	case u.Scheme != "" || u.Host != "":
		reason = fmt.Sprintf("must be a path inside the site, such as assets/logo.svg; %q is %s, which the pages' Content-Security-Policy would block", s.Logo, elsewhere(u))
	default:
		p := strings.TrimPrefix(path.Clean("/"+u.Path), "/")
		if info, err := fs.Stat(assets, p); err != nil || !info.Mode().IsRegular() {
			reason = fmt.Sprintf("%q is not a file of the site: ship it with --templates DIR, as DIR/%s", s.Logo, p)
		}
	}
	if reason == "" {
		return nil
	}
	return skillcat.Violations{{File: name, Line: s.logoLine, Column: s.logoColumn, Pointer: "/logo", Field: "logo",
		Reason: reason, Severity: skillcat.SeverityError}}
}

// elsewhere says where a logo URL with a scheme or host points.
func elsewhere(u *url.URL) string {
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "":
		return "on another site"
	}
	return "a " + strings.ToLower(u.Scheme) + ": URL"
}

// abbreviate shortens a long value for a message.
func abbreviate(s string) string {
	if len(s) <= 60 {
		return s
	}
	return s[:40] + "…"
}
