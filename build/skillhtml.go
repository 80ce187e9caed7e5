package build

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
	"strings"
	"sync"

	"github.com/skillcat/skillcat/templates"
)

// A skill page is most of a build's rendering, and html/template spends
// most of its time on it in reflection: a reflective call for each field,
// function and escaper. While a build's skill.html, and every template it
// calls, has the parse tree of the built-in one, skillHTML writes the same
// bytes directly in Go, escaping each value as html/template does in its
// context (htmlOut). A site whose --templates change any of them gets its
// own templates executed. TestSkillHTMLIsTheTemplate holds the two to the
// same bytes.

// skillTemplates are the templates a skill page executes.
var skillTemplates = []string{"skill.html", "head", "mark", "foot", schemaTemplate}

// builtinSkillTrees is the parse trees, as text, of the built-in
// skillTemplates.
var builtinSkillTrees = sync.OnceValue(func() string {
	fsys := templates.FS()
	t := template.New("").Funcs(templateFuncs).Funcs(routes{}.funcs()).Funcs(placeholderFuncs)
	shared, err := fs.Glob(fsys, "*.html")
	if err != nil {
		return ""
	}
	for _, name := range shared {
		if name != "skill.html" && isPageFile(name) {
			continue
		}
		if t, err = parseTemplate(t, fsys, name); err != nil {
			return ""
		}
	}
	return treesText(t, skillTemplates)
})

// isPageFile reports whether name is one of pageFiles.
func isPageFile(name string) bool {
	for _, p := range pageFiles {
		if p == name {
			return true
		}
	}
	return false
}

// treesText is the parse trees of t's templates names, as text, or ""
// when t lacks one of them. It must be taken before t is first executed
// (html/template adds its escapers to the trees then).
func treesText(t *template.Template, names []string) string {
	var b strings.Builder
	for _, name := range names {
		text := treeText(t, name)
		if text == "" {
			return ""
		}
		fmt.Fprintf(&b, "{{define %q}}%s{{end}}", name, text)
	}
	return b.String()
}

// isBuiltinSkill reports whether the template set t renders skill pages
// as the built-in templates do.
func isBuiltinSkill(t *template.Template) bool {
	text := treesText(t, skillTemplates)
	return text != "" && text == builtinSkillTrees()
}

// skillHTML writes the skill page pg as the built-in skill.html does;
// size is a hint of its length.
func (p *pages) skillHTML(pg *page, size int) ([]byte, error) {
	w := htmlOut{b: pageBuffer(size)}
	home := p.link(pg.File, p.routes.home())
	w.head(p, pg, home)
	if pg.Skill != nil {
		if err := w.skillMain(p, pg, home); err != nil {
			return nil, err
		}
	}
	w.foot(p, pg)
	return w.b, nil
}

// description writes v's description, from its Markdown when v is lazy.
func (w *htmlOut) description(v *skillView) error {
	if !v.lazy {
		w.raw(string(v.Description))
		return nil
	}
	buf := bytes.NewBuffer(w.b)
	if markdownFast(v.description, buf) {
		w.b = buf.Bytes()
		return nil
	}
	// What markdownFast wrote past w.b's length before it gave up is
	// written over; goldmark renders what it left (markdownHTML would
	// try markdownFast again first).
	m := markdownOuts.Get().(*markdownOut)
	defer markdownOuts.Put(m)
	desc, err := goldmarkHTML(m, v.description)
	if err != nil {
		return fmt.Errorf("render description: %w", err)
	}
	w.raw(string(desc))
	return nil
}

// json writes an example's highlighted JSON: html, or when lazy its
// text highlighted, its punctuation of class punct.
func (w *htmlOut) json(lazy bool, punct string, html template.HTML, text string) {
	if lazy {
		w.b = appendHighlightJSON(w.b, text, punct)
	} else {
		w.raw(string(html))
	}
}

// head writes the built-in "head" template.
func (w *htmlOut) head(p *pages, pg *page, home string) {
	r := p.routes
	asset := func(name string) { w.url(p.link(pg.File, r.asset(name))) }
	w.raw("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"")
	w.text(MetaContentSecurityPolicy)
	w.raw("\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"color-scheme\" content=\"light dark\">\n<title>")
	if pg.Title != "" {
		w.text(pg.Title)
		w.raw(" · ")
	}
	w.text(pg.Site.Title)
	w.raw("</title>\n<meta name=\"description\" content=\"")
	switch {
	case pg.Skill != nil:
		w.text(pg.Skill.Summary)
	case pg.Kind == "type":
		w.text(typeNote(pg.Type))
	default:
		w.text(pg.Site.Description)
	}
	w.raw("\">\n")
	if pg.Canonical != "" {
		w.raw(`<link rel="canonical" href="`)
		w.url(pg.Canonical)
		w.raw("\">\n")
	}
	w.raw(`<link rel="icon" href="`)
	asset("favicon.svg")
	w.raw("\" type=\"image/svg+xml\">\n<link rel=\"stylesheet\" href=\"")
	asset("style.css")
	w.raw("\">\n<link rel=\"stylesheet\" href=\"")
	asset("highlight.css")
	w.raw("\">\n<link rel=\"alternate\" type=\"application/json\" href=\"")
	w.url(p.link(pg.File, r.index()))
	w.raw("\" title=\"Skill index\">\n")
	if pg.Pager != nil {
		if pg.Pager.Prev != "" {
			w.raw(`<link rel="prev" href="`)
			w.url(pg.Pager.Prev)
			w.raw("\">\n")
		}
		if pg.Pager.Next != "" {
			w.raw(`<link rel="next" href="`)
			w.url(pg.Pager.Next)
			w.raw("\">\n")
		}
	}
	if pg.Kind == "home" {
		for _, l := range pg.Exports {
			w.raw(`<link rel="`)
			w.text(l.Rel)
			w.raw(`" type="`)
			w.text(l.Type)
			w.raw(`" href="`)
			w.url(l.Href)
			w.raw(`" title="`)
			w.text(l.Title)
			w.raw("\">\n")
		}
	}
	w.raw(`<script src="`)
	asset("app.js")
	w.raw("\" defer></script>\n")
	if pg.Kind == "home" {
		w.raw(`<script src="`)
		asset("search.js")
		w.raw("\" defer></script>\n")
	}
	if pg.Dev {
		w.raw(`<script src="`)
		asset("livereload.js")
		w.raw("\" defer></script>\n")
	}
	w.raw("</head>\n<body class=\"page-")
	w.text(pg.Kind)
	w.raw("\">\n<a class=\"skip-link\" href=\"#main\">Skip to content</a>\n<header class=\"site-header\">\n  <div class=\"wrap site-header-inner\">\n    <a class=\"brand\" href=\"")
	w.url(home)
	w.raw(`">`)
	if pg.Site.Logo != "" {
		w.raw(`<img class="brand-logo" src="`)
		w.url(siteURL(pg.Root, pg.Site.Logo))
		w.raw(`" alt="" width="32" height="32">`)
	} else {
		w.raw(`<svg class="brand-logo" width="32" height="32" viewBox="0 0 32 32" aria-hidden="true" focusable="false"><rect width="32" height="32" rx="8" class="mark-bg"/><path class="mark-fg" d="M9 11.5 16 7l7 4.5v9L16 25l-7-4.5z"/><path class="mark-line" d="M9 11.5 16 16l7-4.5M16 16v9"/></svg>`)
	}
	w.raw(`<span class="brand-name">`)
	w.text(pg.Site.Title)
	w.raw("</span></a>\n    <nav class=\"site-nav\" aria-label=\"Capability types\">\n      <ul>\n        <li><a href=\"")
	w.url(home)
	w.raw(`"`)
	if pg.Kind == "home" {
		w.raw(` aria-current="page"`)
	}
	w.raw(`>All skills</a></li>`)
	for _, t := range pg.Types {
		w.raw("\n        <li><a href=\"")
		w.url(p.link(pg.File, r.typePage(t)))
		w.raw(`"`)
		if pg.Kind == "type" && pg.Type == t {
			w.raw(` aria-current="page"`)
		}
		w.raw(`>`)
		w.text(typeTitle(t))
		w.raw(`</a></li>`)
	}
	w.raw("\n      </ul>\n    </nav>\n  </div>\n</header>\n")
}

// skillMain writes the <main> of the built-in skill.html.
func (w *htmlOut) skillMain(p *pages, pg *page, home string) error {
	r := p.routes
	v, d := pg.Skill, pg.Skill.D
	typ, access := string(d.CapabilityType), string(d.Access)
	requestSchema := p.link(pg.File, r.schema("invocation-request.schema.json"))
	w.raw("\n<main id=\"main\">\n  <div class=\"wrap\">\n    <nav class=\"breadcrumbs\" aria-label=\"Breadcrumb\">\n      <ol><li><a href=\"")
	w.url(home)
	w.raw(`">All skills</a></li><li><a href="`)
	w.url(p.link(pg.File, r.typePage(typ)))
	w.raw(`">`)
	w.text(typeTitle(typ))
	w.raw(`</a></li><li><span aria-current="page">`)
	w.text(d.Name)
	w.raw("</span></li></ol>\n    </nav>\n    <header class=\"skill-head\">\n      <h1 id=\"title\">")
	w.text(d.Name)
	w.raw("</h1>\n      <ul class=\"skill-facts\">\n        <li><span class=\"badge type-")
	w.text(typ)
	w.raw(`">`)
	w.text(typeTitle(typ))
	w.raw("</span></li>\n        <li><span class=\"badge access-")
	w.text(access)
	w.raw(`">`)
	if access == "restricted" {
		w.raw("Restricted")
	} else {
		w.raw("Public")
	}
	w.raw("</span></li>\n        <li>Version <strong>")
	w.text(d.Version)
	w.raw("</strong></li>\n        <li>by ")
	if d.Provider.URL != "" {
		w.raw(`<a href="`)
		w.url(d.Provider.URL)
		w.raw(`" rel="external">`)
		w.text(d.Provider.Name)
		w.raw(`</a>`)
	} else {
		w.raw(`<strong>`)
		w.text(d.Provider.Name)
		w.raw(`</strong>`)
	}
	w.raw("</li>\n        <li><span class=\"visually-hidden\">Id </span><code class=\"skill-id\">")
	w.text(d.ID)
	w.raw("</code></li>\n      </ul>")
	w.tags("\n      ", home, d.Tags)
	w.raw("\n    </header>\n\n    <div class=\"skill-layout\">\n      <section class=\"prose description\" id=\"description\" aria-label=\"Description\">\n        ")
	if err := w.description(v); err != nil {
		return err
	}
	w.raw("\n      </section>\n\n      <div class=\"skill-side\">\n        <section class=\"panel\" aria-labelledby=\"call\">\n          <h2 id=\"call\">Calling it</h2>\n          <dl class=\"facts\">\n            <dt>Endpoint</dt>\n            <dd class=\"endpoint\"><span class=\"method method-")
	w.text(v.Method)
	w.raw(`">`)
	w.text(v.Method)
	w.raw(`</span> <code>`)
	w.text(d.Endpoint.URL)
	w.raw("</code></dd>\n            <dt>Authentication</dt>\n            <dd>\n              <p>")
	w.text(v.Auth.Summary)
	w.raw(`</p>`)
	if len(v.Auth.Fields) > 0 {
		w.raw("\n              <dl class=\"auth-fields\">")
		for _, f := range v.Auth.Fields {
			w.raw(`<dt>`)
			w.text(f.Label)
			w.raw(`</dt><dd><code>`)
			w.text(f.Value)
			w.raw(`</code></dd>`)
		}
		w.raw(`</dl>`)
	}
	if len(v.Auth.Scopes) > 0 {
		w.raw("\n              <p class=\"scopes-title\">Scopes</p>\n              <dl class=\"scopes\">")
		for _, s := range v.Auth.Scopes {
			w.raw(`<dt><code>`)
			w.text(s[0])
			w.raw(`</code></dt><dd>`)
			w.text(s[1])
			w.raw(`</dd>`)
		}
		w.raw(`</dl>`)
	}
	if v.Auth.Text != "" {
		w.raw("\n              <p class=\"instructions\">")
		w.text(v.Auth.Text)
		w.raw(`</p>`)
	}
	w.raw("\n            </dd>\n            <dt>Access</dt>\n            <dd>")
	w.text(v.AccessNote)
	w.raw("</dd>\n            <dt>Provider</dt>\n            <dd>")
	w.text(d.Provider.Name)
	if d.Provider.URL != "" {
		w.raw(`<br><a href="`)
		w.url(d.Provider.URL)
		w.raw(`" rel="external">`)
		w.text(d.Provider.URL)
		w.raw(`</a>`)
	}
	if d.Provider.Email != "" {
		w.raw(`<br><a href="mailto:`)
		w.urlPart(d.Provider.Email)
		w.raw(`">`)
		w.text(d.Provider.Email)
		w.raw(`</a>`)
	}
	w.raw(`</dd>`)
	if d.DocumentationURL != "" {
		w.raw("\n            <dt>Documentation</dt>\n            <dd><a href=\"")
		w.url(d.DocumentationURL)
		w.raw(`" rel="external">`)
		w.text(d.DocumentationURL)
		w.raw(`</a></dd>`)
	}
	w.raw("\n          </dl>\n        </section>\n        <section class=\"panel\" aria-labelledby=\"descriptor\">\n          <h2 id=\"descriptor\">Descriptor</h2>\n          <ul class=\"links\">\n            <li><a href=\"")
	w.url(r.link(pg.File, r.descriptor(d.ID)))
	w.raw(`" type="application/json">`)
	w.text(d.ID)
	w.raw(".json</a> <span class=\"muted\">the descriptor as published</span></li>\n            <li>Digest <code class=\"digest\">")
	w.text(v.Digest)
	w.raw("</code></li>\n            <li>JSON Schemas: <a href=\"")
	w.url(p.link(pg.File, r.schema("skill-descriptor.schema.json")))
	w.raw(`">descriptor</a>, <a href="`)
	w.url(requestSchema)
	w.raw(`">request</a>, <a href="`)
	responseSchema := p.link(pg.File, r.schema("invocation-response.schema.json"))
	w.url(responseSchema)
	w.raw("\">response</a></li>\n          </ul>\n        </section>\n      </div>\n\n      <section aria-labelledby=\"inputs\">\n        <h2 id=\"inputs\">Inputs</h2>\n        ")
	w.schema(&v.Inputs)
	w.raw("\n      </section>\n\n      <section aria-labelledby=\"output\">\n        <h2 id=\"output\">Output</h2>\n        ")
	w.schema(&v.Output)
	w.raw("\n      </section>\n\n      <section aria-labelledby=\"examples\">\n        <h2 id=\"examples\">Examples</h2>")
	for i := range v.Examples {
		ex := &v.Examples[i]
		w.raw("\n        <section class=\"example\" aria-labelledby=\"")
		w.text(ex.ID)
		w.raw("\">\n          <h3 id=\"")
		w.text(ex.ID)
		w.raw(`">`)
		w.text(ex.Title)
		w.raw("</h3>\n          <figure class=\"codeblock\">\n            <figcaption><span class=\"codeblock-title\">InvocationRequest</span> <a href=\"")
		w.url(requestSchema)
		w.raw("\">schema</a></figcaption>\n            <pre class=\"chroma\" tabindex=\"0\"><code>")
		w.json(v.lazy, v.punct, ex.Request, ex.request)
		w.raw("</code></pre>\n          </figure>")
		if ex.Response != "" || v.lazy && ex.response != "" {
			w.raw("\n          <figure class=\"codeblock\">\n            <figcaption><span class=\"codeblock-title\">InvocationResponse</span> <a href=\"")
			w.url(responseSchema)
			w.raw("\">schema</a></figcaption>\n            <pre class=\"chroma\" tabindex=\"0\"><code>")
			w.json(v.lazy, v.punct, ex.Response, ex.response)
			w.raw("</code></pre>\n          </figure>")
		}
		w.raw("\n        </section>")
	}
	w.raw("\n      </section>\n    </div>\n  </div>\n</main>\n")
	return nil
}

// foot writes the built-in "foot" template.
func (w *htmlOut) foot(p *pages, pg *page) {
	r := p.routes
	w.raw("\n<footer class=\"site-footer\">\n  <div class=\"wrap\">\n    <p class=\"footer-links\"><span>For machines:</span>\n      <a href=\"")
	w.url(p.link(pg.File, r.index()))
	w.raw("\">Skill index</a>\n      <a href=\"")
	w.url(p.link(pg.File, r.search()))
	w.raw("\">Search index</a>\n      <a href=\"")
	w.url(p.link(pg.File, r.catalogDB()))
	w.raw("\">catalog.sqlite</a>\n      <a href=\"")
	w.url(p.link(pg.File, r.schema("skill-descriptor.schema.json")))
	w.raw(`">JSON Schemas</a>`)
	for _, l := range pg.Exports {
		w.raw("\n      <a href=\"")
		w.url(l.Href)
		w.raw(`"`)
		if l.Rel == "api-catalog" {
			w.raw(` rel="api-catalog"`)
		}
		w.raw(`>`)
		w.text(l.Title)
		w.raw(`</a>`)
	}
	w.raw("\n    </p>\n    <p>Built with skillcat · Skill Sharing Protocol 1.0")
	if pg.Date != "" {
		w.raw(` · Updated <time datetime="`)
		w.text(pg.Date)
		w.raw(`">`)
		w.text(pg.Date)
		w.raw(`</time>`)
	}
	w.raw("</p>\n  </div>\n</footer>\n</body>\n</html>\n")
}
