package build

import (
	"bytes"
	"fmt"
	"html/template"
	"strconv"
	"strings"
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
	t, err := template.New("").Funcs(templateFuncs).Funcs(routes{}.funcs()).Funcs(template.FuncMap{schemaTableName: noSchemaTable}).ParseFS(templates.FS(), "skill.html")
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

// htmlText escapes s as html/template does in text and quoted attributes.
var htmlText = strings.NewReplacer("\x00", "\uFFFD", `"`, "&#34;", "&", "&amp;", "'", "&#39;", "+", "&#43;", "<", "&lt;", ">", "&gt;")

// schemaHTML is the built-in "schema" template of skill.html, written in
// Go: the same bytes.
func schemaHTML(v *schemaView) string {
	var b strings.Builder
	b.Grow(512 + 640*len(v.Rows) + len(v.JSON))
	esc := func(s string) { htmlText.WriteString(&b, s) }
	if v.Note != "" {
		b.WriteString(`<p class="schema-note">`)
		esc(v.Note)
		b.WriteString(`</p>`)
	} else {
		b.WriteString("\n" + `<p class="schema-root">`)
		if v.RootType != "" {
			b.WriteString(`<span class="type">`)
			esc(v.RootType)
			b.WriteString(`</span>`)
		}
		if v.Description != "" {
			b.WriteString(" — ")
			esc(v.Description)
		}
		if v.Closed {
			b.WriteString(" · no members beyond those listed")
		}
		b.WriteString(`</p>`)
		if len(v.Rows) > 0 {
			b.WriteString("\n" + `<table class="schema">` + "\n" +
				`  <thead><tr><th scope="col">Member</th><th scope="col">Type</th><th scope="col">Required</th><th scope="col">Description</th></tr></thead>` + "\n" +
				`  <tbody>`)
			for i := range v.Rows {
				schemaRowHTML(&b, &v.Rows[i], esc)
			}
			b.WriteString("\n  </tbody>\n</table>")
		}
	}
	if v.JSON != "" {
		b.WriteString("\n" + `<details class="raw-schema">` + "\n" +
			`  <summary>JSON Schema</summary>` + "\n" +
			`  <figure class="codeblock">` + "\n" +
			`    <figcaption><span class="codeblock-title">JSON Schema</span></figcaption>` + "\n" +
			`    <pre class="chroma" tabindex="0"><code>`)
		b.WriteString(string(v.JSON))
		b.WriteString("</code></pre>\n  </figure>\n</details>")
	}
	b.WriteString("\n")
	return b.String()
}

// schemaRowHTML writes one row of a schema table.
func schemaRowHTML(b *strings.Builder, r *schemaRow, esc func(string)) {
	b.WriteString("\n" + `    <tr class="depth-`)
	b.WriteString(strconv.Itoa(r.Depth))
	b.WriteString(`">` + "\n" + `      <th scope="row"><code class="member">`)
	if r.Parent != "" {
		b.WriteString(`<span class="member-parent">`)
		esc(r.Parent)
		b.WriteString(`</span><wbr>`)
	}
	esc(r.Name)
	b.WriteString(`</code></th>` + "\n" + `      <td class="col-type">`)
	if r.Type != "" {
		b.WriteString(`<span class="type">`)
		esc(r.Type)
		b.WriteString(`</span>`)
	} else {
		b.WriteString(`<span class="muted">any</span>`)
	}
	b.WriteString(`</td>` + "\n" + `      <td class="col-req">`)
	if r.Required {
		b.WriteString(`<span class="req">required</span>`)
	} else {
		b.WriteString(`<span class="opt">optional</span>`)
	}
	b.WriteString(`</td>` + "\n" + `      <td class="col-desc">`)
	if r.Description != "" {
		b.WriteString(`<p>`)
		esc(r.Description)
		b.WriteString(`</p>`)
	}
	if len(r.Enum) > 0 || r.Default != "" || len(r.Constraints) > 0 {
		b.WriteString("\n" + `        <ul class="schema-facts">`)
		if len(r.Enum) > 0 {
			b.WriteString(`<li><span class="fact-label">`)
			if len(r.Enum) == 1 {
				b.WriteString("Always")
			} else {
				b.WriteString("One of")
			}
			b.WriteString(`</span> `)
			for _, e := range r.Enum {
				b.WriteString(`<code>`)
				esc(e)
				b.WriteString(`</code> `)
			}
			b.WriteString(`</li>`)
		}
		if r.Default != "" {
			b.WriteString(`<li><span class="fact-label">Default</span> <code>`)
			esc(r.Default)
			b.WriteString(`</code></li>`)
		}
		for _, c := range r.Constraints {
			b.WriteString(`<li>`)
			esc(c.Text)
			if c.Code != "" {
				b.WriteString(` <code>`)
				esc(c.Code)
				b.WriteString(`</code>`)
			}
			b.WriteString(`</li>`)
		}
		b.WriteString("\n        </ul>")
	}
	b.WriteString("\n      </td>\n    </tr>")
}
