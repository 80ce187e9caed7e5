// Package templates holds the catalog's page templates (html/template) and
// static assets, embedded in the binary.
//
// # Files
//
// Page templates: home.html, skill.html, type.html and 404.html, each
// defining a whole document under its own file name. Every other *.html file
// is a partial shared by all pages: partials.html defines "head" (doctype to
// the site header), "foot" (site footer to </html>), "skill-list" (cards)
// and "mark" (the default logo). Files under assets/ are copied to /assets/
// in the output: style.css, app.js (search, type filter, copy buttons),
// favicon.svg, highlight.css (the code colours, generated from chroma's
// styles by go generate: see internal/cssgen) and livereload.js (skillcat
// serve only).
//
// # Overriding
//
// A site overrides any file by shipping one of the same name in the
// directory given to `skillcat build --templates DIR` (see Overlay):
// DIR/assets/style.css restyles the catalog, DIR/skill.html replaces the
// skill page, DIR/assets/logo.svg adds a file that _index.md's logo can name.
//
// # Rules every template keeps
//
//   - The pages are served under a strict Content-Security-Policy
//     (build.ContentSecurityPolicy): no inline <script> or <style>, no event
//     handler attributes, no style= attributes, nothing from other origins.
//   - Links come from the build's layout (build/routes.go) through template
//     functions taking the page first: {{homeURL $}}, {{typeURL $ "api"}},
//     {{typeIndexURL $ "api"}}, {{skillURL $ .ID}}, {{descriptorURL $ .ID}},
//     {{indexURL $}}, {{schemaURL $ "skill-descriptor.schema.json"}},
//     {{assetURL $ "style.css"}}, {{searchURL $}} and {{catalogURL $}}. They
//     are relative to the page, so a site works under a sub-path; on the 404
//     page they are absolute from "/" or the base URL. {{.Root}}, the link
//     to the home page, is kept for templates written before them.
//   - Element ids must not collide with heading ids in descriptions: use the
//     ones build.ReservedIDs lists (and example-1, example-2, …).
//   - Private skills never reach a template; counts are of listed skills.
//   - skill.html shows a schema with {{schemaTable .Inputs}}: the bytes of
//     its "schema" template, written in Go while that definition is the
//     built-in one (it is executed as a template once a site changes it).
//     home.html and type.html show their cards with {{skillList .}} in the
//     same way ("skill-list"). While skill.html and every template it calls
//     ("head", "mark", "foot", "schema") are the built-in ones, the build
//     writes skill pages in Go with the same bytes; a site that changes any
//     of them gets its templates executed.
package templates

import (
	"embed"
	"errors"
	"io/fs"
	"sort"
)

// The code colours are made from chroma's styles here, not in the binary.
//go:generate go run ../internal/cssgen -o assets/highlight.css

//go:embed *.html assets
var files embed.FS

// FS returns the built-in templates and assets.
func FS() fs.FS { return files }

// Overlay returns a file system that serves a file from top when top has it
// and from base otherwise; directories list the union of both.
func Overlay(top, base fs.FS) fs.FS { return overlay{top, base} }

type overlay struct{ top, base fs.FS }

func (o overlay) Open(name string) (fs.File, error) {
	if f, err := o.top.Open(name); err == nil {
		st, err := f.Stat()
		if err == nil && !st.IsDir() {
			return f, nil
		}
		f.Close()
	}
	return o.base.Open(name)
}

func (o overlay) ReadDir(name string) ([]fs.DirEntry, error) {
	seen := map[string]fs.DirEntry{}
	var found bool
	for _, fsys := range []fs.FS{o.base, o.top} {
		entries, err := fs.ReadDir(fsys, name)
		if err != nil {
			continue
		}
		found = true
		for _, e := range entries {
			seen[e.Name()] = e
		}
	}
	if !found {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("file does not exist")}
	}
	out := make([]fs.DirEntry, 0, len(seen))
	for _, e := range seen {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}
