package build

import (
	"bytes"
	"context"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/templates"

	"github.com/skillcat/skillcat/synth"
)

// hostileView is a schema view whose every text needs escaping.
var hostileView = schemaView{
	RootType: `object <b>&"'+`, Description: "a\x00b <script>", Closed: true, JSON: "<span>{}</span>",
	Rows: []schemaRow{
		{Name: `x"y`, Parent: "a.<b>.", Depth: 2, Type: "string", Required: true, Default: `"+1"`, Enum: []string{"<a>"},
			Description: "it's & more", Constraints: []constraint{{Text: "matches", Code: "^[a-z]+$"}, {Text: "at most 3 <chars>"}}},
		{Name: "z", Enum: []string{"1", "2"}},
		{Name: "w", Description: "only"},
	},
}

// TestSchemaHTMLIsTheTemplate checks that schemaTable writes the bytes
// the built-in "schema" template does, for every synthetic schema and for
// texts that need escaping.
func TestSchemaHTMLIsTheTemplate(t *testing.T) {
	p, err := newPages(Config{}, defaultSite)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := p.tmpls["skill.html"]
	if builtinSchema() == "" || treeText(tmpl, schemaTemplate) != builtinSchema() {
		t.Fatal(`the built-in "schema" template is not recognised: skill pages execute it`)
	}
	views := []schemaView{hostileView, {Note: "accepts <anything>", JSON: "{}"}, {}}
	for i := 0; i < 60; i++ {
		name, data := synth.Source(i, 1)
		row := parseSource(context.Background(), SourceFile{Path: name, Data: data}, name).row
		if row == nil {
			t.Fatalf("%s: no row", name)
		}
		d := decodePublished(t, row.Descriptor)
		for _, punct := range []string{"p", ""} {
			views = append(views, schemaViewOf(d.Inputs, nil, punct), schemaViewOf(d.Output, nil, punct))
		}
	}
	for i, v := range views {
		// schemaHTML writes a view whose JSON is left to it; the
		// template reads the view filled.
		got := schemaHTML(&v)
		v.fill()
		var want bytes.Buffer
		if err := tmpl.ExecuteTemplate(&want, schemaTemplate, v); err != nil {
			t.Fatal(err)
		}
		if got != want.String() {
			t.Errorf("view %d: schemaHTML differs from the template\n got: %q\nwant: %q", i, got, want.String())
		}
	}
}

// TestSchemaTableOverride checks that a site's own "schema" template is
// the one skill pages show.
func TestSchemaTableOverride(t *testing.T) {
	builtin, err := fs.ReadFile(templates.FS(), "skill.html")
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(builtin, []byte(`{{define "schema"}}`))
	if at < 0 {
		t.Fatal(`skill.html defines no "schema"`)
	}
	mine := append(builtin[:at:at], `{{define "schema"}}<p class="my-schema">{{.RootType}}</p>{{end}}`...)
	p, err := newPages(Config{Templates: fstest.MapFS{"skill.html": {Data: mine}}}, defaultSite)
	if err != nil {
		t.Fatal(err)
	}
	name, data := synth.Source(3, 1)
	row := parseSource(context.Background(), SourceFile{Path: name, Data: data}, name).row
	page, err := p.skillPage(&publishedSkill{Descriptor: decodePublished(t, row.Descriptor), Published: row.Descriptor, Digest: row.Digest, Summary: row.Summary})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `<p class="my-schema">`) || strings.Contains(string(page), `<table class="schema">`) {
		t.Errorf("the site's schema template is not used:\n%s", page)
	}
}

func decodePublished(t *testing.T, data []byte) *skillcat.SkillDescriptor {
	t.Helper()
	d := new(skillcat.SkillDescriptor)
	if err := d.UnmarshalJSON(data); err != nil {
		t.Fatal(err)
	}
	return d
}
