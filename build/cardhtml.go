package build

import (
	"bytes"
	"fmt"
	"html/template"
	"sync"

	"github.com/skillcat/skillcat/templates"
)

// The listing pages show a hundred skills each as cards, and executing the
// "skill-list" template costs a reflective call per field and escaper of
// every card. The built-in home.html and type.html call {{skillList .}},
// which writes the same bytes as {{template "skill-list" .}} in Go while
// "skill-list" is the built-in definition, and executes the site's own
// otherwise (as schemaTable does for the schema tables).

// skillListTemplate is the name of the template skillList stands in for.
const skillListTemplate = "skill-list"

const skillListName = "skillList"

// builtinSkillList is the parse tree, as text, of the built-in "skill-list".
var builtinSkillList = sync.OnceValue(func() string {
	t, err := template.New("").Funcs(templateFuncs).Funcs(routes{}.funcs()).Funcs(placeholderFuncs).ParseFS(templates.FS(), "partials.html")
	if err != nil {
		return ""
	}
	return treeText(t, skillListTemplate)
})

// placeholderFuncs stand for schemaTable and skillList while templates
// are parsed; each template set gets its own functions before it runs.
var placeholderFuncs = template.FuncMap{
	schemaTableName: noSchemaTable,
	skillListName:   func(*page) (template.HTML, error) { return "", nil },
}

// skillListFunc is the skillList function of the template set t, which
// must be bound before t is first executed (nil while parsing).
func skillListFunc(r routes, t *template.Template) template.FuncMap {
	builtin := false
	if t != nil {
		text := treeText(t, skillListTemplate)
		builtin = text != "" && text == builtinSkillList()
	}
	return template.FuncMap{skillListName: func(pg *page) (template.HTML, error) {
		if builtin {
			w := htmlOut{b: make([]byte, 0, 1024*len(pg.Skills)+64)}
			w.cards(r, pg)
			return template.HTML(w.b), nil
		}
		if t == nil || t.Lookup(skillListTemplate) == nil {
			return "", fmt.Errorf("no template %q", skillListTemplate)
		}
		var b bytes.Buffer
		if err := t.ExecuteTemplate(&b, skillListTemplate, pg); err != nil {
			return "", err
		}
		return template.HTML(b.String()), nil
	}}
}

// cards writes what the built-in "skill-list" template writes for pg.
func (w *htmlOut) cards(r routes, pg *page) {
	home := r.link(pg.File, r.home())
	w.raw("\n<ul class=\"cards\" id=\"skills\">")
	for i := range pg.Skills {
		s := &pg.Skills[i]
		w.raw("\n<li class=\"card\" data-id=\"")
		w.text(s.ID())
		w.raw(`" data-type="`)
		w.text(s.Type())
		w.raw(`"><p class="card-badges"><span class="badge type-`)
		w.text(s.Type())
		w.raw(`">`)
		w.text(typeTitle(s.Type()))
		w.raw(`</span><span class="badge access-`)
		w.text(s.Access())
		w.raw(`">`)
		if s.Access() == "restricted" {
			w.raw("Restricted")
		} else {
			w.raw("Public")
		}
		w.raw("</span></p>\n<h3 class=\"card-title\"><a href=\"")
		w.url(r.link(pg.File, r.skillPage(s.ID())))
		w.raw(`">`)
		w.text(s.Name())
		w.raw("</a></h3>\n<p class=\"card-summary\">")
		w.text(s.Summary())
		w.raw("</p>\n<p class=\"card-meta\"><span class=\"card-provider\">")
		w.text(s.Provider())
		w.raw(`</span> <span class="card-version">v`)
		w.text(s.Version())
		w.raw(`</span></p>`)
		w.tags("\n", home, s.Tags())
		w.raw(`</li>`)
	}
	w.raw("\n</ul>\n")
}
