// Package mcp turns MCP registry server.json records into skill
// descriptors: each server with a remote (an MCP endpoint reachable over
// HTTP) becomes one plugin skill whose endpoint is that remote. It knows
// the protocol package and nothing else of skillcat.
//
// It reads both forms of the record, one server per file or a list (a
// registry response {"servers": [...]}, whose entries may wrap the server
// as {"server": {...}}, or a bare JSON array as the registry's seed data
// has it):
//
//   - the current schema: name, description, title, version, websiteUrl,
//     repository, packages[{registryType, identifier, …}] and
//     remotes[{type, url, headers[{name, isSecret, …}]}];
//   - the 2025 seed form: version_detail.version,
//     packages[{registry_name, name}] and remotes[{transport_type, url}].
//
// A server with only packages runs on the user's machine (over stdio, or
// HTTP on localhost) and has no endpoint a consumer could call: it is refused (in a list, skipped
// with a warning). docs/import.md gives every decision.
package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	skillcat "github.com/skillcat/skillcat"
)

// Format is the importer's name.
const Format = "mcp"

// MaxBytes is the largest document read.
const MaxBytes = 32 << 20

// Import reads a server.json record or a list of them, named file in
// messages, and returns a plugin skill for each server with a remote. The
// error, when the document is not a server record or none of its servers
// can be called over HTTP, is skillcat.Violations naming file, line and
// column.
func Import(file string, data []byte, opts skillcat.ImportOptions) (im *skillcat.Imported, err error) {
	defer func() {
		if r := recover(); r != nil {
			im, err = nil, violation(file, 0, 0, fmt.Sprintf("cannot import this document (importer failure: %v)", r))
		}
	}()
	if len(data) > MaxBytes {
		return nil, violation(file, 0, 0, fmt.Sprintf("document is larger than %d MiB", MaxBytes>>20))
	}
	src := &skillcat.Source{Name: file, Data: bytes.TrimPrefix(data, []byte("\ufeff"))}
	if t := bytes.TrimSpace(src.Data); len(t) > 0 && t[0] == '<' {
		return nil, violation(file, 1, 1, "this is an HTML or XML page, not an MCP server.json document")
	}
	root, vs := skillcat.ParseSource(src)
	if vs != nil {
		v := vs[0]
		return nil, violation(file, v.Line, v.Column, v.Reason)
	}
	r := &reader{src: src, opts: opts, im: &skillcat.Imported{Format: Format}, ids: skillcat.UniqueIDs{}}
	servers, list := r.servers(root)
	if servers == nil {
		line, col := src.Position(root)
		return nil, violation(file, line, col, "not an MCP server.json document: expected an object with \"name\" and \"remotes\" or \"packages\", or a list of them under \"servers\"")
	}
	var refused skillcat.Violations
	for _, s := range servers {
		if err := r.server(s.node, s.at); err != nil {
			if !list {
				return nil, err
			}
			refused = append(refused, err...)
		}
	}
	if len(r.im.Skills) == 0 {
		if len(refused) > 0 {
			return nil, refused
		}
		return nil, violation(file, 0, 0, "the list holds no servers")
	}
	for _, v := range refused {
		r.im.Warn(file, v.Line, v.Column, v.Pointer, "server skipped: "+v.Reason)
	}
	r.im.Document = r.docName(servers, list)
	return r.im, nil
}

// reader maps the servers of one document.
type reader struct {
	// placeholder is set when the last endpoint resolved got
	// placeholderServer.
	placeholder bool
	src         *skillcat.Source
	opts        skillcat.ImportOptions
	im          *skillcat.Imported
	ids         skillcat.UniqueIDs
}

// located is a server object and its JSON Pointer in the document.
type located struct {
	node *skillcat.Node
	at   string
}

// servers finds the server records: the document itself, or the entries
// of a list. list reports whether the document is a list.
func (r *reader) servers(root *skillcat.Node) ([]located, bool) {
	var items []*skillcat.Node
	at := ""
	switch {
	case root.Kind == skillcat.Array:
		items = root.Items
	case root.Kind == skillcat.Object && root.Get("servers") != nil && root.Get("servers").Kind == skillcat.Array:
		items, at = root.Get("servers").Items, "/servers"
	case root.Kind == skillcat.Object && root.Get("server") != nil && root.Get("server").Kind == skillcat.Object:
		return []located{{root.Get("server"), "/server"}}, false
	case root.Kind == skillcat.Object && root.Get("name") != nil:
		return []located{{root, ""}}, false
	default:
		return nil, false
	}
	out := make([]located, 0, len(items))
	for i, it := range items {
		p := fmt.Sprintf("%s/%d", at, i)
		if s := it.Get("server"); s != nil && s.Kind == skillcat.Object {
			it, p = s, p+"/server"
		}
		out = append(out, located{it, p})
	}
	return out, true
}

// docName names the document for --force: the server's name, or for a
// list the namespace all its servers share, else "servers".
func (r *reader) docName(servers []located, list bool) string {
	if !list {
		return skillcat.Label(text(servers[0].node, "name"), 120)
	}
	return "list: " + r.im.Folder
}

// server maps one server record.
func (r *reader) server(s *skillcat.Node, at string) skillcat.Violations {
	line, col := r.src.Position(s)
	if s.Kind != skillcat.Object {
		return violation(r.src.Name, line, col, "a server must be an object")
	}
	name := strings.TrimSpace(text(s, "name"))
	if name == "" {
		return violationAt(r.src.Name, line, col, at, "a server record needs a \"name\" such as io.github.owner/server")
	}
	remote, remoteAt, n := r.remote(s, at)
	if remote == nil {
		pk := packagesOf(s)
		reason := fmt.Sprintf("server %q has no remote: it has no endpoint a consumer could call over HTTP", name)
		if len(pk) > 0 {
			reason = fmt.Sprintf("server %q only has packages (%s), which run on the user's own machine: it has no endpoint a consumer could call over HTTP", name, strings.Join(pk, ", "))
		}
		return violationAt(r.src.Name, line, col, at, reason)
	}
	if n > 1 {
		r.im.Warn(r.src.Name, line, col, at+"/remotes", fmt.Sprintf("remotes after the first dropped (%d): a skill has one endpoint", n-1))
	}
	namespace, local, _ := strings.Cut(name, "/")
	if local == "" {
		namespace, local = "", namespace
	}
	prefix := r.opts.Prefix
	if prefix == "" {
		prefix = skillcat.IDGroups(namespace, 60)
		if prefix == "" {
			prefix = "mcp"
		}
	}
	if r.im.Prefix == "" {
		r.im.Prefix, r.im.Folder = prefix, prefix
	} else if r.im.Folder != prefix {
		r.im.Folder = "mcp" // a list of several namespaces shares one folder
	}
	slug := skillcat.IDGroups(local, 60)
	if slug == "" {
		slug = "server"
	}
	d := &skillcat.SkillDescriptor{
		Schema:         skillcat.SchemaBaseURL + skillcat.DescriptorSchemaFile,
		Protocol:       skillcat.CurrentProtocol(),
		ID:             r.ids.Make(prefix + "." + slug),
		CapabilityType: skillcat.Plugin,
	}
	d.Name = skillcat.Label(text(s, "title"), 120)
	if d.Name == "" {
		d.Name = skillcat.Label(local, 120)
	}
	ver := text(s, "version")
	if ver == "" {
		ver = text(s.Get("version_detail"), "version")
	}
	version, changed := skillcat.SemVerOf(ver)
	if changed {
		r.warn(s, at+"/version", fmt.Sprintf("version %q is not SemVer; written as %q", ver, version))
	}
	d.Version = version

	endpoint, err := r.resolve(remote.url)
	if err != "" {
		return violationAt(r.src.Name, line, col, remoteAt+"/url", fmt.Sprintf("server %q: remote url %q %s", name, remote.url, err))
	}
	if r.placeholder {
		r.placeholder = false
		r.im.Warn(r.src.Name, line, col, remoteAt+"/url", fmt.Sprintf("remote url %q is relative; the endpoint uses %s as a placeholder: edit it, or import again with --server URL", remote.url, placeholderServer))
	}
	d.Endpoint = skillcat.Endpoint{URL: endpoint, Method: "POST"}
	if remote.transport == "sse" {
		d.Endpoint.Method = "GET"
	}

	d.Provider = skillcat.Provider{Name: skillcat.Label(providerName(namespace), 120)}
	if d.Provider.Name == "" {
		d.Provider.Name = d.Name
	}
	website := skillcat.ImportedURL(text(s, "websiteUrl"))
	if website == "" {
		website = skillcat.ImportedURL(text(s, "website_url"))
	}
	repo := skillcat.ImportedURL(text(s.Get("repository"), "url"))
	if website != "" {
		d.Provider.URL = website
	} else if repo != "" {
		d.Provider.URL = repo
	}
	if repo != "" {
		d.DocumentationURL = repo
	} else {
		d.DocumentationURL = website
	}
	d.Auth, d.Access = r.auth(remote)
	if r.opts.Access != "" {
		d.Access = r.opts.Access
		if d.Access == skillcat.Restricted && d.Auth.Type == skillcat.AuthNone {
			r.warn(s, at, "access public instead of restricted: the remote needs no auth, and restricted access requires some")
			d.Access = skillcat.Public
		}
	}
	d.Description = r.description(s, name, remote)
	d.Inputs = json.RawMessage(`{"type":"object","description":"MCP JSON-RPC: the server.json names no tools, so the inputs are open. Send MCP requests (initialize, tools/list, tools/call) to the endpoint."}`)
	d.Output = json.RawMessage(`{}`)
	r.warn(s, at, fmt.Sprintf("server %q: inputs are an open object schema, since a server.json does not list the server's tools", name))
	d.Tags = []string{"mcp"}
	if t := skillcat.TagOf(remote.transport); t != "" && t != "mcp" {
		d.Tags = append(d.Tags, t)
	}
	if _, vs := validate(d); vs.HasErrors() {
		v := vs[0]
		return violationAt(r.src.Name, line, col, at, fmt.Sprintf("server %q cannot be mapped: %s: %s", name, v.Field, v.Reason))
	}
	r.im.Skills = append(r.im.Skills, d)
	return nil
}

// placeholderServer stands in for the host of a relative remote URL in a
// file; a warning says to edit it, or to pass --server.
const placeholderServer = skillcat.PlaceholderServer

// remoteInfo is a server's first remote in either form.
type remoteInfo struct {
	transport string
	url       string
	headers   []header
}

type header struct {
	name, description string
	secret, required  bool
	value             string
}

// remote returns the first remote of a server with a URL, its pointer,
// and how many remotes the server has.
func (r *reader) remote(s *skillcat.Node, at string) (*remoteInfo, string, int) {
	list := s.Get("remotes")
	if list == nil || list.Kind != skillcat.Array {
		return nil, "", 0
	}
	var first *remoteInfo
	firstAt := ""
	count := 0
	for i, it := range list.Items {
		u := strings.TrimSpace(text(it, "url"))
		if u == "" {
			continue
		}
		count++
		if first != nil {
			continue
		}
		if vars := it.Get("variables"); vars != nil && vars.Kind == skillcat.Object {
			for _, m := range vars.Members {
				if def := text(m.Value, "default"); def != "" {
					u = strings.ReplaceAll(u, "{"+m.Name+"}", def)
				}
			}
		}
		if v := pathVariable(u); v != "" {
			r.warn(it, fmt.Sprintf("%s/remotes/%d/url", at, i),
				fmt.Sprintf("the URL's variable {%s} has no default: the endpoint keeps it as %%7B%s%%7D, which no input fills; give it a default or import with --server", v, v))
		}
		ri := &remoteInfo{url: u, transport: text(it, "type")}
		if ri.transport == "" {
			ri.transport = text(it, "transport_type")
		}
		if hs := it.Get("headers"); hs != nil && hs.Kind == skillcat.Array {
			for _, h := range hs.Items {
				name := text(h, "name")
				if name == "" {
					continue
				}
				ri.headers = append(ri.headers, header{
					name: name, description: text(h, "description"), value: text(h, "value"),
					secret:   boolOf(h, "isSecret") || boolOf(h, "is_secret"),
					required: boolOf(h, "isRequired") || boolOf(h, "is_required"),
				})
			}
		}
		first, firstAt = ri, fmt.Sprintf("%s/remotes/%d", at, i)
	}
	return first, firstAt, count
}

// pathVariable returns the name of the first {variable} left in the path
// or query of a remote URL (one in the host is refused by resolve), or "".
func pathVariable(u string) string {
	_, rest, ok := strings.Cut(u, "://")
	if !ok {
		rest = u
	} else if _, p, ok := strings.Cut(rest, "/"); ok {
		rest = p
	} else {
		return ""
	}
	_, after, ok := strings.Cut(rest, "{")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(after, "}")
	return name
}

// resolve returns a remote URL as a descriptor's endpoint: absolute
// (resolved against the document's URL when relative), {variables}
// percent-encoded. The reason is non-empty when it cannot be one.
func (r *reader) resolve(raw string) (string, string) {
	if rest, ok := strings.CutPrefix(raw, "https://"); ok && strings.ContainsAny(strings.SplitN(rest, "/", 2)[0], "{}") {
		return "", "has template variables in its host without defaults; give them defaults or import with --server"
	}
	u, err := url.Parse(skillcat.EscapeURL(raw))
	if err != nil {
		return "", "is not a URL"
	}
	if r.opts.Server != "" {
		if base, err := url.Parse(r.opts.Server); err == nil {
			u = base.ResolveReference(&url.URL{Path: u.Path, RawPath: u.RawPath, RawQuery: u.RawQuery})
		}
	} else if !u.IsAbs() && r.opts.Location != "" {
		if base, err := url.Parse(r.opts.Location); err == nil {
			u = base.ResolveReference(u)
		}
	} else if !u.IsAbs() && u.Scheme == "" && u.Host == "" && u.Path != "" {
		// A relative remote in a file: keep its path under a placeholder.
		base, _ := url.Parse(placeholderServer)
		u = base.ResolveReference(&url.URL{Path: "/" + strings.TrimPrefix(u.Path, "/"), RawQuery: u.RawQuery})
		r.placeholder = true
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return "", "is not an absolute http(s) URL"
	}
	s := skillcat.EscapeURL(u.String())
	if skillcat.ImportedURL(s) == "" {
		return "", "has a host a descriptor cannot hold"
	}
	return s, ""
}

// auth maps a remote's headers: one secret header that is not
// Authorization is an api_key in that header; Authorization, or more than
// one secret header, is custom auth whose instructions name each header.
// A remote without secret headers has auth none.
func (r *reader) auth(rem *remoteInfo) (skillcat.Auth, skillcat.Access) {
	var secret []header
	for _, h := range rem.headers {
		if h.secret {
			secret = append(secret, h)
		}
	}
	if len(secret) == 0 {
		return skillcat.Auth{Type: skillcat.AuthNone}, skillcat.Public
	}
	required := false
	for _, h := range secret {
		required = required || h.required
	}
	access := skillcat.Public
	if required {
		access = skillcat.Restricted
	}
	if len(secret) == 1 && !strings.EqualFold(secret[0].name, "Authorization") {
		return skillcat.Auth{Type: skillcat.AuthAPIKey, In: "header", Name: secret[0].name}, access
	}
	var b strings.Builder
	b.WriteString("Send these headers with every request:")
	for _, h := range secret {
		fmt.Fprintf(&b, "\n\n- `%s`", h.name)
		if d := strings.TrimSpace(h.description); d != "" {
			b.WriteString(": " + strings.Join(strings.Fields(d), " "))
		}
		if !h.required {
			b.WriteString(" (optional)")
		}
	}
	return skillcat.Auth{Type: skillcat.AuthCustom, Instructions: b.String()}, access
}

// description is the server's description, then how to reach it and the
// packages it also ships as.
func (r *reader) description(s *skillcat.Node, name string, rem *remoteInfo) string {
	var parts []string
	if d := strings.TrimSpace(text(s, "description")); d != "" {
		parts = append(parts, d)
	} else {
		parts = append(parts, "The MCP server "+name+".")
	}
	transport := rem.transport
	if transport == "" {
		transport = "an unnamed transport"
	}
	parts = append(parts, fmt.Sprintf("MCP server `%s`, reached over %s at its endpoint.", name, transport))
	var plain []string
	for _, h := range rem.headers {
		if !h.secret {
			line := "`" + h.name + "`"
			if d := strings.TrimSpace(h.description); d != "" {
				line += ": " + strings.Join(strings.Fields(d), " ")
			}
			plain = append(plain, "- "+line)
		}
	}
	if len(plain) > 0 {
		parts = append(parts, "Headers to send:\n\n"+strings.Join(plain, "\n"))
	}
	if pk := packagesOf(s); len(pk) > 0 {
		parts = append(parts, "Also available to run locally as "+strings.Join(pk, ", ")+".")
	}
	text := strings.Join(parts, "\n\n")
	if rs := []rune(text); len(rs) > 20000 {
		text = string(rs[:19999]) + "…"
	}
	return text
}

// packagesOf lists a server's packages as "npm package @x/y".
func packagesOf(s *skillcat.Node) []string {
	list := s.Get("packages")
	if list == nil || list.Kind != skillcat.Array {
		return nil
	}
	var out []string
	for _, p := range list.Items {
		reg := text(p, "registryType")
		if reg == "" {
			reg = text(p, "registry_name")
		}
		id := text(p, "identifier")
		if id == "" {
			id = text(p, "name")
		}
		if id == "" {
			continue
		}
		if reg != "" && reg != "unknown" {
			out = append(out, fmt.Sprintf("%s package `%s`", reg, id))
		} else {
			out = append(out, fmt.Sprintf("package `%s`", id))
		}
	}
	return out
}

func (r *reader) warn(n *skillcat.Node, at, reason string) {
	line, col := r.src.Position(n)
	r.im.Warn(r.src.Name, line, col, at, reason)
}

// text returns the string member name of an object node, or "".
func text(n *skillcat.Node, name string) string {
	if v := n.Get(name); v != nil && v.Kind == skillcat.String {
		return v.Text
	}
	return ""
}

func boolOf(n *skillcat.Node, name string) bool {
	v := n.Get(name)
	return v != nil && v.Kind == skillcat.Bool && v.Text == "true"
}

// validate checks a descriptor with the protocol's own parser.
func validate(d *skillcat.SkillDescriptor) (*skillcat.SkillDescriptor, skillcat.Violations) {
	data, err := d.Encode()
	if err != nil {
		return nil, skillcat.Violations{{Field: skillcat.FileField, Reason: err.Error()}}
	}
	return skillcat.ParseDescriptor(d.ID+".json", data)
}

func violation(file string, line, col int, reason string) skillcat.Violations {
	return violationAt(file, line, col, "", reason)
}

func violationAt(file string, line, col int, pointer, reason string) skillcat.Violations {
	return skillcat.Violations{skillcat.ImportError(file, line, col, pointer, reason)}
}

// providerName names who publishes a server from its namespace: the
// account of an io.github.<account> or io.gitlab.<account> namespace, else
// the namespace as written.
func providerName(namespace string) string {
	for _, host := range []string{"io.github.", "io.gitlab.", "com.github."} {
		if rest, ok := strings.CutPrefix(namespace, host); ok && rest != "" {
			return rest
		}
	}
	return namespace
}
