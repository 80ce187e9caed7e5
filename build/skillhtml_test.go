package build

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/synth"
	"github.com/skillcat/skillcat/templates"
)

// hostileTexts need escaping in every context a page puts a value in.
var hostileTexts = []string{
	`<script>alert("x")</script>`, `a'b"c&d+e<f>g`, "nul\x00byte", "naïve 東京 🎉 \u2028 \ufdd0 \xff",
	`javascript:alert(1)`, `JavaScript:x`, `httpſ://long-s.example`, `data:text/html,<b>`, `vbscript:x`,
	`https://example.com/a b/c?d=é&e=%zz%41'"<>#frag`, `/root path?x=1+2`, `../up/../x`, `//host.example/x`,
	`mailto:someone@example.com?subject=a b`, `a:b/c`, `a/b:c`, "%", "%4", "%41%4g", "tab\tnew\nline",
	`{{.}}`, `&amp; &#34; &lt;`, strings.Repeat("long ", 400), "esc\x1b]0;title\x07 del\x7f c1\u009b",
}

// hostileDescriptors are skills whose every field, one text at a time,
// holds one of hostileTexts, with each kind of authentication.
func hostileDescriptors() []*publishedSkill {
	var out []*publishedSkill
	auths := []skillcat.Auth{
		{Type: skillcat.AuthNone},
		{Type: skillcat.AuthAPIKey, In: "query"},
		{Type: skillcat.AuthAPIKey, In: "header"},
		{Type: skillcat.AuthOAuth2, TokenURL: "https://t.example/token"},
		{Type: skillcat.AuthCustom},
	}
	for i, h := range hostileTexts {
		a := auths[i%len(auths)]
		a.Name, a.Instructions = h, h
		if a.Type == skillcat.AuthOAuth2 {
			a.AuthorizationURL = h
			a.Scopes = map[string]string{h: h, "read": "Read <all>"}
		}
		access := []skillcat.Access{skillcat.Public, skillcat.Restricted, skillcat.Access(h)}[i%3]
		typ := []skillcat.CapabilityType{skillcat.API, skillcat.Plugin, skillcat.Knowledge, skillcat.Task, skillcat.CapabilityType(h)}[i%5]
		d := &skillcat.SkillDescriptor{
			ID: "x." + h, Name: h, Version: h, CapabilityType: typ, Access: access,
			Description: "# " + h + "\n\n" + h + "\n\n```json\n{\"a\": \"" + h + "\"}\n```\n",
			Provider:    skillcat.Provider{Name: h, URL: h, Email: h},
			Endpoint:    skillcat.Endpoint{URL: h, Method: []string{"", "GET", h}[i%3]},
			Auth:        a,
			Tags:        []string{h, "plain", "a&b=c d+e/f?#"},
			Inputs: json.RawMessage(`{"type":"object","description":` + jsonString(h) + `,"properties":{` + jsonString(h) +
				`:{"type":"string","enum":[` + jsonString(h) + `],"pattern":` + jsonString(h) + `}}}`),
			Output:           json.RawMessage(`true`),
			DocumentationURL: h,
		}
		if i%4 != 3 {
			d.Examples = []skillcat.Example{
				{Title: h, Inputs: json.RawMessage(`{"q":` + jsonString(h) + `}`), Output: json.RawMessage(`[1, 2.5, null]`)},
				{Title: " ", Inputs: json.RawMessage(`{}`)},
			}
		}
		out = append(out, &publishedSkill{Descriptor: d, Digest: "sha256:" + h, Summary: h})
	}
	return out
}

func jsonString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestSkillHTMLIsTheTemplate checks that skillHTML writes the bytes the
// built-in skill.html does, for synthetic skills and hostile ones, under
// sites and settings that change every part of the page.
func TestSkillHTMLIsTheTemplate(t *testing.T) {
	var skills []*publishedSkill
	for i := 0; i < 80; i++ {
		name, data := synth.Source(i, 1)
		row := parseSource(context.Background(), SourceFile{Path: name, Data: data}, name).row
		if row == nil {
			continue // a synthetic source meant to be invalid
		}
		skills = append(skills, &publishedSkill{Descriptor: decodePublished(t, row.Descriptor), Published: row.Descriptor, Digest: row.Digest, Summary: row.Summary})
	}
	if len(skills) < 40 {
		t.Fatalf("got %d valid synthetic skills, want at least 40", len(skills))
	}
	skills = append(skills, hostileDescriptors()...)
	hostileSite := Site{Title: hostileTexts[0], Description: hostileTexts[1], Logo: "img/logo.svg"}
	cases := []struct {
		name string
		cfg  Config
		site Site
	}{
		{"Default", Config{}, defaultSite},
		{"BaseURLDevDate", Config{BaseURL: "https://cat.example/a b/", Dev: true, Time: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)}, defaultSite},
		{"HostileSite", Config{BaseURL: "https://cat.example/"}, hostileSite},
	}
	for _, logo := range []string{"javascript:alert(1)", "data:image/svg+xml,<svg/>", "https://x.example/l.svg?a=1&b='2'", "/abs/logo.svg"} {
		s := hostileSite
		s.Logo, s.Title = logo, logo
		cases = append(cases, struct {
			name string
			cfg  Config
			site Site
		}{"Logo", Config{}, s})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := newPages(c.cfg, c.site)
			if err != nil {
				t.Fatal(err)
			}
			if !p.goSkill {
				t.Fatal("the built-in skill templates are not recognised: skill pages execute them")
			}
			tmpl := p.tmpls["skill.html"]
			for i, s := range skills {
				pg, err := p.skillPageData(s)
				if err != nil {
					t.Fatal(err)
				}
				// skillHTML writes from a lazy view; the template
				// reads it filled.
				got, err := p.skillHTML(pg, 0)
				if err != nil {
					t.Fatal(err)
				}
				if err := pg.Skill.fill(); err != nil {
					t.Fatal(err)
				}
				var want bytes.Buffer
				if err := tmpl.ExecuteTemplate(&want, "skill.html", pg); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want.Bytes()) {
					t.Errorf("skill %d (%q): skillHTML differs from the template\n%s", i, s.Descriptor.ID, firstDiff(got, want.Bytes()))
				}
			}
		})
	}
}

// firstDiff shows where got and want part.
func firstDiff(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(0, i-80)
	return "got:  " + strings.ReplaceAll(string(got[from:min(len(got), i+80)]), "\n", `\n`) +
		"\nwant: " + strings.ReplaceAll(string(want[from:min(len(want), i+80)]), "\n", `\n`)
}

// TestSkillPageOverride checks that a site's skill.html, or a partial it
// calls, is executed instead of skillHTML.
func TestSkillPageOverride(t *testing.T) {
	replace := func(file, old, new string) fstest.MapFS {
		data, err := fs.ReadFile(templates.FS(), file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte(old)) {
			t.Fatalf("%s has no %q", file, old)
		}
		return fstest.MapFS{file: {Data: bytes.Replace(data, []byte(old), []byte(new), 1)}}
	}
	name, data := synth.Source(3, 1)
	row := parseSource(context.Background(), SourceFile{Path: name, Data: data}, name).row
	skill := &publishedSkill{Descriptor: decodePublished(t, row.Descriptor), Published: row.Descriptor, Digest: row.Digest, Summary: row.Summary}
	for _, c := range []struct {
		name string
		fsys fs.FS
		want string
	}{
		{"SkillHTML", replace("skill.html", `<h2 id="call">Calling it</h2>`, `<h2 id="call">Mine</h2>`), `<h2 id="call">Mine</h2>`},
		{"Head", replace("partials.html", `<a class="skip-link" href="#main">`, `<a class="skip-link mine" href="#main">`), `skip-link mine`},
		{"Mark", replace("partials.html", `class="mark-bg"`, `class="mark-mine"`), `mark-mine`},
		{"Foot", replace("partials.html", `Built with skillcat`, `Made by us`), `Made by us`},
		{"OtherFile", fstest.MapFS{"zz-mine.html": {Data: []byte(`{{define "foot"}}<footer>my foot</footer>{{end}}`)}}, `<footer>my foot</footer>`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := newPages(Config{Templates: c.fsys}, defaultSite)
			if err != nil {
				t.Fatal(err)
			}
			if p.goSkill {
				t.Fatal("a changed template is taken for the built-in one")
			}
			page, err := p.skillPage(skill)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(page), c.want) {
				t.Errorf("the site's template is not used: no %q in\n%s", c.want, page)
			}
		})
	}
	// An override of a template skill pages do not use keeps skillHTML.
	p, err := newPages(Config{Templates: replace("home.html", `<main`, `<main class="mine"`)}, defaultSite)
	if err != nil {
		t.Fatal(err)
	}
	if !p.goSkill {
		t.Error("a changed home.html turned skillHTML off")
	}
}
