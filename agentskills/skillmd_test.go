package agentskills_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf16"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/agentskills"
	"github.com/skillcat/skillcat/internal/skillsref"
	"github.com/yuin/goldmark"
	gmhtml "github.com/yuin/goldmark/renderer/html"
	"go.yaml.in/yaml/v3"
	"pgregory.net/rapid"
)

// genText draws text that is hard to put in YAML front matter: quotes,
// backslashes, colons, "---", "#", line breaks, control characters,
// characters outside the BMP and YAML keywords.
var genText = rapid.Custom(func(t *rapid.T) string {
	words := rapid.SliceOfN(rapid.SampledFrom([]string{
		"Forecast", `"quoted"`, `back\slash`, "key: value", "---", "a---b", "#tag", "line\nbreak", "tab\there",
		"\x7f", "\x00", "\x1b[31m", "\u009b", "😀", "ünïcode", "null", "true", "1e3", "- item", "[x]", "{y}", "&anchor", "*alias", "!tag", "|", ">", "'", "`code`",
	}), 1, 12).Draw(t, "words")
	return strings.Join(words, " ")
})

// genSkill draws a descriptor with hostile text and its SKILL.md inputs.
func genSkill(t *rapid.T, i int) *agentskills.Skill {
	auth := rapid.SampledFrom([]skillcat.Auth{
		{Type: skillcat.AuthNone},
		{Type: skillcat.AuthAPIKey, In: "header", Name: "X-Key"},
		{Type: skillcat.AuthAPIKey, In: "query", Name: "key"},
		{Type: skillcat.AuthOAuth2, TokenURL: "https://auth.example.com/token", Scopes: map[string]string{"read": "Read it.", "write": "Write\nit."}},
		{Type: skillcat.AuthCustom, Instructions: "Ask for access.\n---\nThen wait."},
		{Type: skillcat.AuthCustom, Instructions: "Send \x1b]0;title\x07 and\x00 this."},
		{Type: skillcat.AuthAPIKey, In: "header", Name: "X-\x1b[2J"},
	}).Draw(t, "auth")
	d := &skillcat.SkillDescriptor{
		ID:             fmt.Sprintf("s%d.%s", i, rapid.StringMatching(`[a-z0-9]{1,8}`).Draw(t, "id")),
		Name:           genText.Draw(t, "name"),
		Version:        "1.0.0",
		CapabilityType: rapid.SampledFrom(skillcat.CapabilityTypes).Draw(t, "type"),
		Provider:       skillcat.Provider{Name: genText.Draw(t, "provider")},
		Endpoint:       skillcat.Endpoint{URL: "https://api.example.com/run", Method: rapid.SampledFrom([]string{"", "GET", "POST", "DELETE"}).Draw(t, "method")},
		Inputs:         json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","description":"` + "```" + ` fence"}}}`),
		Output:         json.RawMessage(`true`),
		Auth:           auth,
		Access:         skillcat.Public,
		Examples:       []skillcat.Example{{Title: genText.Draw(t, "example"), Inputs: json.RawMessage(`{"q":"x"}`), Output: json.RawMessage(`1e-7`)}},
	}
	summary := genText.Draw(t, "summary")
	if rapid.Bool().Draw(t, "long") {
		summary = strings.Repeat("😀 long ", 200) // more than 1024 UTF-16 code units
	}
	return &agentskills.Skill{Descriptor: d, Summary: summary, Digest: "sha256:" + strings.Repeat("0", 64),
		DescriptorURL: "../../../skills/" + d.ID + ".json", PageURL: "../../../skills/" + d.ID + "/"}
}

// allowed are the front matter members the Agent Skills specification names.
var allowed = map[string]bool{"name": true, "description": true, "license": true, "compatibility": true, "metadata": true, "allowed-tools": true}

// TestDocument writes SKILL.md files for hostile descriptors and checks
// each the way the reference validators read it (the front matter ends at
// the first "---" after the opening one), then has skills-ref validate
// them all.
func TestDocument(t *testing.T) {
	dir := t.TempDir()
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		s := genSkill(rt, n)
		n++
		s.Name = agentskills.Names([]string{s.Descriptor.ID})[s.Descriptor.ID]
		doc, err := agentskills.Document(s)
		if err != nil {
			rt.Fatal(err)
		}
		text := string(doc)
		if i := strings.IndexFunc(text, func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\t' }); i >= 0 {
			rt.Fatalf("SKILL.md holds the control character %q at byte %d: a text document has no escape for it:\n%q", text[i], i, text)
		}
		if !strings.HasPrefix(text, "---\n") {
			rt.Fatalf("SKILL.md does not start with front matter:\n%s", text)
		}
		parts := strings.SplitN(text, "---", 3)
		var fm map[string]any
		if err := yaml.Unmarshal([]byte(parts[1]), &fm); err != nil {
			rt.Fatalf("front matter up to the first ---: %v\n%s", err, parts[1])
		}
		for k := range fm {
			if !allowed[k] {
				rt.Errorf("front matter member %q is not allowed", k)
			}
		}
		if fm["name"] != s.Name {
			rt.Errorf("name = %#v, want %q", fm["name"], s.Name)
		}
		desc, _ := fm["description"].(string)
		d := s.Descriptor
		if want := agentskills.Description(s.Summary, d.Name, d.ID, d.CapabilityType, d.Provider.Name); desc != want {
			rt.Errorf("description = %q, want %q", desc, want)
		}
		if units := len(utf16.Encode([]rune(desc))); desc == "" || units > agentskills.MaxDescription {
			rt.Errorf("description is %d UTF-16 code units long, want 1–%d", units, agentskills.MaxDescription)
		}
		meta, ok := fm["metadata"].(map[string]any)
		if !ok || meta["id"] != d.ID || meta["version"] != d.Version || meta["capability_type"] != string(d.CapabilityType) || meta["descriptor_url"] != s.DescriptorURL {
			rt.Errorf("metadata = %#v, want the id, version, capability type and descriptor URL as strings", fm["metadata"])
		}
		for k, v := range meta {
			if _, ok := v.(string); !ok {
				rt.Errorf("metadata.%s = %#v, want a string", k, v)
			}
		}
		folder := filepath.Join(dir, s.Name)
		if err := os.MkdirAll(folder, 0o755); err != nil {
			rt.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(folder, "SKILL.md"), doc, 0o644); err != nil {
			rt.Fatal(err)
		}
	})
	skillsref.Check(t, dir)
}

// TestAppendKeepsWhatWasThere holds AppendInstructions and
// AppendDocumentWith to Instructions and DocumentWith after what dst held,
// whatever its room: a buffer that a caller reuses for one document after
// another.
func TestAppendKeepsWhatWasThere(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSkill(t, 0)
		s.Name = agentskills.Names([]string{s.Descriptor.ID})[s.Descriptor.ID]
		head := []byte(genText.Draw(t, "head"))
		dst := append(make([]byte, 0, rapid.IntRange(len(head), 16384).Draw(t, "room")), head...)
		ins, err := agentskills.Instructions(s)
		if err != nil {
			t.Fatal(err)
		}
		got, err := agentskills.AppendInstructions(dst, s)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(head)+string(ins) {
			t.Fatalf("AppendInstructions:\n%q\nwant what dst held, then\n%q", got, ins)
		}
		doc := agentskills.DocumentWith(s, ins)
		if got := agentskills.AppendDocumentWith(dst, s, ins); string(got) != string(head)+string(doc) {
			t.Fatalf("AppendDocumentWith:\n%q\nwant what dst held, then\n%q", got, doc)
		}
	})
}

// TestDescriptionEndsSentence holds Description to one sentence after
// another: a summary without a full stop (an imported OpenAPI summary
// such as "Price Estimates") gets one, and one that ends a sentence is
// left as it is.
func TestDescriptionEndsSentence(t *testing.T) {
	for summary, want := range map[string]string{
		"Price Estimates":           "Price Estimates. Use it",
		"Forecasts.":                "Forecasts. Use it",
		"Is it up?":                 "Is it up? Use it",
		"Cut at a word…":            "Cut at a word… Use it",
		`He said "go."`:             `He said "go." Use it`,
		"Returns (see below.)":      "Returns (see below.) Use it",
		"Returns these:":            "Returns these: Use it",
		"":                          "Weather. Use it",
		"Deletes a pet (by its id)": "Deletes a pet (by its id). Use it",
	} {
		got := agentskills.Description(summary, "Weather", "w.f", skillcat.API, "Acme")
		if !strings.HasPrefix(got, want) {
			t.Errorf("Description(%q) = %q, want it to start with %q", summary, got, want)
		}
	}
}

// TestInstructionsMarkdownText holds SKILL.md's plain texts to text: a
// name, summary, provider or example title holding what Markdown reads as
// HTML or emphasis shows those characters when the body is rendered.
func TestInstructionsMarkdownText(t *testing.T) {
	d := &skillcat.SkillDescriptor{
		ID: "acme.x", Name: "Foo_bar_baz <b>", Version: "1.0.0", CapabilityType: skillcat.API,
		Provider: skillcat.Provider{Name: "*Acme*"},
		Endpoint: skillcat.Endpoint{URL: "https://api.example.com/run"},
		Inputs:   json.RawMessage(`{"type":"object"}`), Output: json.RawMessage(`true`),
		Auth: skillcat.Auth{Type: skillcat.AuthNone}, Access: skillcat.Public,
		Examples: []skillcat.Example{{Title: "<img src=x onerror=alert(1)>", Inputs: json.RawMessage(`{}`)}},
	}
	body, err := agentskills.Instructions(&agentskills.Skill{Descriptor: d, Summary: "Use <script>alert(1)</script> and _x_"})
	if err != nil {
		t.Fatal(err)
	}
	var html strings.Builder
	if err := goldmark.New(goldmark.WithRendererOptions(gmhtml.WithUnsafe())).Convert(body, &html); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<script", "<b>", "<img", "<em>"} {
		if strings.Contains(html.String(), bad) {
			t.Errorf("rendered SKILL.md body holds %q:\n%s\nfrom:\n%s", bad, html.String(), body)
		}
	}
	for _, want := range []string{"Foo_bar_baz &lt;b&gt;", "*Acme*", "Use &lt;script&gt;alert(1)&lt;/script&gt; and _x_", "&lt;img src=x onerror=alert(1)&gt;"} {
		if !strings.Contains(html.String(), want) {
			t.Errorf("rendered SKILL.md body lacks %q:\n%s", want, html.String())
		}
	}
}
