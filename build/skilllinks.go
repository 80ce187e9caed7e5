package build

import (
	"strings"

	skillcat "github.com/skillcat/skillcat"
)

// skillLinks are the links from a skill page to the site's documents that
// every skill page links (the assets, the index, the type pages, the
// schemas, the search index, catalog.sqlite, the exports, the home page),
// by document: the same from every skill page, so made once (newPages)
// instead of twice a dozen times a page. A skill page is
// skills/<id>/index.html, an id holds no slash, and none of these
// documents is under skills/, so routes.link climbs out of every skill
// page's folder to them the same way.
type skillLinks map[string]string

// newSkillLinks makes the links of r's skill pages to the documents above.
func newSkillLinks(r routes, on Exports) skillLinks {
	to := []string{r.home(), r.index(), r.search(), r.catalogDB()}
	for _, name := range []string{"favicon.svg", "style.css", "highlight.css", "app.js", "search.js", "livereload.js"} {
		to = append(to, r.asset(name))
	}
	for _, t := range skillcat.CapabilityTypes {
		to = append(to, r.typePage(string(t)))
	}
	for _, name := range []string{"skill-descriptor.schema.json", "invocation-request.schema.json", "invocation-response.schema.json"} {
		to = append(to, r.schema(name))
	}
	for _, l := range exportLinks(r, on) {
		to = append(to, l.File)
	}
	links := make(skillLinks, len(to))
	from := r.skillPage("x")
	for _, t := range to {
		if !strings.HasPrefix(t, "skills/") {
			links[t] = r.link(from, t)
		}
	}
	return links
}

// link is p.routes.link(from, to), taken from p.skillLinks when from is a
// skill page and to one of its documents.
func (p *pages) link(from, to string) string {
	if l, ok := p.skillLinks[to]; ok && isSkillPageFile(from) {
		return l
	}
	return p.routes.link(from, to)
}

// isSkillPageFile reports whether file is a skill page's,
// skills/<id>/index.html with an id that holds no slash.
func isSkillPageFile(file string) bool {
	const pre, suf = "skills/", "/index.html"
	return len(file) > len(pre)+len(suf) && strings.HasPrefix(file, pre) && strings.HasSuffix(file, suf) &&
		strings.IndexByte(file[len(pre):len(file)-len(suf)], '/') < 0
}
