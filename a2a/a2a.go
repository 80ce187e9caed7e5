// Package a2a turns an A2A agent card (/.well-known/agent-card.json) into
// skill descriptors, one task skill per entry of the card's skills. It
// knows the protocol package and nothing else of skillcat.
//
// It reads the current card, whose endpoints are supportedInterfaces
// [{url, protocolBinding}] and whose security schemes are wrapped by kind
// ({"apiKeySecurityScheme": {...}}) with securityRequirements
// [{"schemes": {...}}], and the older one with url, preferredTransport,
// additionalInterfaces, OpenAPI-style securitySchemes ({"type":
// "apiKey", ...}) and security, or the oldest's authentication.schemes.
//
// A2A skills publish no input schema, so every skill's inputs are an open
// object schema; a warning and the schema's description say so.
// docs/import.md gives every decision.
package a2a

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"

	skillcat "github.com/skillcat/skillcat"
)

// Format is the importer's name.
const Format = "a2a"

// MaxBytes is the largest card read.
const MaxBytes = 8 << 20

// openInputs is the inputs schema of every A2A skill.
const openInputs = `{"type":"object","description":"A2A skills publish no input schema, so the inputs are open: send an A2A message (message/send) whose parts carry the request."}`

// Import reads an agent card, named file in messages, and returns a skill
// for each of its skills. The error, when the document is not an agent
// card or has no skill or endpoint, is skillcat.Violations naming file,
// line and column.
func Import(file string, data []byte, opts skillcat.ImportOptions) (im *skillcat.Imported, err error) {
	defer func() {
		if r := recover(); r != nil {
			im, err = nil, violation(file, 0, 0, "", fmt.Sprintf("cannot import this card (importer failure: %v)", r))
		}
	}()
	if len(data) > MaxBytes {
		return nil, violation(file, 0, 0, "", fmt.Sprintf("document is larger than %d MiB", MaxBytes>>20))
	}
	src := &skillcat.Source{Name: file, Data: bytes.TrimPrefix(data, []byte("\ufeff"))}
	if t := bytes.TrimSpace(src.Data); len(t) > 0 && t[0] == '<' {
		return nil, violation(file, 1, 1, "", "this is an HTML or XML page, not an A2A agent card")
	}
	root, vs := skillcat.ParseSource(src)
	if vs != nil {
		v := vs[0]
		return nil, violation(file, v.Line, v.Column, "", v.Reason)
	}
	line, col := src.Position(root)
	if root.Kind != skillcat.Object || root.Get("name") == nil || root.Get("skills") == nil {
		return nil, violation(file, line, col, "", "not an A2A agent card: expected an object with \"name\" and \"skills\"")
	}
	c := &card{src: src, root: root, opts: opts, im: &skillcat.Imported{Format: Format}}
	return c.skills()
}

// card is an agent card on its way to descriptors.
type card struct {
	src  *skillcat.Source
	root *skillcat.Node
	opts skillcat.ImportOptions
	im   *skillcat.Imported
}

func (c *card) skills() (*skillcat.Imported, error) {
	root := c.root
	name := strings.TrimSpace(text(root, "name"))
	if name == "" {
		return nil, c.errorAt(root, "/name", "the card's name is empty")
	}
	c.im.Document = skillcat.Label(name, 120)
	c.im.Prefix = c.opts.Prefix
	if c.im.Prefix == "" {
		c.im.Prefix = skillcat.Slug(name, 40)
		if c.im.Prefix == "" {
			c.im.Prefix = "agent"
		}
	}
	c.im.Folder = c.im.Prefix
	endpoint, err := c.endpoint()
	if err != nil {
		return nil, err
	}
	ver := text(root, "version")
	version, changed := skillcat.SemVerOf(ver)
	if changed {
		c.warn(root, "/version", fmt.Sprintf("version %q is not SemVer; written as %q", ver, version))
	}
	prov := c.provider(name)
	docURL := skillcat.ImportedURL(text(root, "documentationUrl"))
	cardAuth, cardRequired := c.auth(root.Get("securityRequirements"), root.Get("security"), "")
	list := root.Get("skills")
	if list.Kind != skillcat.Array || len(list.Items) == 0 {
		return nil, c.errorAt(list, "/skills", "the card lists no skills")
	}
	ids := skillcat.UniqueIDs{}
	for i, s := range list.Items {
		at := fmt.Sprintf("/skills/%d", i)
		if s.Kind != skillcat.Object {
			c.warn(s, at, "skill dropped: it is not an object")
			continue
		}
		sid := text(s, "id")
		sname := skillcat.Label(text(s, "name"), 120)
		if sname == "" {
			sname = skillcat.Label(sid, 120)
		}
		slug := skillcat.Slug(sid, 80)
		if slug == "" {
			slug = skillcat.Slug(sname, 80)
		}
		if slug == "" {
			c.warn(s, at, "skill dropped: it has neither an id nor a name")
			continue
		}
		d := &skillcat.SkillDescriptor{
			Schema:           skillcat.SchemaBaseURL + skillcat.DescriptorSchemaFile,
			Protocol:         skillcat.CurrentProtocol(),
			ID:               ids.Make(c.im.Prefix + "." + slug),
			Name:             sname,
			Version:          version,
			CapabilityType:   skillcat.Task,
			Provider:         prov,
			Endpoint:         skillcat.Endpoint{URL: endpoint, Method: "POST"},
			Inputs:           json.RawMessage(openInputs),
			Output:           json.RawMessage(`{}`),
			DocumentationURL: docURL,
		}
		d.Auth = cardAuth
		required := cardRequired
		if s.Get("securityRequirements") != nil || s.Get("security") != nil {
			d.Auth, required = c.auth(s.Get("securityRequirements"), s.Get("security"), at)
		}
		d.Access = skillcat.Public
		if required {
			d.Access = skillcat.Restricted
		}
		if c.opts.Access != "" {
			d.Access = c.opts.Access
			if d.Access == skillcat.Restricted && d.Auth.Type == skillcat.AuthNone {
				c.warn(s, at, "access public instead of restricted: the card needs no auth, and restricted access requires some")
				d.Access = skillcat.Public
			}
		}
		d.Description = c.description(s, name)
		d.Tags = tags(s.Get("tags"), func(it *skillcat.Node, reason string) { c.warn(it, at+"/tags", reason) })
		if len(d.Tags) == 20 {
			c.warn(s, at+"/tags", "tags after the 20th dropped")
		}
		if ex := s.Get("examples"); ex != nil && ex.Kind == skillcat.Array {
			for _, e := range ex.Items {
				if t := skillcat.Label(e.Text, 200); e.Kind == skillcat.String && t != "" {
					d.Examples = append(d.Examples, skillcat.Example{Title: t, Inputs: json.RawMessage(`{}`)})
				}
			}
		}
		c.warn(s, at, fmt.Sprintf("skill %q: inputs are an open object schema, since A2A skills publish no input schema", sid))
		if _, vs := validate(d); vs.HasErrors() {
			v := vs[0]
			return nil, c.errorAt(s, at, fmt.Sprintf("skill %q cannot be mapped: %s: %s", sid, v.Field, v.Reason))
		}
		c.im.Skills = append(c.im.Skills, d)
	}
	if len(c.im.Skills) == 0 {
		return nil, c.errorAt(list, "/skills", "the card lists no skill that can be imported")
	}
	return c.im, nil
}

// endpoint returns the URL of the card's preferred HTTP interface: the
// first supportedInterfaces entry with an http(s) URL, else the older url
// member (then additionalInterfaces). Interfaces after the chosen one are
// dropped with a warning.
func (c *card) endpoint() (string, error) {
	type iface struct {
		url, binding, at string
		n                *skillcat.Node
	}
	var all []iface
	for _, m := range []struct{ member, bind string }{{"supportedInterfaces", "protocolBinding"}, {"additionalInterfaces", "transport"}} {
		if list := c.root.Get(m.member); list != nil && list.Kind == skillcat.Array {
			for i, it := range list.Items {
				if u := text(it, "url"); u != "" {
					all = append(all, iface{u, text(it, m.bind), fmt.Sprintf("/%s/%d", m.member, i), it})
				}
			}
		}
		if m.member == "supportedInterfaces" {
			if u := text(c.root, "url"); u != "" {
				all = append(all, iface{u, text(c.root, "preferredTransport"), "/url", c.root.Get("url")})
			}
		}
	}
	// JSON-RPC and HTTP+JSON interfaces first, in the card's order; gRPC
	// and other bindings only when there is nothing else.
	sort.SliceStable(all, func(i, j int) bool { return httpBinding(all[i].binding) && !httpBinding(all[j].binding) })
	chosen := -1
	var why string
	for i, f := range all {
		if chosen >= 0 {
			if f.url != all[chosen].url {
				c.warn(f.n, f.at, fmt.Sprintf("interface %s %q dropped: a skill has one endpoint, the card's first HTTP interface", f.binding, f.url))
			}
			continue
		}
		u, reason := c.resolve(f.url)
		if reason != "" {
			why = fmt.Sprintf("interface url %q %s", f.url, reason)
			continue
		}
		all[i].url = u
		chosen = i
	}
	if chosen < 0 && len(all) > 0 && httpBinding(all[0].binding) {
		// A template ("{BASE_URL}/a2a") or a relative URL in a card read
		// from a file: keep its path under --server, or a placeholder.
		base := c.opts.Server
		if base == "" {
			base = placeholderServer
		}
		u := strings.TrimRight(base, "/") + templatePath(all[0].url)
		if u = skillcat.ImportedURL(u); u != "" {
			if c.opts.Server == "" {
				c.warn(all[0].n, all[0].at, fmt.Sprintf("%s; endpoints use %s as a placeholder: edit them, or import again with --server URL", why, placeholderServer))
			}
			return u, nil
		}
	}
	if chosen < 0 && len(all) == 0 && c.opts.Server != "" {
		// No interface at all: --server says where the agent is.
		if u := skillcat.ImportedURL(c.opts.Server); u != "" {
			return u, nil
		}
	}
	if chosen < 0 {
		if why == "" {
			why = "the card names no interface URL (supportedInterfaces or url); give one, or import with --server URL"
		}
		return "", c.errorAt(c.root, "", why)
	}
	return all[chosen].url, nil
}

// placeholderServer stands in for an interface URL the card does not
// give as an absolute URL; a warning says to edit it, or to pass --server.
const placeholderServer = skillcat.PlaceholderServer

// templatePath returns the path of an interface URL that is a template or
// relative: what follows a leading {VARIABLE} or host, percent-encoded
// where a descriptor's URL needs it; "" when there is none.
func templatePath(raw string) string {
	raw = strings.TrimSpace(raw)
	if strings.HasPrefix(raw, "{") {
		if i := strings.IndexByte(raw, '}'); i >= 0 {
			raw = raw[i+1:]
		}
	}
	if i := strings.Index(raw, "://"); i >= 0 {
		raw = raw[i+3:]
		if j := strings.IndexByte(raw, '/'); j >= 0 {
			raw = raw[j:]
		} else {
			raw = ""
		}
	}
	if raw == "" || strings.ContainsAny(raw, " \t") {
		return ""
	}
	if !strings.HasPrefix(raw, "/") {
		raw = "/" + raw
	}
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		ch := raw[i]
		if ch <= ' ' || ch > '~' || ch == '{' || ch == '}' {
			fmt.Fprintf(&b, "%%%02X", ch)
			continue
		}
		b.WriteByte(ch)
	}
	return b.String()
}

// httpBinding reports whether an interface's binding is spoken over
// HTTP: JSONRPC, HTTP+JSON (REST in older cards), or none named.
func httpBinding(b string) bool {
	switch strings.ToUpper(b) {
	case "", "JSONRPC", "HTTP+JSON", "REST", "HTTP":
		return true
	}
	return false
}

// resolve returns u as an absolute http(s) URL, resolved against the
// card's own URL when relative; reason says why it cannot be.
func (c *card) resolve(raw string) (string, string) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", "is not a URL"
	}
	if !u.IsAbs() && c.opts.Location != "" {
		if base, err := url.Parse(c.opts.Location); err == nil {
			u = base.ResolveReference(u)
		}
	}
	if c.opts.Server != "" && !u.IsAbs() {
		if base, err := url.Parse(c.opts.Server); err == nil {
			u = base.ResolveReference(u)
		}
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return "", "is not an http(s) URL"
	}
	s := skillcat.ImportedURL(u.String())
	if s == "" {
		return "", "is not a URL a descriptor can hold"
	}
	return s, ""
}

// provider is the card's provider: organization and url; without one, the
// agent's name.
func (c *card) provider(agent string) skillcat.Provider {
	p := c.root.Get("provider")
	prov := skillcat.Provider{Name: skillcat.Label(text(p, "organization"), 120)}
	if prov.Name == "" {
		prov.Name = skillcat.Label(agent, 120)
	}
	if u := text(p, "url"); u != "" {
		if prov.URL = skillcat.ImportedURL(u); prov.URL == "" {
			c.warn(p, "/provider/url", fmt.Sprintf("provider url %q dropped: not an absolute http(s) URL", u))
		}
	}
	return prov
}

// description is the skill's description, the modes it takes and gives,
// and a line naming the agent.
func (c *card) description(s *skillcat.Node, agent string) string {
	var parts []string
	if d := strings.TrimSpace(text(s, "description")); d != "" {
		parts = append(parts, d)
	} else {
		parts = append(parts, fmt.Sprintf("The %s skill of the agent %s.", skillcat.Label(text(s, "name"), 120), agent))
	}
	modes := func(member, fallback string) []string {
		n := s.Get(member)
		if n == nil {
			n = c.root.Get(fallback)
		}
		var out []string
		if n != nil && n.Kind == skillcat.Array {
			for _, it := range n.Items {
				if it.Kind == skillcat.String && it.Text != "" {
					out = append(out, "`"+strings.ReplaceAll(it.Text, "`", "'")+"`")
				}
			}
		}
		return out
	}
	if in := modes("inputModes", "defaultInputModes"); len(in) > 0 {
		parts = append(parts, "Takes "+strings.Join(in, ", ")+".")
	}
	if out := modes("outputModes", "defaultOutputModes"); len(out) > 0 {
		parts = append(parts, "Gives "+strings.Join(out, ", ")+".")
	}
	parts = append(parts, fmt.Sprintf("A skill of the A2A agent %s: send it an A2A message; the inputs have no schema.", strings.Join(strings.Fields(agent), " ")))
	text := strings.Join(parts, "\n\n")
	if rs := []rune(text); len(rs) > 20000 {
		text = string(rs[:19999]) + "…"
	}
	return text
}

// auth maps the card's (or a skill's) security requirement onto a
// descriptor's auth: the first scheme of the first alternative that
// names a defined scheme. required is false when there is no requirement
// or an empty alternative makes auth optional.
func (c *card) auth(reqs, oldReqs *skillcat.Node, at string) (skillcat.Auth, bool) {
	none := skillcat.Auth{Type: skillcat.AuthNone}
	var alts [][]string // scheme names of each alternative
	switch {
	case reqs != nil && reqs.Kind == skillcat.Array:
		for _, r := range reqs.Items {
			var names []string
			if sc := r.Get("schemes"); sc != nil && sc.Kind == skillcat.Object {
				for _, m := range sc.Members {
					names = append(names, m.Name)
				}
			}
			alts = append(alts, names)
		}
	case oldReqs != nil && oldReqs.Kind == skillcat.Array:
		for _, r := range oldReqs.Items {
			var names []string
			for _, m := range r.Members {
				names = append(names, m.Name)
			}
			alts = append(alts, names)
		}
	default:
		if at == "" {
			return c.oldestAuth()
		}
		return none, false
	}
	required := len(alts) > 0
	var chosen *skillcat.Auth
	for _, names := range alts {
		if len(names) == 0 {
			required = false
			continue
		}
		for _, n := range names {
			if chosen != nil {
				c.warn(c.root, at+"/security", fmt.Sprintf("security scheme %q dropped: a descriptor has one auth", n))
				continue
			}
			if a, ok := c.scheme(n); ok {
				chosen = &a
			} else {
				c.warn(c.root, "/securitySchemes", fmt.Sprintf("security scheme %q dropped: the card does not define it", n))
			}
		}
	}
	if chosen == nil {
		return none, false
	}
	return *chosen, required
}

// oldestAuth maps the first cards' authentication.schemes.
func (c *card) oldestAuth() (skillcat.Auth, bool) {
	a := c.root.Get("authentication")
	sc := a.Get("schemes")
	if sc == nil || sc.Kind != skillcat.Array {
		return skillcat.Auth{Type: skillcat.AuthNone}, false
	}
	var names []string
	for _, it := range sc.Items {
		if it.Kind == skillcat.String && it.Text != "" && !strings.EqualFold(it.Text, "public") && !strings.EqualFold(it.Text, "none") {
			names = append(names, it.Text)
		}
	}
	if len(names) == 0 {
		return skillcat.Auth{Type: skillcat.AuthNone}, false
	}
	return skillcat.Auth{Type: skillcat.AuthCustom, Instructions: "Authenticate with " + strings.Join(names, " or ") +
		" as the agent's card says (for Bearer, send `Authorization: Bearer <token>`)."}, true
}

// scheme maps one named security scheme, in the current wrapped form or
// the older OpenAPI form.
func (c *card) scheme(name string) (skillcat.Auth, bool) {
	s := c.root.Get("securitySchemes").Get(name)
	if s == nil || s.Kind != skillcat.Object {
		return skillcat.Auth{}, false
	}
	typ := strings.ToLower(text(s, "type"))
	body := s
	for _, m := range s.Members { // the current form: one member naming the kind
		if m.Value.Kind == skillcat.Object && strings.HasSuffix(m.Name, "SecurityScheme") {
			typ = strings.ToLower(strings.TrimSuffix(m.Name, "SecurityScheme"))
			body = m.Value
		}
	}
	note := ""
	if d := strings.TrimSpace(text(body, "description")); d != "" {
		note = "\n\n" + d
	}
	custom := func(s string) (skillcat.Auth, bool) {
		return skillcat.Auth{Type: skillcat.AuthCustom, Instructions: s + note}, true
	}
	switch typ {
	case "apikey":
		in := strings.ToLower(text(body, "location"))
		if in == "" {
			in = strings.ToLower(text(body, "in"))
		}
		key := text(body, "name")
		if (in == "header" || in == "query") && key != "" {
			return skillcat.Auth{Type: skillcat.AuthAPIKey, In: in, Name: key}, true
		}
		if in == "cookie" && key != "" {
			return custom(fmt.Sprintf("Send the API key in the cookie %q.", key))
		}
		return custom("Send the agent's API key as its card describes.")
	case "http", "httpauth":
		switch strings.ToLower(text(body, "scheme")) {
		case "basic":
			return custom("Use HTTP Basic authentication: send `Authorization: Basic <base64 of user:password>`.")
		case "bearer", "":
			return custom("Send a bearer token in the `Authorization` header: `Authorization: Bearer <token>`.")
		}
		return custom(fmt.Sprintf("Use HTTP %q authentication in the `Authorization` header.", text(body, "scheme")))
	case "oauth2":
		flows := body.Get("flows")
		for _, f := range []string{"authorizationCode", "clientCredentials", "deviceCode", "password"} {
			flow := flows.Get(f)
			token := skillcat.ImportedURL(text(flow, "tokenUrl"))
			if flow == nil || token == "" {
				continue
			}
			a := skillcat.Auth{Type: skillcat.AuthOAuth2, TokenURL: token}
			if f == "authorizationCode" {
				a.AuthorizationURL = skillcat.ImportedURL(text(flow, "authorizationUrl"))
			}
			if sc := flow.Get("scopes"); sc != nil && sc.Kind == skillcat.Object && len(sc.Members) > 0 {
				a.Scopes = map[string]string{}
				for _, m := range sc.Members {
					a.Scopes[m.Name] = m.Value.Text
				}
			}
			return a, true
		}
		return custom("Get an OAuth 2.0 access token as the agent's card describes and send it as `Authorization: Bearer <token>`.")
	case "openidconnect":
		return custom(fmt.Sprintf("Get an OpenID Connect token from the provider described at %s and send it as `Authorization: Bearer <token>`.", text(body, "openIdConnectUrl")))
	case "mtls", "mutualtls":
		return custom("Present a client TLS certificate the agent trusts (mutual TLS).")
	}
	return custom(fmt.Sprintf("Authenticate with the card's %q scheme.", name))
}

// tags returns a skill's tags as descriptor tags: sanitized, unique, at
// most 20, "a2a" first. A tag of which nothing can be kept is dropped
// with a warning.
func tags(n *skillcat.Node, warn func(it *skillcat.Node, reason string)) []string {
	out := []string{"a2a"}
	seen := map[string]bool{"a2a": true}
	if n != nil && n.Kind == skillcat.Array {
		for _, it := range n.Items {
			t := skillcat.TagOf(it.Text)
			if it.Kind == skillcat.String && t == "" {
				warn(it, skillcat.TagDropped(it.Text))
			}
			if it.Kind == skillcat.String && t != "" && !seen[t] && len(out) < 20 {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

func (c *card) warn(n *skillcat.Node, at, reason string) {
	line, col := 0, 0
	if n != nil {
		line, col = c.src.Position(n)
	}
	c.im.Warn(c.src.Name, line, col, at, reason)
}

func (c *card) errorAt(n *skillcat.Node, at, reason string) skillcat.Violations {
	line, col := c.src.Position(n)
	return violation(c.src.Name, line, col, at, reason)
}

// text returns the string member name of an object node, or "".
func text(n *skillcat.Node, name string) string {
	if v := n.Get(name); v != nil && v.Kind == skillcat.String {
		return v.Text
	}
	return ""
}

// validate checks a descriptor with the protocol's own parser.
func validate(d *skillcat.SkillDescriptor) (*skillcat.SkillDescriptor, skillcat.Violations) {
	data, err := d.Encode()
	if err != nil {
		return nil, skillcat.Violations{{Field: skillcat.FileField, Reason: err.Error()}}
	}
	return skillcat.ParseDescriptor(d.ID+".json", data)
}

func violation(file string, line, col int, pointer, reason string) skillcat.Violations {
	return skillcat.Violations{skillcat.ImportError(file, line, col, pointer, reason)}
}
