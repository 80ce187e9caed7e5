package build

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/store"
	"github.com/skillcat/skillcat/templates"
)

// pages renders the HTML side of the site from the templates.
type pages struct {
	cfg    Config
	routes routes
	site   Site
	fsys   fs.FS
	tmpls  map[string]*template.Template // by page file name
	sizes  map[string]*atomic.Int64      // a size hint for each: its last page and some
	// goSkill is whether skill pages are written by skillHTML: while
	// skill.html and what it calls are the built-in templates.
	goSkill bool
	views   *schemaViews // the schema views shown so far
	// skillLinks are the links every skill page makes to the site's
	// documents (link).
	skillLinks skillLinks
}

// pageFiles are the page templates; each is parsed with the shared layout
// and partials (every other *.html file).
var pageFiles = []string{"home.html", "skill.html", "type.html", "404.html"}

func newPages(cfg Config, site Site) (*pages, error) {
	fsys := templateFS(cfg)
	shared, err := fs.Glob(fsys, "*.html")
	if err != nil {
		return nil, fmt.Errorf("list templates: %w", err)
	}
	isPage := map[string]bool{}
	for _, p := range pageFiles {
		isPage[p] = true
	}
	r := newRoutes(cfg.BaseURL)
	base := template.New("").Funcs(templateFuncs).Funcs(r.funcs()).Funcs(placeholderFuncs)
	for _, name := range shared {
		if isPage[name] {
			continue
		}
		if base, err = parseTemplate(base, fsys, name); err != nil {
			return nil, err
		}
	}
	p := &pages{cfg: cfg, routes: r, site: site, fsys: fsys, tmpls: map[string]*template.Template{}, sizes: map[string]*atomic.Int64{}, views: &schemaViews{punct: punctClass(fsys)},
		skillLinks: newSkillLinks(r, site.Exports)}
	for _, name := range pageFiles {
		t, err := base.Clone()
		if err != nil {
			return nil, fmt.Errorf("clone layout: %w", err)
		}
		if t, err = parseTemplate(t, fsys, name); err != nil {
			return nil, err
		}
		p.tmpls[name] = t.Funcs(schemaTableFunc(t)).Funcs(skillListFunc(r, t))
		p.sizes[name] = new(atomic.Int64)
	}
	p.goSkill = isBuiltinSkill(p.tmpls["skill.html"])
	return p, nil
}

func parseTemplate(t *template.Template, fsys fs.FS, name string) (*template.Template, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("read template %q: %w", name, err)
	}
	if _, err := t.New(name).Parse(string(data)); err != nil {
		return nil, fmt.Errorf("parse template %q: %w", name, parseError{err})
	}
	return t, nil
}

// parseError is a template that does not parse (parseTemplate): the
// site's own fault, which a build without the cache meets the same way
// (templateFault).
type parseError struct{ err error }

func (e parseError) Error() string { return e.err.Error() }
func (e parseError) Unwrap() error { return e.err }

var templateFuncs = template.FuncMap{
	"join":      strings.Join,
	"typeLabel": typeTitle,
	"typeNote":  typeNote,
	"siteURL":   siteURL,
	"csp":       func() string { return MetaContentSecurityPolicy },
}

// templateFS is the templates and assets a build uses: the embedded ones
// with cfg.Templates over them.
func templateFS(cfg Config) fs.FS {
	if cfg.Templates != nil {
		return templates.Overlay(cfg.Templates, templates.FS())
	}
	return templates.FS()
}

// siteURL makes a site setting's URL (the logo) usable from a page: an
// absolute URL, a root-absolute path or a data: URL is kept, and a path
// inside the site is made relative to the page.
func siteURL(root, u string) string {
	if u == "" || strings.HasPrefix(u, "/") || strings.HasPrefix(u, "data:") || strings.Contains(u, "://") {
		return u
	}
	return root + strings.TrimPrefix(u, "./")
}

// page is what every page template gets.
type page struct {
	Site      Site
	Kind      string // "home", "type", "skill" or "404"
	File      string // the page's own file (routes), which its links start from
	Root      string // the link from the page to the site root: "", "../", "../../"
	Title     string
	Canonical string   // absolute URL of the page, with a base URL
	Date      string   // build date (SOURCE_DATE_EPOCH), or ""
	Dev       bool     // serve mode: include the live-reload script
	Types     []string // every capability type, in the specification's order
	Counts    []typeCount
	Total     int
	Skills    []listItem
	Listed    int    // a listing page: the length of its whole listing
	Pager     *pager // a listing page of several: its navigation
	Type      string // the type page's type, or the skill's type
	Skill     *skillView
	Exports   []exportLink // the exported documents, for the head and footer
}

type typeCount struct {
	Type  string
	Count int
}

// listItem is one skill on the home and type pages: its row of the
// listing, which render holds anyway. One pointer, not a second copy of
// the row's eight fields (~12 MB the collector scans at every collection
// of a render at 100,000 skills, and again for the type listings). The
// row is not embedded: a page template may read only what listingKey
// holds (its methods), never the row's source path, descriptor or digest,
// which would leave a rebuild's listing pages stale when they change.
type listItem struct {
	row *store.Row
}

// ID is the skill's id.
func (d listItem) ID() string { return d.row.ID }

// Name is the skill's name.
func (d listItem) Name() string { return d.row.Name }

// Summary is the skill's summary.
func (d listItem) Summary() string { return d.row.Summary }

// Type is the skill's capability type.
func (d listItem) Type() string { return d.row.CapabilityType }

// Access is the skill's access: public or restricted.
func (d listItem) Access() string { return d.row.Access }

// Version is the skill's version.
func (d listItem) Version() string { return d.row.Version }

// Provider is the skill's provider's name.
func (d listItem) Provider() string { return d.row.ProviderName }

// Tags are the skill's tags, in source order.
func (d listItem) Tags() []string { return d.row.Tags }

// newPage is what every page template gets for the page written to file.
func (p *pages) newPage(file, title string, counts map[string]int) *page {
	r := p.routes
	pg := &page{Site: p.site, File: file, Root: p.link(file, r.home()), Title: title, Canonical: r.absolute(file), Dev: p.cfg.Dev}
	links := exportLinks(r, p.site.Exports)
	if len(links) > 0 {
		pg.Exports = make([]exportLink, 0, len(links))
	}
	for _, l := range links {
		l.Href = p.link(file, l.File)
		pg.Exports = append(pg.Exports, l)
	}
	pg.Types = make([]string, 0, len(skillcat.CapabilityTypes))
	for _, t := range skillcat.CapabilityTypes {
		pg.Types = append(pg.Types, string(t))
	}
	if !p.cfg.Time.IsZero() {
		pg.Date = p.cfg.Time.UTC().Format("2006-01-02")
	}
	pg.Counts = make([]typeCount, 0, len(skillcat.CapabilityTypes))
	for _, t := range skillcat.CapabilityTypes {
		pg.Counts = append(pg.Counts, typeCount{Type: string(t), Count: counts[string(t)]})
		pg.Total += counts[string(t)]
	}
	return pg
}

// itemOf is the listing's item of the skill s. Pages write a control
// character of its texts as U+FFFD: a row that holds one is shown from a
// printable copy.
func itemOf(s *store.Row) listItem {
	name, summary, provider := skillcat.Printable(s.Name), skillcat.Printable(s.Summary), skillcat.Printable(s.ProviderName)
	if name != s.Name || summary != s.Summary || provider != s.ProviderName {
		c := *s
		c.Name, c.Summary, c.ProviderName = name, summary, provider
		s = &c
	}
	return listItem{s}
}

// items lists skills for the home and type pages, by name (case-folded,
// then by id, so the order is total and stable).
// Each name is folded once, not at each comparison (two allocations each
// of the ~120,000 comparisons at 10,000 skills).
func items(skills []store.Row) []listItem {
	type keyed struct {
		folded string
		item   listItem
	}
	ks := make([]keyed, len(skills))
	for i := range skills {
		it := itemOf(&skills[i])
		ks[i] = keyed{strings.ToLower(it.Name()), it}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		if c := strings.Compare(a.folded, b.folded); c != 0 {
			return c
		}
		return strings.Compare(a.item.ID(), b.item.ID())
	})
	out := make([]listItem, len(ks))
	for i := range ks {
		out[i] = ks[i].item
	}
	return out
}

// execute renders the page template name (skill pages by skillHTML while
// their templates are the built-in ones). The buffer starts a little
// above the size of the last page of that template, so that a page is not
// copied again at each doubling as it grows (a skill page is about 20 KB).
func (p *pages) execute(name string, data *page) ([]byte, error) {
	hint := p.sizes[name]
	if name == "skill.html" && p.goSkill {
		out, err := p.skillHTML(data, int(hint.Load()))
		if err != nil {
			return nil, err
		}
		hint.Store(int64(len(out) + len(out)/8))
		return out, nil
	}
	var buf bytes.Buffer
	if hint != nil {
		buf.Grow(int(hint.Load()))
	}
	if err := p.tmpls[name].ExecuteTemplate(&buf, name, data); err != nil {
		return nil, fmt.Errorf("execute template %q: %w", name, err)
	}
	if hint != nil {
		hint.Store(int64(buf.Len() + buf.Len()/8))
	}
	return buf.Bytes(), nil
}

// pageBuffers holds the buffers of skill pages already written
// (renderSkill gives each back once it is), so that a build makes a few
// buffers of ~20 KB instead of one a page: at 100,000 skills those were
// 2.3 GB of the render's allocation, each a step towards a collection.
var pageBuffers sync.Pool

// pageBuffer returns an empty buffer of at least size bytes, from
// pageBuffers when it holds one.
func pageBuffer(size int) []byte {
	if b, ok := pageBuffers.Get().(*[]byte); ok {
		return slices.Grow((*b)[:0], size)
	}
	return make([]byte, 0, size)
}

// releasePage gives the bytes of a page written, which nothing holds any
// more, back to pageBuffers.
func releasePage(b []byte) { pageBuffers.Put(&b) }

// notFoundPage renders the 404 page, which is served at any depth; routes
// makes its links absolute.
func (p *pages) notFoundPage(counts map[string]int) (File, error) {
	r := p.routes
	nf := p.newPage(r.notFound(), "Page not found", counts)
	nf.Kind = "404"
	data, err := p.execute("404.html", nf)
	if err != nil {
		return File{}, err
	}
	return File{r.notFound(), data}, nil
}

// typeWords are the words the pages use for each capability type: a
// heading word and a sentence saying what its skills are. A test keeps
// them in step with skillcat.CapabilityTypes.
var typeWords = map[skillcat.CapabilityType]struct{ title, note string }{
	skillcat.API:       {"API", "Remote APIs: send inputs to the endpoint and get a result back."},
	skillcat.Plugin:    {"Plugin", "Plugins: capabilities an agent or application adds to what it can do."},
	skillcat.Knowledge: {"Knowledge", "Knowledge: skills that answer from a body of documents, guides or reference data."},
	skillcat.Task:      {"Task", "Tasks: work carried out on the caller's behalf, often taking a while."},
}

// typeNote says in a sentence what skills of a capability type are.
func typeNote(t string) string { return typeWords[skillcat.CapabilityType(t)].note }

// typeTitle is a capability type as a heading word.
func typeTitle(t string) string {
	if w, ok := typeWords[skillcat.CapabilityType(t)]; ok {
		return w.title
	}
	return t
}

// assets returns the static files (style sheet, scripts, images) under
// assets/ in the templates.
func (p *pages) assets() ([]File, error) {
	var files []File
	err := fs.WalkDir(p.fsys, "assets", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !p.cfg.Dev && path.Base(name) == "livereload.js" {
			return nil
		}
		data, err := fs.ReadFile(p.fsys, name)
		if err != nil {
			return err
		}
		files = append(files, File{p.routes.asset(strings.TrimPrefix(name, "assets/")), data})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read assets: %w", err)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, nil
}
