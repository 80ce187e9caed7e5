package build

import (
	"testing"

	skillcat "github.com/skillcat/skillcat"
	"pgregory.net/rapid"
)

// TestSkillLinksAreLinks holds pages.link, which takes a skill page's
// links to the site's documents from skillLinks, to routes.link: from
// skill pages of drawn ids and from other pages, to every document it
// remembers and to others, with and without a base URL and exports.
func TestSkillLinksAreLinks(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		base := rapid.SampledFrom([]string{"", "https://cat.example/", "https://cat.example/sub/"}).Draw(rt, "base")
		on := Exports{AgentSkills: rapid.Bool().Draw(rt, "agentskills"), APICatalog: rapid.Bool().Draw(rt, "apicatalog"), LLMsTxt: rapid.Bool().Draw(rt, "llmstxt")}
		r := newRoutes(base)
		p := &pages{routes: r, skillLinks: newSkillLinks(r, on)}
		id := rapid.StringMatching(`[a-z0-9]+([._-][a-z0-9]+)*`).Draw(rt, "id")
		from := rapid.SampledFrom([]string{r.skillPage(id), r.home(), r.notFound(), r.typePage("api"), r.listingPage("", 2),
			"skills/" + id + "/more/index.html", "skills/index.html", "skills/" + id + ".json"}).Draw(rt, "from")
		to := []string{r.descriptor(id), r.skillPage(id), r.skillPage(id + "x"), r.skillMD(id), r.agentSkillsIndex()}
		for doc := range p.skillLinks {
			to = append(to, doc)
		}
		for _, tt := range skillcat.CapabilityTypes {
			to = append(to, r.typePage(string(tt)))
		}
		for _, doc := range to {
			if got, want := p.link(from, doc), r.link(from, doc); got != want {
				rt.Fatalf("link from %q to %q: %q, want %q", from, doc, got, want)
			}
		}
	})
}

// TestSkillLinksRemembered checks that a skill page's links to the
// documents every skill page links are all remembered.
func TestSkillLinksRemembered(t *testing.T) {
	r := newRoutes("")
	links := newSkillLinks(r, Exports{AgentSkills: true, APICatalog: true, LLMsTxt: true})
	for _, doc := range []string{r.home(), r.index(), r.asset("style.css"), r.typePage("api"), r.schema("invocation-request.schema.json"), r.search(), r.catalogDB(), r.llmsFull()} {
		if _, ok := links[doc]; !ok {
			t.Errorf("the link to %q is not remembered", doc)
		}
	}
}
