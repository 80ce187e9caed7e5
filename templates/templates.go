// Package templates holds the catalog's page templates (html/template) and
// static assets, embedded in the binary.
//
// Page templates: home.html, skill.html, type.html and 404.html, each a whole
// document named after its file. Every other *.html file is a partial shared
// by all pages (head, header, footer, skill list). Files under assets/ are
// copied to /assets/ in the output. A site overrides any of them by shipping
// a file of the same name (see Overlay).
package templates

import (
	"embed"
	"errors"
	"io/fs"
	"sort"
)

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
