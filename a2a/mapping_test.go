package a2a_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/a2a"
)

func js(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// card makes an agent card: extra members, then one skill.
func card(extra, skill string) string {
	if skill == "" {
		skill = `{"id": "sum_up", "name": "Sum up", "description": "Summarises.", "tags": ["Text Tools"], "examples": ["Sum up this page"]}`
	}
	return `{"name": "Note Taker", "version": "1.0.0", "url": "https://agent.notes.example.org/a2a", ` + extra + `"skills": [` + skill + `]}`
}

// TestMapping holds one case per mapping rule of docs/import.md.
func TestMapping(t *testing.T) {
	schemes := func(def, req string) string {
		return `"securitySchemes": {"s": ` + def + `}, ` + req + `, `
	}
	cases := []struct {
		name, doc, member, want string
		opts                    skillcat.ImportOptions
	}{
		{name: "ID", doc: card("", ""), member: "id", want: `"note-taker.sum-up"`},
		{name: "Prefix", doc: card("", ""), opts: skillcat.ImportOptions{Prefix: "acme"}, member: "id", want: `"acme.sum-up"`},
		{name: "Type", doc: card("", ""), member: "capability_type", want: `"task"`},
		{name: "Name", doc: card("", ""), member: "name", want: `"Sum up"`},
		{name: "Tags", doc: card("", ""), member: "tags", want: `["a2a","text-tools"]`},
		{name: "Examples", doc: card("", ""), member: "examples", want: `[{"inputs":{},"title":"Sum up this page"}]`},
		{name: "ProviderFromCard", doc: card(`"provider": {"organization": "Notes Inc", "url": "https://notes.example.org"}, `, ""), member: "provider", want: `{"name":"Notes Inc","url":"https://notes.example.org"}`},
		{name: "ProviderFallback", doc: card("", ""), member: "provider", want: `{"name":"Note Taker"}`},
		{name: "EndpointOldURL", doc: card("", ""), member: "endpoint", want: `{"method":"POST","url":"https://agent.notes.example.org/a2a"}`},
		{name: "EndpointInterfacesPreferHTTP", doc: `{"name": "N", "supportedInterfaces": [{"url": "https://g.example.org", "protocolBinding": "GRPC"}, {"url": "https://j.example.org/rpc", "protocolBinding": "JSONRPC"}], "skills": [{"id": "s", "name": "S"}]}`, member: "endpoint", want: `{"method":"POST","url":"https://j.example.org/rpc"}`},
		{name: "EndpointFromServer", doc: `{"name": "N", "skills": [{"id": "s", "name": "S"}]}`, opts: skillcat.ImportOptions{Server: "https://agent.example.org/a2a"}, member: "endpoint", want: `{"method":"POST","url":"https://agent.example.org/a2a"}`},
		{name: "EndpointRelative", doc: `{"name": "N", "url": "/a2a", "skills": [{"id": "s", "name": "S"}]}`, opts: skillcat.ImportOptions{Location: "https://agent.example.org/.well-known/agent-card.json"}, member: "endpoint", want: `{"method":"POST","url":"https://agent.example.org/a2a"}`},
		{name: "Inputs", doc: card("", ""), member: "inputs", want: `{"description":"A2A skills publish no input schema, so the inputs are open: send an A2A message (message/send) whose parts carry the request.","type":"object"}`},
		{name: "AuthNone", doc: card("", ""), member: "auth", want: `{"type":"none"}`},
		{name: "AuthOldAPIKey", doc: card(schemes(`{"type": "apiKey", "in": "query", "name": "k"}`, `"security": [{"s": []}]`), ""), member: "auth", want: `{"in":"query","name":"k","type":"api_key"}`},
		{name: "AuthNewAPIKey", doc: card(schemes(`{"apiKeySecurityScheme": {"location": "header", "name": "X-K"}}`, `"securityRequirements": [{"schemes": {"s": {"list": []}}}]`), ""), member: "auth", want: `{"in":"header","name":"X-K","type":"api_key"}`},
		{name: "AuthNewOAuth2", doc: card(schemes(`{"oauth2SecurityScheme": {"flows": {"clientCredentials": {"tokenUrl": "https://id.example.org/t", "scopes": {"a": "A"}}}}}`, `"securityRequirements": [{"schemes": {"s": {"list": ["a"]}}}]`), ""), member: "auth", want: `{"scopes":{"a":"A"},"token_url":"https://id.example.org/t","type":"oauth2"}`},
		{name: "AuthHTTPBasic", doc: card(schemes(`{"httpAuthSecurityScheme": {"scheme": "Basic"}}`, `"securityRequirements": [{"schemes": {"s": {"list": []}}}]`), ""), member: "auth", want: "{\"instructions\":\"Use HTTP Basic authentication: send `Authorization: Basic <base64 of user:password>`.\",\"type\":\"custom\"}"},
		{name: "AuthMTLS", doc: card(schemes(`{"mtlsSecurityScheme": {}}`, `"securityRequirements": [{"schemes": {"s": {"list": []}}}]`), ""), member: "auth", want: `{"instructions":"Present a client TLS certificate the agent trusts (mutual TLS).","type":"custom"}`},
		{name: "AuthOldest", doc: card(`"authentication": {"schemes": ["Bearer"]}, `, ""), member: "auth", want: "{\"instructions\":\"Authenticate with Bearer as the agent's card says (for Bearer, send `Authorization: Bearer <token>`).\",\"type\":\"custom\"}"},
		{name: "AccessRestricted", doc: card(schemes(`{"type": "apiKey", "in": "header", "name": "K"}`, `"security": [{"s": []}]`), ""), member: "access", want: `"restricted"`},
		{name: "SkillSecurityOverrides", doc: card(schemes(`{"type": "apiKey", "in": "header", "name": "K"}`, `"security": [{"s": []}]`), `{"id": "open", "name": "Open", "security": []}`), member: "auth", want: `{"type":"none"}`},
		{name: "Description", doc: card(`"defaultInputModes": ["text/plain"], "defaultOutputModes": ["application/json"], `, ""), member: "description", want: "\"Summarises.\\n\\nTakes `text/plain`.\\n\\nGives `application/json`.\\n\\nA skill of the A2A agent Note Taker: send it an A2A message; the inputs have no schema.\""},
		{name: "DocumentationURL", doc: card(`"documentationUrl": "https://notes.example.org/docs", `, ""), member: "documentation_url", want: `"https://notes.example.org/docs"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			im, err := a2a.Import("card.json", []byte(c.doc), c.opts)
			if err != nil {
				t.Fatalf("import: %v", err)
			}
			data, _ := im.Skills[0].Encode()
			if _, vs := skillcat.ParseDescriptor("x.json", data); vs.HasErrors() {
				t.Fatalf("does not validate: %v", vs)
			}
			var m map[string]any
			json.Unmarshal(data, &m)
			if got := js(m[c.member]); got != c.want {
				t.Errorf("%s: got %s, want %s", c.member, got, c.want)
			}
		})
	}
}

func TestRefused(t *testing.T) {
	for _, c := range []struct{ name, doc, want string }{
		{"NotACard", `{"openapi": "3.0.0"}`, "not an A2A agent card"},
		{"NoSkills", `{"name": "N", "url": "https://a.example.org", "skills": []}`, "no skills"},
		{"GRPCOnly", `{"name": "N", "supportedInterfaces": [{"url": "grpc.example.org:443", "protocolBinding": "GRPC"}], "skills": [{"id": "s"}]}`, "is not an http(s) URL"},
		{"HTML", `<html><body>Not Found</body></html>`, "card.json:1:1: (file): this is an HTML or XML page"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := a2a.Import("card.json", []byte(c.doc), skillcat.ImportOptions{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// TestTagDroppedWarned holds the import to its promise of a warning for
// every piece it drops: a tag of which nothing can be kept ("日本", "!!!")
// is named, at its position in the card.
func TestTagDroppedWarned(t *testing.T) {
	doc := card("", `{"id": "s", "name": "S", "tags": ["Text Tools", "日本", "!!!"]}`)
	im, err := a2a.Import("card.json", []byte(doc), skillcat.ImportOptions{})
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	var got []string
	for _, w := range im.Warnings {
		if strings.Contains(w.Reason, "dropped") && strings.Contains(w.Field, "tags") {
			got = append(got, fmt.Sprintf("%d:%d: %s", w.Line, w.Column, w.Reason))
		}
	}
	want := []string{
		`1:149: tag "日本" dropped: a tag keeps only the letters a-z, digits and "-", and it has none`,
		`1:155: tag "!!!" dropped: a tag keeps only the letters a-z, digits and "-", and it has none`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("tag warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
