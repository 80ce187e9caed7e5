// Package openapi turns an OpenAPI document (3.0 or 3.1, JSON or YAML; a
// Swagger 2.0 document is converted to 3.0 first) into skill descriptors,
// one api skill per operation. It reads documents with
// github.com/getkin/kin-openapi and knows the protocol package, nothing
// else of skillcat.
//
// Every mapping decision is written down in docs/import.md. In short:
//
//   - id: the prefix, a dot, and the operationId as words joined by "-"
//     (listPets → list-pets), or the method and path (get-pets-pet-id);
//     ids are made unique in document order with -2, -3, …
//   - endpoint: the first server's URL plus the path, path parameters
//     written %7Bname%7D (the percent-encoded {name});
//   - inputs: an object schema with a property per path, query and header
//     parameter, and the JSON request body as the property "body";
//   - output: the schema of the first 2xx (else default) JSON response;
//   - schemas become JSON Schema 2020-12, with component schemas as $defs
//     of each skill's own inputs or output schema;
//   - auth: from the operation's (else the document's) security.
//
// Whatever has no place in a descriptor is dropped with a warning.
package openapi

import (
	"fmt"
	"net"
	"net/url"
	"path"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	skillcat "github.com/skillcat/skillcat"
)

// Format is the importer's name.
const Format = "openapi"

// Import reads the OpenAPI document data, named file in messages, and
// returns a descriptor for each of its operations. The error, when the
// document is not OpenAPI or cannot be mapped, is skillcat.Violations
// naming file, with line and column where the parser gives them. Import
// never reads another file or URL: a $ref outside the document is an
// error.
func Import(file string, data []byte, opts skillcat.ImportOptions) (im *skillcat.Imported, err error) {
	defer func() {
		if r := recover(); r != nil {
			im, err = nil, fileError(file, 0, 0, fmt.Sprintf("cannot import this document (importer failure: %v)", r))
		}
	}()
	doc, err := load(file, data)
	if err != nil {
		return nil, err
	}
	return doc.skills(opts)
}

// method is an HTTP method and the operation of a path item under it.
type method struct {
	name string
	op   *openapi3.Operation
}

// methods lists a path item's operations in the order OpenAPI lists them.
func methods(item *openapi3.PathItem) []method {
	return []method{
		{"get", item.Get}, {"put", item.Put}, {"post", item.Post}, {"delete", item.Delete},
		{"options", item.Options}, {"head", item.Head}, {"patch", item.Patch}, {"trace", item.Trace},
	}
}

func (d *document) skills(opts skillcat.ImportOptions) (*skillcat.Imported, error) {
	im := &skillcat.Imported{Format: Format}
	info := d.t.Info
	if info == nil {
		info = &openapi3.Info{}
	}
	im.Document = skillcat.Label(info.Title, 120)
	if im.Document == "" {
		im.Document = strings.TrimSuffix(path.Base(d.file), path.Ext(d.file))
	}
	warn := func(pointer, reason string) {
		line, col := d.where.at(pointer)
		im.WarnAt(d.file, line, col, d.path(pointer), reason)
	}
	if d.swag {
		warn("", "Swagger 2.0 document converted to OpenAPI 3.0 first")
	}
	for _, dr := range d.dropped {
		warn(dr.pointer, dr.reason)
	}
	base, baseNote := d.server(d.t.Servers, opts, "/servers", warn)
	im.Prefix = opts.Prefix
	if im.Prefix == "" {
		im.Prefix = prefixOf(base, baseNote, info.Title, d.file)
	}
	im.Folder = im.Prefix
	version, changed := skillcat.SemVerOf(info.Version)
	if changed {
		warn("/info/version", fmt.Sprintf("version %q is not SemVer; written as %q", info.Version, version))
	}
	prov := providerOf(info, im.Document, warn)
	if len(d.t.Webhooks) > 0 {
		warn("/webhooks", fmt.Sprintf("%d webhook(s) dropped: a webhook is called by the API, not a skill a consumer calls", len(d.t.Webhooks)))
	}
	ids := skillcat.UniqueIDs{}
	if d.t.Paths == nil || d.t.Paths.Len() == 0 {
		return nil, fileError(d.file, 0, 0, "the document has no paths, so there is no operation to import")
	}
	for _, p := range sortedKeys(d.t.Paths.Map()) {
		item := d.t.Paths.Value(p)
		if item == nil {
			continue
		}
		for _, m := range methods(item) {
			if m.op == nil {
				continue
			}
			at := "/paths/" + escape(p) + "/" + m.name
			op := &operation{doc: d, path: p, method: strings.ToUpper(m.name), item: item, op: m.op, at: at, warn: warn}
			switch op.method {
			case "GET", "PUT", "POST", "DELETE", "PATCH":
			default:
				warn(at, fmt.Sprintf("operation %s %s dropped: a skill endpoint's method is GET, POST, PUT, PATCH or DELETE", op.method, p))
				continue
			}
			sk, err := op.skill(opts, im.Prefix, version, prov, ids)
			if err != nil {
				return nil, err
			}
			im.Skills = append(im.Skills, sk)
		}
	}
	if len(im.Skills) == 0 {
		return nil, fileError(d.file, 0, 0, "the document has no operation a skill can describe")
	}
	return im, nil
}

// placeholderServer stands in for a server the document does not give as
// an absolute URL; a warning says to edit it, or to pass --server.
const placeholderServer = skillcat.PlaceholderServer

// server returns the base URL operations are joined to: opts.Server, or
// the first of servers, its variables replaced by their defaults and a
// relative URL resolved against the document's own URL. Without one that
// is absolute, it is placeholderServer and note says why. Servers after
// the first are dropped with a warning.
func (d *document) server(servers openapi3.Servers, opts skillcat.ImportOptions, at string, warn func(string, string)) (base, note string) {
	if opts.Server != "" {
		return strings.TrimRight(opts.Server, "/"), ""
	}
	for i, s := range servers {
		if s == nil {
			continue
		}
		if i > 0 {
			warn(fmt.Sprintf("%s/%d", at, i), fmt.Sprintf("server %q dropped: a skill has one endpoint, the first server's", s.URL))
		}
	}
	raw := "/"
	if len(servers) > 0 && servers[0] != nil {
		raw = expandServer(servers[0])
	}
	u := absURL(raw, opts.Location)
	if u == "" || strings.ContainsAny(u, "{}") {
		p := raw
		if pu, err := url.Parse(raw); err == nil && !pu.IsAbs() {
			p = pu.Path
		} else {
			p = ""
		}
		note = fmt.Sprintf("no absolute server URL (%q); endpoints use %s as a placeholder: edit them, or import again with --server URL", raw, placeholderServer)
		warn(at, note)
		return placeholderServer + strings.TrimRight(escapePath(strings.TrimLeft(p, "/"), true), "/"), note
	}
	return strings.TrimRight(u, "/"), ""
}

// expandServer replaces a server URL's {variables} with their defaults.
func expandServer(s *openapi3.Server) string {
	u := strings.TrimSpace(s.URL)
	for name, v := range s.Variables {
		if v != nil && v.Default != "" {
			u = strings.ReplaceAll(u, "{"+name+"}", v.Default)
		}
	}
	return u
}

// escapePath percent-encodes what a descriptor's URL may not hold: bytes
// outside printable ASCII, and braces, so that /pets/{id} is written
// /pets/%7Bid%7D. lead adds a leading slash when p has none.
func escapePath(p string, lead bool) string {
	if lead && p != "" && !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return skillcat.EscapeURL(p)
}

// prefixOf derives the id prefix: the name the server's host is
// registered under (api.github.com → github, petstore.swagger.io →
// swagger, tenant.vercel.app → tenant), or, for a placeholder, a
// reserved or generic host, the API's title without a trailing "API".
func prefixOf(base, placeholder, title, file string) string {
	if placeholder == "" {
		if u, err := url.Parse(base); err == nil {
			if s := hostName(u.Hostname()); s != "" {
				return s
			}
		}
	}
	words := strings.Fields(title)
	if n := len(words); n > 1 && strings.EqualFold(words[n-1], "api") {
		words = words[:n-1]
	}
	if s := skillcat.Slug(strings.Join(words, " "), 40); s != "" {
		return s
	}
	if s := skillcat.Slug(strings.TrimSuffix(path.Base(file), path.Ext(file)), 40); s != "" {
		return s
	}
	return "api"
}

// hosting are domains under which others' services live: the label
// before them names the service.
var hosting = map[string]bool{
	"github.io": true, "netlify.app": true, "vercel.app": true, "herokuapp.com": true,
	"azurewebsites.net": true, "appspot.com": true, "amazonaws.com": true, "cloudfront.net": true,
	"onrender.com": true, "fly.dev": true, "googleapis.com": true, "run.app": true,
	"workers.dev": true, "pages.dev": true, "azure-api.net": true, "ngrok.io": true, "ngrok.app": true,
}

// secondLevel are the public suffixes of two labels most hosts use.
var secondLevel = map[string]bool{
	"co": true, "com": true, "net": true, "org": true, "gov": true, "ac": true, "edu": true, "or": true, "ne": true,
}

// hostName returns the label of host that names its owner, or "" for an
// IP address, a reserved or local name.
func hostName(host string) string {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	labels := strings.Split(host, ".")
	if len(labels) < 2 || net.ParseIP(host) != nil {
		return ""
	}
	i := len(labels) - 2 // the label before the top-level domain
	if i > 0 && len(labels[len(labels)-1]) == 2 && secondLevel[labels[i]] {
		i-- // example.co.uk
	}
	if i > 0 && hosting[labels[i]+"."+strings.Join(labels[i+1:], ".")] {
		i--
	}
	switch labels[i] {
	case "example", "localhost", "local", "internal", "invalid", "test":
		return ""
	}
	if s := skillcat.Slug(labels[i], 40); s != "" && !numericLabel(s) {
		return s
	}
	return ""
}

func numericLabel(s string) bool {
	return strings.Trim(s, "0123456789-") == ""
}

// providerOf takes the provider from info.contact: its name (else the
// API's title), and its url and email when they are valid.
func providerOf(info *openapi3.Info, title string, warn func(string, string)) skillcat.Provider {
	p := skillcat.Provider{Name: title}
	c := info.Contact
	if c == nil {
		return p
	}
	if n := skillcat.Label(c.Name, 120); n != "" {
		p.Name = n
	}
	if c.URL != "" {
		if u := absURL(c.URL, ""); u != "" {
			p.URL = u
		} else {
			warn("/info/contact/url", fmt.Sprintf("contact url %q dropped: not an absolute http(s) URL", c.URL))
		}
	}
	if e := strings.TrimSpace(c.Email); e != "" {
		if strings.Count(e, "@") == 1 && !strings.ContainsAny(e, " \t\r\n") && len(e) <= 254 && !strings.HasPrefix(e, "@") && !strings.HasSuffix(e, "@") {
			p.Email = e
		} else {
			warn("/info/contact/email", fmt.Sprintf("contact email %q dropped: not an email address", c.Email))
		}
	}
	return p
}
