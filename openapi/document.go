package openapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
	skillcat "github.com/skillcat/skillcat"
	"go.yaml.in/yaml/v3"
)

// Bounds on what a document may be, so that no input makes the importer
// spend unbounded time or memory.
const (
	// MaxBytes is the largest document read.
	MaxBytes = 32 << 20
	// MaxDepth is how deeply a document's values may nest.
	MaxDepth = 200
	// maxValues bounds the values of a YAML document after its aliases
	// are expanded.
	maxValues = 4 << 20
)

// document is a loaded OpenAPI document: the library's model, and the same
// document as plain JSON values for the $refs the model leaves as text.
type document struct {
	file  string
	t     *openapi3.T
	raw   any        // the whole document decoded from JSON, numbers as json.Number
	v31   bool       // OpenAPI 3.1 or later: schemas are JSON Schema 2020-12 already
	swag  bool       // converted from Swagger 2.0
	where *positions // line and column of a pointer, for warnings
	// dropped is what was removed so that the library would load the
	// document.
	dropped []dropped
}

// dropped is one change made to a document so that it would load: where
// (a JSON Pointer, or "" for the document) and what.
type dropped struct {
	pointer, reason string
}

// load parses data as an OpenAPI 3.x (or Swagger 2.0) document in JSON or
// YAML. Each error names file, and line and column where known.
func load(file string, data []byte) (*document, error) {
	if len(data) > MaxBytes {
		return nil, fileError(file, 0, 0, fmt.Sprintf("document is larger than %d MiB", MaxBytes>>20))
	}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fileError(file, 1, 1, "document is empty: expected an OpenAPI document")
	}
	if looksLikeHTML(data) {
		return nil, fileError(file, 1, 1, "this is an HTML page, not an OpenAPI document (a saved error or login page?)")
	}
	js, err := toJSON(file, data)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return nil, fileError(file, 0, 0, "invalid document: "+err.Error())
	}
	root, ok := raw.(map[string]any)
	if !ok {
		return nil, fileError(file, 1, 1, "not an OpenAPI document: expected an object with an \"openapi\" member")
	}
	d := &document{file: file, raw: raw, where: &positions{data: data}}
	if sw, ok := root["swagger"]; ok {
		if s := fmt.Sprint(sw); s != "2.0" {
			return nil, fileError(file, 0, 0, fmt.Sprintf("swagger %q is not supported; only Swagger 2.0 (converted) and OpenAPI 3.0 and 3.1", s))
		}
		for round := 0; ; round++ {
			t, err := fromSwagger(js)
			if err == nil {
				d.t, d.swag = t, true
				// Refs in the converted model point into the converted document.
				if raw, err = plain(t); err != nil {
					return nil, fileError(file, 0, 0, "Swagger 2.0 document: "+err.Error())
				}
				d.raw = raw
				return d, nil
			}
			if round == maxRepairs || !d.repair(root, err, true) {
				return nil, fileError(file, 0, 0, "Swagger 2.0 document: "+loadError(err))
			}
			if js, err = json.Marshal(root); err != nil {
				return nil, fileError(file, 0, 0, "invalid document: "+err.Error())
			}
		}
	}
	ver, _ := root["openapi"].(string)
	switch {
	case root["openapi"] == nil:
		return nil, fileError(file, 1, 1, "not an OpenAPI document: it has no \"openapi\" member naming the version")
	case strings.HasPrefix(ver, "3.0"):
	case strings.HasPrefix(ver, "3."):
		d.v31 = true
	default:
		return nil, fileError(file, 0, 0, fmt.Sprintf("openapi must be a version such as \"3.1.0\"; got %s", describeValue(root["openapi"])))
	}
	if _, ok := root["info"].(map[string]any); !ok {
		root["info"] = map[string]any{"title": "", "version": ""}
		js, _ = json.Marshal(root)
	}
	// A value of the wrong type (a tag whose description is an object, an
	// allOf that is not a list) makes the library refuse the whole
	// document. Such values are dropped, with a warning, as lenient tools
	// do, and the document is loaded again.
	for round := 0; ; round++ {
		loader := openapi3.NewLoader()
		loader.IsExternalRefsAllowed = false
		loader.ReadFromURIFunc = refuseURI
		t, err := loader.LoadFromData(js)
		if err == nil {
			d.t = t
			return d, nil
		}
		if round == maxRepairs || !d.repair(root, err, false) {
			return nil, fileError(file, 0, 0, loadError(err))
		}
		if js, err = json.Marshal(root); err != nil {
			return nil, fileError(file, 0, 0, "invalid document: "+err.Error())
		}
	}
}

// maxRepairs bounds how often a document is loaded again after dropping
// what the library refused.
const maxRepairs = 10

// repair changes the document root so that the library may load it after
// it refused it with err, and reports whether it could: a value of the
// wrong type is dropped; a $ref that points to nothing, or to the wrong
// kind of object (a response ref into requestBodies), is replaced by the
// empty schema where it stands for a schema, and dropped elsewhere. Each
// change is recorded for a warning.
func (d *document) repair(root map[string]any, err error, swagger bool) bool {
	bad := badPointers(err)
	for _, p := range bad {
		if !deletePointer(root, p) {
			return false
		}
		d.dropped = append(d.dropped, dropped{p, "dropped: its value has the wrong type for this member"})
	}
	if len(bad) > 0 {
		return true
	}
	m := badRef.FindStringSubmatch(err.Error())
	if m == nil {
		return false
	}
	ref := m[1]
	if swagger { // the converter names refs as they will be in 3.0
		for from, to := range map[string]string{"#/components/schemas/": "#/definitions/", "#/components/parameters/": "#/parameters/", "#/components/responses/": "#/responses/"} {
			if strings.HasPrefix(ref, from) {
				ref = to + strings.TrimPrefix(ref, from)
			}
		}
	}
	schema := strings.HasPrefix(ref, "#/components/schemas/") || strings.HasPrefix(ref, "#/definitions/")
	if n := replaceRefs(root, ref, schema, 0); n == 0 {
		return false
	}
	why := fmt.Sprintf("$ref %q dropped: %s", ref, m[0])
	if schema {
		why = fmt.Sprintf("$ref %q points to no schema; it allows anything", ref)
	}
	d.dropped = append(d.dropped, dropped{"", why})
	return true
}

// badRef finds the $ref of the library's errors about a ref that points
// nowhere or to the wrong kind of object.
var badRef = regexp.MustCompile(`(?:bad data in|failed to resolve "[^"]*" in fragment in URI:) "(#/[^"]*)"`)

// replaceRefs replaces every {"$ref": ref} in v: by the empty schema when
// schema is set, otherwise by dropping the member or element holding it.
// It returns how many it replaced.
func replaceRefs(v any, ref string, schema bool, depth int) int {
	if depth > MaxDepth {
		return 0
	}
	isRef := func(x any) bool {
		m, ok := x.(map[string]any)
		return ok && m["$ref"] == ref
	}
	n := 0
	switch c := v.(type) {
	case map[string]any:
		for k, x := range c {
			switch {
			case isRef(x) && schema:
				c[k] = map[string]any{}
				n++
			case isRef(x):
				delete(c, k)
				n++
			default:
				n += replaceRefs(x, ref, schema, depth+1)
			}
		}
	case []any:
		for i, x := range c {
			switch {
			case isRef(x) && schema:
				c[i] = map[string]any{}
				n++
			case isRef(x):
				c[i] = nil
				n++
			default:
				n += replaceRefs(x, ref, schema, depth+1)
			}
		}
	}
	return n
}

// badPointer finds the JSON Pointers of the library's type errors:
// "cannot construct !!map into string in /tags/0/description".
var badPointer = regexp.MustCompile(`cannot construct [^;]*? in (/[^;\s]*)`)

func badPointers(err error) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range badPointer.FindAllStringSubmatch(err.Error(), -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	return out
}

// deletePointer removes the value at a JSON Pointer from a plain JSON
// value (an array element becomes null), and reports whether it was there.
func deletePointer(doc any, ptr string) bool {
	toks := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	cur := doc
	for i, tok := range toks {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		last := i == len(toks)-1
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				return false
			}
			if last {
				delete(c, tok)
				return true
			}
			cur = next
		case []any:
			n, err := strconv.Atoi(tok)
			if err != nil || n < 0 || n >= len(c) {
				return false
			}
			if last {
				c[n] = nil
				return true
			}
			cur = c[n]
		default:
			return false
		}
	}
	return false
}

// refuseURI is the loader's way to read another document: never. A $ref to
// a file or URL outside the document is an error.
func refuseURI(_ *openapi3.Loader, u *url.URL) ([]byte, error) {
	return nil, &openapi3.DisallowedExternalRefError{Ref: u.String()}
}

// loadError phrases an error of the library for a person.
func loadError(err error) string {
	var ext *openapi3.DisallowedExternalRefError
	if errors.As(err, &ext) {
		return fmt.Sprintf("$ref %q points outside the document; only refs inside it (#/components/..., or #/definitions/... in Swagger 2.0) are followed, and no other file is read: bundle the document's files into one first", ext.Ref)
	}
	return "invalid OpenAPI document: " + err.Error()
}

// fromSwagger converts a Swagger 2.0 document to OpenAPI 3.0 with the
// library's converter.
func fromSwagger(js []byte) (*openapi3.T, error) {
	var t2 openapi2.T
	if err := json.Unmarshal(js, &t2); err != nil {
		return nil, err
	}
	t, err := openapi2conv.ToV3(&t2)
	if err != nil {
		return nil, err
	}
	loader := openapi3.NewLoader()
	loader.ReadFromURIFunc = refuseURI
	if err := loader.ResolveRefsIn(t, nil); err != nil {
		return nil, err
	}
	return t, nil
}

// plain returns v marshaled and decoded again as plain JSON values.
func plain(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var out any
	return out, dec.Decode(&out)
}

func looksLikeHTML(data []byte) bool {
	head := bytes.ToLower(bytes.TrimSpace(data))
	if len(head) > 512 {
		head = head[:512]
	}
	return bytes.HasPrefix(head, []byte("<!doctype html")) || bytes.HasPrefix(head, []byte("<html")) ||
		bytes.HasPrefix(head, []byte("<?xml")) || bytes.HasPrefix(head, []byte("<head")) || bytes.HasPrefix(head, []byte("<body"))
}

// toJSON returns a JSON or YAML document as JSON, checking syntax, depth
// and size on the way. A JSON document is checked by the protocol's own
// parser, which gives the position of a syntax error.
func toJSON(file string, data []byte) ([]byte, error) {
	if t := bytes.TrimSpace(data); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		src := &skillcat.Source{Name: file, Data: data}
		if _, vs := skillcat.ParseSource(src); vs != nil {
			v := vs[0]
			return nil, fileError(file, v.Line, v.Column, v.Reason)
		}
		if depth(data) > MaxDepth {
			return nil, fileError(file, 1, 1, fmt.Sprintf("document nests deeper than %d levels", MaxDepth))
		}
		return data, nil
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		line, msg := yamlError(err)
		return nil, fileError(file, line, 0, "invalid YAML: "+msg)
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 {
		return nil, fileError(file, 1, 1, "document is empty: expected an OpenAPI document")
	}
	top := root.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, fileError(file, top.Line, top.Column, "not an OpenAPI document: expected a mapping with an \"openapi\" member, got "+yamlKind(top))
	}
	c := &yamlConv{file: file}
	b, err := c.value(nil, top, 0)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// depth returns how deeply the arrays and objects of a JSON text nest.
func depth(data []byte) int {
	d, max := 0, 0
	inStr, esc := false, false
	for _, c := range data {
		switch {
		case inStr:
			if esc {
				esc = false
			} else if c == '\\' {
				esc = true
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			if d++; d > max {
				max = d
			}
		case c == '}' || c == ']':
			d--
		}
	}
	return max
}

// yamlConv converts a YAML node tree to JSON, counting values so that
// aliases cannot make it explode.
type yamlConv struct {
	file   string
	values int
}

func (c *yamlConv) value(b []byte, n *yaml.Node, depth int) ([]byte, error) {
	if depth > MaxDepth {
		return nil, fileError(c.file, n.Line, n.Column, fmt.Sprintf("document nests deeper than %d levels", MaxDepth))
	}
	if c.values++; c.values > maxValues {
		return nil, fileError(c.file, n.Line, n.Column, "document has too many values (are aliases expanding without end?)")
	}
	switch n.Kind {
	case yaml.AliasNode:
		return c.value(b, n.Alias, depth+1)
	case yaml.MappingNode:
		b = append(b, '{')
		seen := map[string]bool{}
		first := true
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yaml.ScalarNode && k.Tag == "!!merge" {
				return nil, fileError(c.file, k.Line, k.Column, "YAML merge keys (<<) are not supported")
			}
			if k.Kind != yaml.ScalarNode {
				return nil, fileError(c.file, k.Line, k.Column, "a mapping key must be a plain value")
			}
			if seen[k.Value] {
				continue // the library would keep one of them; keep the first
			}
			seen[k.Value] = true
			if !first {
				b = append(b, ',')
			}
			first = false
			kb, _ := json.Marshal(k.Value)
			b = append(append(b, kb...), ':')
			var err error
			if b, err = c.value(b, v, depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case yaml.SequenceNode:
		b = append(b, '[')
		for i, it := range n.Content {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = c.value(b, it, depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case yaml.ScalarNode:
		return appendScalar(b, n), nil
	}
	return append(b, "null"...), nil
}

// appendScalar writes a YAML scalar as JSON: numbers and booleans as
// themselves when JSON has them, every other scalar (dates included) as
// the string written.
func appendScalar(b []byte, n *yaml.Node) []byte {
	switch n.ShortTag() {
	case "!!null":
		return append(b, "null"...)
	case "!!bool":
		if v, err := strconv.ParseBool(strings.ToLower(n.Value)); err == nil {
			return strconv.AppendBool(b, v)
		}
	case "!!int", "!!float":
		if json.Valid([]byte(n.Value)) && !strings.HasPrefix(n.Value, "+") {
			var num json.Number
			if json.Unmarshal([]byte(n.Value), &num) == nil {
				return append(b, n.Value...)
			}
		}
		if v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
			return strconv.AppendInt(b, v, 10)
		}
	}
	s, _ := json.Marshal(n.Value)
	return append(b, s...)
}

func yamlKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if len(n.Value) > 40 {
			return "the text " + strconv.Quote(n.Value[:40]+"…")
		}
		return "the text " + strconv.Quote(n.Value)
	}
	return "something else"
}

// yamlError splits the line out of a YAML error message.
func yamlError(err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, tail, ok := strings.Cut(rest, ": "); ok {
			if line, err := strconv.Atoi(num); err == nil {
				return line, tail
			}
		}
	}
	return 0, msg
}

// fileError is a violation of the whole input document.
func fileError(file string, line, col int, reason string) skillcat.Violations {
	if line > 0 && col == 0 {
		col = 1
	}
	return skillcat.Violations{{File: file, Line: line, Column: col, Field: skillcat.FileField, Reason: reason, Severity: skillcat.SeverityError}}
}

// describeValue names a plain JSON value for a message: a short string
// quoted, anything else by its type.
func describeValue(v any) string {
	if s, ok := v.(string); ok && len(s) <= 40 {
		return strconv.Quote(s)
	}
	return kind(v)
}

// path reads a JSON Pointer into the document against it: a token into a
// list is an index, one into an object a member name (a response "200"
// stays a member). Past what the document holds, a token is read as
// skillcat.PointerPath reads it.
func (d *document) path(pointer string) skillcat.Path {
	toks := skillcat.ParsePointer(pointer)
	p := make(skillcat.Path, len(toks))
	v := d.raw
	for i, tok := range toks {
		k, index := skillcat.IndexToken(tok)
		switch x := v.(type) {
		case map[string]any:
			index, v = false, x[tok]
		case []any:
			if v = nil; index && k < len(x) {
				v = x[k]
			}
		}
		if index {
			p[i] = skillcat.Step{Index: k, IsIndex: true}
		} else {
			p[i] = skillcat.Step{Name: tok}
		}
	}
	return p
}
