package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/mcp"
)

func one(t *testing.T, doc string, opts skillcat.ImportOptions) (map[string]any, string) {
	t.Helper()
	im, err := mcp.Import("server.json", []byte(doc), opts)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	data, _ := im.Skills[0].Encode()
	if _, vs := skillcat.ParseDescriptor("x.json", data); vs.HasErrors() {
		t.Fatalf("does not validate: %v\n%s", vs, data)
	}
	var m map[string]any
	json.Unmarshal(data, &m)
	var w strings.Builder
	for _, v := range im.Warnings {
		w.WriteString(v.Error() + "\n")
	}
	return m, w.String()
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestMapping holds one case per mapping rule of docs/import.md.
func TestMapping(t *testing.T) {
	const remote = `"remotes": [{"type": "streamable-http", "url": "https://mcp.example.org/mcp"%s}]`
	server := func(extra, headers string) string {
		r := strings.Replace(remote, "%s", headers, 1)
		return `{"name": "io.github.acme/files", "version": "1.0", ` + extra + r + `}`
	}
	cases := []struct {
		name, doc, member, want string
		opts                    skillcat.ImportOptions
	}{
		{name: "ID", doc: server("", ""), member: "id", want: `"io.github.acme.files"`},
		{name: "Prefix", doc: server("", ""), opts: skillcat.ImportOptions{Prefix: "acme"}, member: "id", want: `"acme.files"`},
		{name: "NameFromTitle", doc: server(`"title": "Acme Files",`, ""), member: "name", want: `"Acme Files"`},
		{name: "NameFromName", doc: server("", ""), member: "name", want: `"files"`},
		{name: "Type", doc: server("", ""), member: "capability_type", want: `"plugin"`},
		{name: "Version", doc: server("", ""), member: "version", want: `"1.0.0"`},
		{name: "Provider", doc: server(`"websiteUrl": "https://acme.example.org",`, ""), member: "provider", want: `{"name":"acme","url":"https://acme.example.org"}`},
		{name: "EndpointStreamable", doc: server("", ""), member: "endpoint", want: `{"method":"POST","url":"https://mcp.example.org/mcp"}`},
		{name: "EndpointSSE", doc: `{"name": "a/b", "remotes": [{"transport_type": "sse", "url": "https://mcp.example.org/sse"}]}`, member: "endpoint", want: `{"method":"GET","url":"https://mcp.example.org/sse"}`},
		{name: "EndpointVariables", doc: `{"name": "a/b", "remotes": [{"type": "sse", "url": "https://{tenant}.example.org/{path}/sse", "variables": {"tenant": {"default": "eu"}}}]}`, member: "endpoint", want: `{"method":"GET","url":"https://eu.example.org/%7Bpath%7D/sse"}`},
		{name: "EndpointRelative", doc: `{"name": "a/b", "remotes": [{"type": "sse", "url": "/sse"}]}`, opts: skillcat.ImportOptions{Location: "https://registry.example.org/v0/servers/x"}, member: "endpoint", want: `{"method":"GET","url":"https://registry.example.org/sse"}`},
		{name: "AuthNone", doc: server("", ""), member: "auth", want: `{"type":"none"}`},
		{name: "AuthAPIKey", doc: server("", `, "headers": [{"name": "X-Key", "isSecret": true, "isRequired": true}]`), member: "auth", want: `{"in":"header","name":"X-Key","type":"api_key"}`},
		{name: "AuthAPIKeyRestricted", doc: server("", `, "headers": [{"name": "X-Key", "isSecret": true, "isRequired": true}]`), member: "access", want: `"restricted"`},
		{name: "AuthOptionalPublic", doc: server("", `, "headers": [{"name": "X-Key", "isSecret": true}]`), member: "access", want: `"public"`},
		{name: "AuthAuthorization", doc: server("", `, "headers": [{"name": "Authorization", "description": "Bearer sk-…", "isSecret": true, "isRequired": true}]`), member: "auth", want: "{\"instructions\":\"Send these headers with every request:\\n\\n- `Authorization`: Bearer sk-…\",\"type\":\"custom\"}"},
		{name: "AuthSeveral", doc: server("", `, "headers": [{"name": "X-A", "isSecret": true, "isRequired": true}, {"name": "X-B", "isSecret": true}]`), member: "auth", want: "{\"instructions\":\"Send these headers with every request:\\n\\n- `X-A`\\n\\n- `X-B` (optional)\",\"type\":\"custom\"}"},
		{name: "AccessFlag", doc: server("", ""), opts: skillcat.ImportOptions{Access: skillcat.Private}, member: "access", want: `"private"`},
		{name: "Inputs", doc: server("", ""), member: "inputs", want: `{"description":"MCP JSON-RPC: the server.json names no tools, so the inputs are open. Send MCP requests (initialize, tools/list, tools/call) to the endpoint.","type":"object"}`},
		{name: "Description", doc: `{"name": "a/b", "description": "Does things.", "packages": [{"registry_name": "npm", "name": "b"}], "remotes": [{"type": "sse", "url": "https://x.example.org/sse", "headers": [{"name": "X-Region", "description": "Where"}]}]}`,
			member: "description", want: "\"Does things.\\n\\nMCP server `a/b`, reached over sse at its endpoint.\\n\\nHeaders to send:\\n\\n- `X-Region`: Where\\n\\nAlso available to run locally as npm package `b`.\""},
		{name: "DocumentationURL", doc: server(`"repository": {"url": "https://github.com/acme/files"},`, ""), member: "documentation_url", want: `"https://github.com/acme/files"`},
		{name: "Tags", doc: server("", ""), member: "tags", want: `["mcp","streamable-http"]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, _ := one(t, c.doc, c.opts)
			if got := js(m[c.member]); got != c.want {
				t.Errorf("%s: got %s, want %s", c.member, got, c.want)
			}
		})
	}
}

func TestRefused(t *testing.T) {
	for _, c := range []struct{ name, doc, want string }{
		{"PackagesOnly", `{"name": "a/b", "packages": [{"registryType": "pypi", "identifier": "b"}]}`, `server.json:1:1: (file): server "a/b" only has packages (pypi package ` + "`b`" + `)`},
		{"NoName", `{"remotes": [{"url": "https://x.example.org"}]}`, "not an MCP server.json document"},
		{"RemoteNotHTTP", `{"name": "a/b", "remotes": [{"type": "sse", "url": "ws://x.example.org"}]}`, "is not an absolute http(s) URL"},
		// A package may serve HTTP (transport http) too, on the user's machine: not "over stdio".
		{"PackageOverHTTP", `{"name": "a/b", "packages": [{"registryType": "npm", "identifier": "b", "transport": {"type": "http"}}]}`, "(npm package `b`), which run on the user's own machine: it has no endpoint"},
		{"ListAllPackages", `{"servers": [{"name": "a/b", "packages": [{"identifier": "b"}]}]}`, "only has packages"},
		{"HostTemplate", `{"name": "a/b", "remotes": [{"type": "sse", "url": "https://{tenant}.example.org/sse"}]}`, "template variables in its host"},
		{"Syntax", "{\n  \"name\": \n}", "server.json:3:1: (file): invalid JSON"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := mcp.Import("server.json", []byte(c.doc), skillcat.ImportOptions{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// TestVariableWithoutDefaultWarned: a remote URL's variable with no
// default stays in the endpoint as %7Bname%7D, which no input fills, so
// the import says so (docs/import.md: a warning for every piece it could
// not carry over).
func TestVariableWithoutDefaultWarned(t *testing.T) {
	doc := `{"name": "a/b", "remotes": [{"type": "sse", "url": "https://{tenant}.example.org/{path}/sse", "variables": {"tenant": {"default": "eu"}}}]}`
	_, warnings := one(t, doc, skillcat.ImportOptions{})
	if want := "remotes[0].url: the URL's variable {path} has no default: the endpoint keeps it as %7Bpath%7D"; !strings.Contains(warnings, want) {
		t.Errorf("warnings:\n%s\nwant one containing %q", warnings, want)
	}
	_, warnings = one(t, strings.Replace(doc, `{"tenant": {"default": "eu"}}`, `{"tenant": {"default": "eu"}, "path": {"default": "v1"}}`, 1), skillcat.ImportOptions{})
	if strings.Contains(warnings, "has no default") {
		t.Errorf("every variable has a default, yet:\n%s", warnings)
	}
}
