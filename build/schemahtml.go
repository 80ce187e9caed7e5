package build

import (
	"bytes"
	"fmt"
	"html/template"
	"strconv"
	"sync"

	"github.com/skillcat/skillcat/templates"
)

// The schema tables are the largest part of a skill page, and executing
// them through html/template costs a reflective call per field and per
// escaper. The built-in skill.html calls {{schemaTable .Inputs}}, which
// writes the same bytes as {{template "schema" .Inputs}} directly in Go,
// as long as "schema" is the built-in definition. When a site's templates
// define "schema" differently, schemaTable executes their template instead,
// so overrides keep working.

// schemaTemplate is the name of the template schemaTable stands in for.
const schemaTemplate = "schema"

// builtinSchema is the parse tree, as text, of the built-in "schema"
// template.
var builtinSchema = sync.OnceValue(func() string {
	t, err := template.New("").Funcs(templateFuncs).Funcs(routes{}.funcs()).Funcs(placeholderFuncs).ParseFS(templates.FS(), "skill.html")
	if err != nil {
		return ""
	}
	return treeText(t, schemaTemplate)
})

// treeText is the parse tree of t's template name, as text, or "" when t
// has none.
func treeText(t *template.Template, name string) string {
	if s := t.Lookup(name); s != nil && s.Tree != nil && s.Tree.Root != nil {
		return s.Tree.Root.String()
	}
	return ""
}

// schemaTableFunc is the schemaTable function of the template set t, which
// must be bound before t is first executed (nil while parsing).
func schemaTableFunc(t *template.Template) template.FuncMap {
	builtin := false
	if t != nil {
		text := treeText(t, schemaTemplate)
		builtin = text != "" && text == builtinSchema()
	}
	return template.FuncMap{schemaTableName: func(v schemaView) (template.HTML, error) {
		if builtin {
			return template.HTML(schemaHTML(&v)), nil
		}
		if t == nil || t.Lookup(schemaTemplate) == nil {
			return "", fmt.Errorf("no template %q", schemaTemplate)
		}
		var b bytes.Buffer
		if err := t.ExecuteTemplate(&b, schemaTemplate, v); err != nil {
			return "", err
		}
		return template.HTML(b.String()), nil
	}}
}

const schemaTableName = "schemaTable"

// noSchemaTable stands for schemaTable while the built-in tree is parsed.
func noSchemaTable(schemaView) (template.HTML, error) { return "", nil }

// schemaHTML is the built-in "schema" template of skill.html, written in
// Go: the same bytes.
func schemaHTML(v *schemaView) string {
	w := htmlOut{b: make([]byte, 0, 512+640*len(v.Rows)+len(v.JSON))}
	w.schema(v)
	return string(w.b)
}

// schema writes what the built-in "schema" template writes for v.
func (w *htmlOut) schema(v *schemaView) {
	if v.Note != "" {
		w.raw(`<p class="schema-note">`)
		w.text(v.Note)
		w.raw(`</p>`)
	} else {
		w.raw("\n" + `<p class="schema-root">`)
		if v.RootType != "" {
			w.raw(`<span class="type">`)
			w.text(v.RootType)
			w.raw(`</span>`)
		}
		if v.Description != "" {
			w.raw(" — ")
			w.text(v.Description)
		}
		if v.Closed {
			w.raw(" · no members beyond those listed")
		}
		w.raw(`</p>`)
		if len(v.Rows) > 0 {
			w.raw("\n" + `<table class="schema">` + "\n" +
				`  <thead><tr><th scope="col">Member</th><th scope="col">Type</th><th scope="col">Required</th><th scope="col">Description</th></tr></thead>` + "\n" +
				`  <tbody>`)
			for i := range v.Rows {
				w.schemaRow(&v.Rows[i])
			}
			w.raw("\n  </tbody>\n</table>")
		}
	}
	if v.JSON != "" || v.indented != "" {
		w.raw("\n" + `<details class="raw-schema">` + "\n" +
			`  <summary>JSON Schema</summary>` + "\n" +
			`  <figure class="codeblock">` + "\n" +
			`    <figcaption><span class="codeblock-title">JSON Schema</span></figcaption>` + "\n" +
			`    <pre class="chroma" tabindex="0"><code>`)
		if v.JSON != "" {
			w.raw(string(v.JSON))
		} else {
			w.b = appendHighlightIndented(w.b, v.indented, v.punct)
		}
		w.raw("</code></pre>\n  </figure>\n</details>")
	}
	w.raw("\n")
}

// schemaRow writes one row of a schema table.
func (w *htmlOut) schemaRow(r *schemaRow) {
	w.raw("\n" + `    <tr class="depth-`)
	w.b = strconv.AppendInt(w.b, int64(r.Depth), 10)
	w.raw(`">` + "\n" + `      <th scope="row"><code class="member">`)
	if r.Parent != "" {
		w.raw(`<span class="member-parent">`)
		w.text(r.Parent)
		w.raw(`</span><wbr>`)
	}
	w.text(r.Name)
	w.raw(`</code></th>` + "\n" + `      <td class="col-type">`)
	if r.Type != "" {
		w.raw(`<span class="type">`)
		w.text(r.Type)
		w.raw(`</span>`)
	} else {
		w.raw(`<span class="muted">any</span>`)
	}
	w.raw(`</td>` + "\n" + `      <td class="col-req">`)
	if r.Required {
		w.raw(`<span class="req">required</span>`)
	} else {
		w.raw(`<span class="opt">optional</span>`)
	}
	w.raw(`</td>` + "\n" + `      <td class="col-desc">`)
	if r.Description != "" {
		w.raw(`<p>`)
		w.text(r.Description)
		w.raw(`</p>`)
	}
	if len(r.Enum) > 0 || r.Default != "" || len(r.Constraints) > 0 {
		w.raw("\n" + `        <ul class="schema-facts">`)
		if len(r.Enum) > 0 {
			w.raw(`<li><span class="fact-label">`)
			if len(r.Enum) == 1 {
				w.raw("Always")
			} else {
				w.raw("One of")
			}
			w.raw(`</span> `)
			for _, e := range r.Enum {
				w.raw(`<code>`)
				w.text(e)
				w.raw(`</code> `)
			}
			w.raw(`</li>`)
		}
		if r.Default != "" {
			w.raw(`<li><span class="fact-label">Default</span> <code>`)
			w.text(r.Default)
			w.raw(`</code></li>`)
		}
		for _, c := range r.Constraints {
			w.raw(`<li>`)
			w.text(c.Text)
			if c.Code != "" {
				w.raw(` <code>`)
				w.text(c.Code)
				w.raw(`</code>`)
			}
			w.raw(`</li>`)
		}
		w.raw("\n        </ul>")
	}
	w.raw("\n      </td>\n    </tr>")
}
