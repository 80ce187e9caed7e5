package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/build"
	"pgregory.net/rapid"
)

// yamlish draws text made of what YAML treats specially: indicators,
// words it reads as booleans or null, numbers, dates, quotes, escapes,
// line breaks and non-ASCII letters.
func yamlish(t *rapid.T, label string) string {
	parts := []string{"yes", "No", "on", "~", "null", "0x1F", "0o17", "1e3", "-.5", ".inf", "2021-06-01", "12:30",
		": ", " #", "- ", "? ", "&a", "*a", "!tag", "|", ">", "%", "@", "`", "'", "\"", "\\", "{", "}", "[", "]", ",",
		"\t", "\n", "\r\n", "  ", "é", "日本", "\u2028", "word", "https://x.example.com/a?b=c#d", "---", "..."}
	var b strings.Builder
	for i, n := 0, rapid.IntRange(1, 6).Draw(t, label+"-n"); i < n; i++ {
		b.WriteString(rapid.SampledFrom(parts).Draw(t, label))
	}
	return b.String()
}

// TestPropertyMarkdownSource: a descriptor written as a Markdown source
// reads back, through the build's own reader, as the same descriptor,
// whatever its strings hold.
func TestPropertyMarkdownSource(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		name := strings.TrimSpace(strings.Map(func(r rune) rune {
			if unicode.IsControl(r) || r == '\u2028' {
				return ' '
			}
			return r
		}, yamlish(t, "name")))
		if name == "" {
			name = "x"
		}
		desc := strings.TrimSpace(yamlish(t, "desc"))
		if desc == "" || strings.HasPrefix(desc, "---") || strings.HasPrefix(desc, "...") {
			desc = "d " + desc
		}
		prop := yamlish(t, "prop")
		enum := quoteJSON(yamlish(t, "e1")) + "," + quoteJSON(yamlish(t, "e2"))
		propName := quoteJSON(prop)
		d := &skillcat.SkillDescriptor{
			Protocol: skillcat.CurrentProtocol(), ID: "gen.skill", Name: skillcat.Label(name, 120), Version: "1.0.0",
			CapabilityType: skillcat.API, Description: desc,
			Provider: skillcat.Provider{Name: "P"},
			Endpoint: skillcat.Endpoint{URL: "https://api.example.com/x", Method: "GET"},
			Inputs:   json.RawMessage(`{"type":"object","properties":{` + propName + `:{"enum":[` + enum + `],"description":` + propName + `}}}`),
			Output:   json.RawMessage(`{"minimum":1e-7,"maximum":123456789012345678901234567890}`),
			Auth:     skillcat.Auth{Type: skillcat.AuthCustom, Instructions: strings.TrimSpace(yamlish(t, "instr")) + "."},
			Access:   skillcat.Public,
		}
		for _, raw := range []*json.RawMessage{&d.Inputs, &d.Output} {
			n, err := skillcat.ParseJSON(*raw)
			if err != nil {
				t.Fatal(err)
			}
			*raw = n.AppendJSON(nil) // written as the protocol writes JSON
		}
		want, err := d.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if _, vs := skillcat.ParseDescriptor("gen.json", want); vs.HasErrors() {
			t.Skip("not a valid descriptor")
		}
		src, err := sourceFile(d, "md")
		if err != nil {
			t.Fatal(err)
		}
		skills, _, err := build.Skills(context.Background(), build.Config{Content: overlayFS{files: map[string][]byte{"gen.skill.md": src}}})
		if err != nil {
			t.Fatalf("read back: %v\n%s", err, src)
		}
		got, _ := skills[0].Descriptor.Encode()
		if !bytes.Equal(got, want) {
			t.Fatalf("read back as\n%s\nwant\n%s\nsource:\n%s", got, want, src)
		}
	})
}
