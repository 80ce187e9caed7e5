// Command dtsgen writes TypeScript declarations for the Skill Sharing
// Protocol's documents, generated from the JSON Schemas embedded in package
// skillcat, which are the single statement of the documents' structure.
//
// Usage:
//
//	go run ./internal/dtsgen -o skill-sharing-protocol.d.ts
//
// It is run by go generate from the repository root (see generate.go).
//
// # Mapping
//
// Each document, and each object schema with properties, becomes an exported
// interface whose members keep the schema's order, optional ("?") unless
// required. Every interface ends with the index signature
// [member: string]: unknown, because unknown members are allowed at every
// level of every document. A string enum becomes a union of string literals,
// a const a literal, an array T[], an object without properties
// Record<string, T>, and the schema true unknown. The $defs a document
// references become type aliases, carrying their constraints (pattern,
// lengths, format) as JSDoc tags in the typescript-json-schema spelling
// (@pattern, @minLength, …); descriptions become JSDoc text.
//
// An object whose allOf holds only rules of the form "if member d is the
// constant v, then these members are required", d being a string enum,
// becomes a discriminated union with one interface per value of d (Auth:
// ApiKeyAuth | OAuth2Auth | CustomAuth | NoneAuth). Any other if/then rule is
// written out in words in the JSDoc of the object and of the member it
// concerns, since TypeScript cannot state it.
//
// The generator refuses a keyword or a rule shape it does not know, and an
// object schema with properties that has no TypeScript name in typeNames: a
// schema change must never be dropped from the declarations in silence.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/skillcat/skillcat"
)

func main() {
	out := flag.String("o", "skill-sharing-protocol.d.ts", "write the declarations to `file`")
	flag.Parse()
	src, err := Generate(skillcat.Schemas())
	if err != nil {
		fmt.Fprintln(os.Stderr, "dtsgen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "dtsgen:", err)
		os.Exit(1)
	}
}

// documents are the schema files in the order their declarations are
// written.
var documents = []string{
	skillcat.DescriptorSchemaFile,
	skillcat.IndexSchemaFile,
	skillcat.RequestSchemaFile,
	skillcat.ResponseSchemaFile,
}

// typeNames gives the TypeScript name of each schema location that becomes a
// declaration of its own. A key is "FILE#POINTER" for one file or "#POINTER"
// for that pointer in every file (the $defs the schemas repeat). A
// document's root is named by its title.
var typeNames = map[string]string{
	"#/$defs/protocol":                   "ProtocolVersion",
	"#/$defs/protocol_version":           "ProtocolVersionString",
	"#/$defs/id":                         "SkillId",
	"#/$defs/label":                      "Label",
	"#/$defs/semver":                     "SemVer",
	"#/$defs/tag":                        "Tag",
	"#/$defs/http_url":                   "HttpUrl",
	"#/$defs/email":                      "Email",
	"#/$defs/digest":                     "Digest",
	"#/$defs/date_time":                  "DateTime",
	"#/$defs/provider":                   "Provider",
	"#/$defs/endpoint":                   "Endpoint",
	"#/$defs/endpoint/properties/method": "HttpMethod",
	"#/$defs/auth":                       "Auth",
	"#/$defs/auth/properties/type":       "AuthType",
	"#/$defs/auth/properties/in":         "ApiKeyLocation",
	"#/$defs/example":                    "Example",
	"#/$defs/entry":                      "SkillIndexEntry",

	skillcat.DescriptorSchemaFile + "#/properties/capability_type":        "CapabilityType",
	skillcat.DescriptorSchemaFile + "#/properties/access":                 "Access",
	skillcat.DescriptorSchemaFile + "#/properties/inputs":                 "ObjectJSONSchema",
	skillcat.DescriptorSchemaFile + "#/properties/output":                 "JSONSchema",
	skillcat.IndexSchemaFile + "#/$defs/entry/properties/capability_type": "CapabilityType",
	skillcat.IndexSchemaFile + "#/$defs/entry/properties/access":          "ListedAccess",
	skillcat.RequestSchemaFile + "#/properties/caller":                    "Caller",
	skillcat.RequestSchemaFile + "#/properties/caller/properties/type":    "CallerType",
	skillcat.ResponseSchemaFile + "#/properties/status":                   "InvocationStatus",
	skillcat.ResponseSchemaFile + "#/properties/timestamps":               "Timestamps",
	skillcat.ResponseSchemaFile + "#/properties/error":                    "InvocationError",
}

// typeDocs are the JSDoc texts of declarations whose schema has no
// description of its own, or whose description describes a member rather
// than the type (a declaration made from a member's schema).
var typeDocs = map[string]string{
	"ProtocolVersion":       `The protocol version a document follows, as {"version": "MAJOR.MINOR.PATCH"}.`,
	"ProtocolVersionString": "MAJOR.MINOR.PATCH: three non-negative integers without leading zeros, nothing else.",
	"SkillId":               `A skill's id: lowercase letters and digits in groups joined by ".", "_" or "-", safe as a file name and URL segment.`,
	"Label":                 "A name: 1–120 characters, not blank.",
	"SemVer":                "A SemVer 2.0.0 version; pre-release and build metadata are allowed.",
	"Tag":                   `A tag: 1–32 lowercase letters, digits and "-", starting with a letter or digit.`,
	"HttpUrl":               "An absolute http or https URL.",
	"Email":                 "An email address.",
	"Digest":                `"sha256:" and the lowercase hex SHA-256 of the exact bytes served at descriptor_url.`,
	"DateTime":              `An RFC 3339 date-time such as "2026-01-31T09:30:00Z".`,
	"Provider":              "Who publishes a skill.",
	"Endpoint":              "Where a skill is invoked.",
	"HttpMethod":            "The HTTP method of an endpoint; POST when unset.",
	"Auth":                  "What a consumer needs to call a skill.",
	"AuthType":              "How a consumer authenticates to a skill's endpoint.",
	"ApiKeyLocation":        "Where an API key goes: a request header or a query parameter.",
	"Example":               "One sample call of a skill: inputs valid against the skill's inputs schema, output (when given) against its output schema.",
	"SkillIndexEntry":       "One listed skill of a SkillIndex.",
	"CapabilityType":        "The kind of capability a skill offers.",
	"Access":                "Who may see and call a skill. Private skills are validated but never published.",
	"ListedAccess":          "The access of a listed skill: an index never lists a private one.",
	"ObjectJSONSchema":      "A JSON Schema (draft 2020-12) for a JSON object: its type is \"object\".",
	"JSONSchema":            "A JSON Schema (draft 2020-12): an object of keywords or a boolean schema.",
	"Caller":                "Who makes an InvocationRequest.",
	"CallerType":            "Who calls a skill.",
	"InvocationStatus":      "The state of an execution; succeeded, failed and cancelled are terminal.",
	"Timestamps":            "RFC 3339 date-times of an execution.",
	"InvocationError":       "Why an execution failed.",
}

// variantNames names the interfaces of a discriminated union by its name and
// the discriminant's value; a value not listed gives PascalCase(value)+union.
var variantNames = map[string]map[string]string{
	"Auth": {"oauth2": "OAuth2Auth"},
}

// variantOptional places the optional members of a discriminated union that
// no rule requires: the schema allows them on every variant, but they belong
// to the variants listed here (SPEC 1.2: oauth2 "may have authorization_url
// and scopes"). Every member of the union must land in some variant.
var variantOptional = map[string]map[string][]string{
	"Auth": {"oauth2": {"authorization_url", "scopes"}},
}

const header = `// Code generated by go run ./internal/dtsgen from schemas/*.schema.json. DO NOT EDIT.

// TypeScript declarations of the Skill Sharing Protocol 1.x documents.
// Unknown members are allowed at every level of every document (a newer 1.x
// minor may add some; "x-" members are private extensions), hence the index
// signature on every interface.
`

// Generate reads the four protocol schemas from fsys and returns the
// TypeScript declarations. The output depends on the schemas only.
func Generate(fsys fs.FS) ([]byte, error) {
	g := &generator{schemas: map[string]*skillcat.Node{}, decls: map[string]*decl{}}
	for _, file := range documents {
		data, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, fmt.Errorf("read schema: %w", err)
		}
		root, err := skillcat.ParseJSON(data)
		if err != nil {
			return nil, fmt.Errorf("parse schema %s: %w", file, err)
		}
		g.schemas[file] = root
	}
	for _, file := range documents {
		if _, err := g.declare(loc{file, ""}); err != nil {
			return nil, err
		}
	}
	var b bytes.Buffer
	b.WriteString(header)
	for _, name := range g.order {
		b.WriteString("\n")
		b.WriteString(g.decls[name].text)
	}
	return b.Bytes(), nil
}

// loc is a schema location: a file and a JSON Pointer into it.
type loc struct{ file, ptr string }

func (l loc) String() string { return l.file + "#" + l.ptr }

func (l loc) child(tokens ...string) loc {
	for _, t := range tokens {
		l.ptr += "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(t)
	}
	return l
}

type decl struct {
	at   loc
	text string // "" while being generated
}

type generator struct {
	schemas map[string]*skillcat.Node
	decls   map[string]*decl
	order   []string
}

func (g *generator) node(l loc) *skillcat.Node {
	if l.ptr == "" {
		return g.schemas[l.file]
	}
	var tokens []string
	for _, t := range strings.Split(l.ptr[1:], "/") {
		tokens = append(tokens, strings.NewReplacer("~1", "/", "~0", "~").Replace(t))
	}
	return g.schemas[l.file].Lookup(tokens)
}

// nameOf returns the TypeScript name of a location, or "".
func (g *generator) nameOf(l loc) string {
	if l.ptr == "" {
		return g.schemas[l.file].Get("title").Text
	}
	if n, ok := typeNames[l.String()]; ok {
		return n
	}
	return typeNames["#"+l.ptr]
}

// declare writes the declaration of the named location l, once, and returns
// its name. Two locations may share a name only when they declare the same
// text.
func (g *generator) declare(l loc) (string, error) {
	name := g.nameOf(l)
	if name == "" {
		return "", fmt.Errorf("%s: no TypeScript name; add one to typeNames", l)
	}
	if d, ok := g.decls[name]; ok {
		if d.text == "" || d.at == l {
			return name, nil // recursive reference, or already written
		}
		text, err := g.declText(name, l)
		if err != nil {
			return "", err
		}
		if text != d.text {
			return "", fmt.Errorf("%s and %s are both named %s but differ; give one another name in typeNames", d.at, l, name)
		}
		return name, nil
	}
	d := &decl{at: l}
	g.decls[name] = d
	g.order = append(g.order, name)
	text, err := g.declText(name, l)
	if err != nil {
		return "", err
	}
	d.text = text
	return name, nil
}

// isMemberSchema reports whether l is the schema of an object member, whose
// description then belongs to the member.
func isMemberSchema(l loc) bool {
	i := strings.LastIndex(l.ptr, "/")
	return i >= 0 && strings.HasSuffix(l.ptr[:i], "/properties")
}

func (g *generator) declText(name string, l loc) (string, error) {
	s := g.node(l)
	var doc []string
	if desc := s.Get("description"); desc != nil && !isMemberSchema(l) {
		doc = append(doc, desc.Text)
	} else if d, ok := typeDocs[name]; ok {
		doc = append(doc, d)
	}
	if hasProperties(s) {
		return g.objectDecl(name, l, s, doc)
	}
	expr, err := g.inline(s, l)
	if err != nil {
		return "", err
	}
	tags, err := constraintTags(s, l)
	if err != nil {
		return "", err
	}
	return jsdoc("", doc, tags) + "export type " + name + " = " + expr + ";\n", nil
}

func hasProperties(s *skillcat.Node) bool {
	return s.Get("properties") != nil || s.Get("required") != nil || s.Get("allOf") != nil
}

// knownKeywords are the schema keywords the generator understands; any
// other is an error.
var knownKeywords = map[string]bool{
	"$schema": true, "$id": true, "title": true, "description": true, "$defs": true,
	"$ref": true, "type": true, "enum": true, "const": true, "default": true,
	"properties": true, "required": true, "additionalProperties": true, "allOf": true,
	"items": true, "format": true, "pattern": true, "minLength": true, "maxLength": true,
	"minItems": true, "maxItems": true, "uniqueItems": true,
}

func checkKeywords(s *skillcat.Node, l loc) error {
	for _, m := range s.Members {
		if !knownKeywords[m.Name] {
			return fmt.Errorf("%s: keyword %q is not supported by dtsgen", l, m.Name)
		}
	}
	return nil
}

// typeOf returns the TypeScript type of the schema s at l, declaring named
// locations and the $defs it references.
func (g *generator) typeOf(s *skillcat.Node, l loc) (string, error) {
	if s.Kind == skillcat.Bool {
		if s.Text == "true" {
			return "unknown", nil
		}
		return "never", nil
	}
	if s.Kind != skillcat.Object {
		return "", fmt.Errorf("%s: a schema must be an object or a boolean", l)
	}
	if ref := s.Get("$ref"); ref != nil {
		for _, m := range s.Members {
			if m.Name != "$ref" && m.Name != "description" {
				return "", fmt.Errorf("%s: $ref beside %q is not supported by dtsgen", l, m.Name)
			}
		}
		target, ok := strings.CutPrefix(ref.Text, "#")
		if !ok || !strings.HasPrefix(target, "/$defs/") {
			return "", fmt.Errorf("%s: $ref %q is not supported by dtsgen: want #/$defs/NAME", l, ref.Text)
		}
		tl := loc{l.file, target}
		if g.node(tl) == nil {
			return "", fmt.Errorf("%s: $ref %q: no such definition", l, ref.Text)
		}
		return g.declare(tl)
	}
	if g.nameOf(l) != "" {
		return g.declare(l)
	}
	if hasProperties(s) {
		return "", fmt.Errorf("%s: an object schema with properties needs a TypeScript name; add one to typeNames", l)
	}
	return g.inline(s, l)
}

// inline returns the TypeScript type of a schema without properties.
func (g *generator) inline(s *skillcat.Node, l loc) (string, error) {
	if err := checkKeywords(s, l); err != nil {
		return "", err
	}
	if e := s.Get("enum"); e != nil {
		var lits []string
		for _, it := range e.Items {
			if it.Kind != skillcat.String {
				return "", fmt.Errorf("%s: only string enums are supported by dtsgen", l)
			}
			lits = append(lits, strconv.Quote(it.Text))
		}
		return strings.Join(lits, " | "), nil
	}
	if c := s.Get("const"); c != nil {
		if c.Kind != skillcat.String {
			return "", fmt.Errorf("%s: only string constants are supported by dtsgen", l)
		}
		return strconv.Quote(c.Text), nil
	}
	t := s.Get("type")
	if t == nil {
		return "unknown", nil
	}
	var types []*skillcat.Node
	switch t.Kind {
	case skillcat.String:
		types = []*skillcat.Node{t}
	case skillcat.Array:
		types = t.Items
	default:
		return "", fmt.Errorf("%s: type must be a string or an array", l)
	}
	var alts []string
	for _, tn := range types {
		switch tn.Text {
		case "string", "boolean", "null":
			alts = append(alts, tn.Text)
		case "number", "integer":
			alts = append(alts, "number")
		case "array":
			items := s.Get("items")
			if items == nil {
				alts = append(alts, "unknown[]")
				break
			}
			it, err := g.typeOf(items, l.child("items"))
			if err != nil {
				return "", err
			}
			if strings.Contains(it, " ") {
				it = "(" + it + ")"
			}
			alts = append(alts, it+"[]")
		case "object":
			ap := s.Get("additionalProperties")
			if ap == nil {
				alts = append(alts, "Record<string, unknown>")
				break
			}
			vt, err := g.typeOf(ap, l.child("additionalProperties"))
			if err != nil {
				return "", err
			}
			alts = append(alts, "Record<string, "+vt+">")
		default:
			return "", fmt.Errorf("%s: type %q is not supported by dtsgen", l, tn.Text)
		}
	}
	return strings.Join(alts, " | "), nil
}

// constraintTags phrases a schema's constraints as JSDoc tags.
func constraintTags(s *skillcat.Node, l loc) ([]string, error) {
	var tags []string
	if s.Kind != skillcat.Object {
		return nil, nil
	}
	if f := s.Get("format"); f != nil {
		tags = append(tags, "@format "+f.Text)
	}
	for _, k := range []string{"minLength", "maxLength", "minItems", "maxItems"} {
		if n := s.Get(k); n != nil {
			if n.Kind != skillcat.Number {
				return nil, fmt.Errorf("%s: %s must be a number", l, k)
			}
			tags = append(tags, "@"+k+" "+n.Text)
		}
	}
	if n := s.Get("uniqueItems"); n != nil && n.Text == "true" {
		tags = append(tags, "@uniqueItems true")
	}
	if p := s.Get("pattern"); p != nil {
		tags = append(tags, "@pattern "+visible(p.Text))
	}
	if d := s.Get("default"); d != nil {
		tags = append(tags, "@default "+string(d.AppendJSON(nil)))
	}
	return tags, nil
}

// visible writes characters that are invisible or could end a comment as
// escapes.
func visible(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r > unicode.MaxASCII || !unicode.IsPrint(r) {
			if r > 0xFFFF {
				fmt.Fprintf(&b, `\u{%X}`, r)
			} else {
				fmt.Fprintf(&b, `\u%04X`, r)
			}
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// member is one member of an interface being written.
type member struct {
	name     string
	required bool
	typ      string
	doc      []string
	tags     []string
}

// objectDecl writes an interface, or a discriminated union of interfaces,
// for an object schema with properties.
func (g *generator) objectDecl(name string, l loc, s *skillcat.Node, doc []string) (string, error) {
	if err := checkKeywords(s, l); err != nil {
		return "", err
	}
	if t := s.Get("type"); t != nil && t.Text != "object" {
		return "", fmt.Errorf("%s: properties on a schema whose type is not \"object\"", l)
	}
	if ap := s.Get("additionalProperties"); ap != nil {
		return "", fmt.Errorf("%s: additionalProperties beside properties is not supported by dtsgen", l)
	}
	required := map[string]bool{}
	if r := s.Get("required"); r != nil {
		for _, it := range r.Items {
			required[it.Text] = true
		}
	}
	var members []*member
	byName := map[string]*member{}
	if props := s.Get("properties"); props != nil {
		for _, p := range props.Members {
			pl := l.child("properties", p.Name)
			typ, err := g.typeOf(p.Value, pl)
			if err != nil {
				return "", err
			}
			m := &member{name: p.Name, required: required[p.Name], typ: typ}
			if p.Value.Kind == skillcat.Object {
				if desc := p.Value.Get("description"); desc != nil {
					m.doc = append(m.doc, desc.Text)
				}
				if g.nameOf(pl) == "" && p.Value.Get("$ref") == nil {
					if m.tags, err = constraintTags(p.Value, pl); err != nil {
						return "", err
					}
				}
			}
			members = append(members, m)
			byName[p.Name] = m
		}
	}
	for r := range required {
		if byName[r] == nil {
			return "", fmt.Errorf("%s: required member %q has no schema under properties", l, r)
		}
	}
	rules, err := g.rules(s, l)
	if err != nil {
		return "", err
	}
	if d, ok := discriminant(rules, s); ok {
		return g.unionDecl(name, l, s, doc, members, required, rules, d)
	}
	for _, r := range rules {
		sentence := r.sentence()
		doc = append(doc, sentence)
		for _, e := range r.effects {
			top, _, _ := strings.Cut(e.path, ".")
			m := byName[top]
			if m == nil {
				return "", fmt.Errorf("%s: a rule concerns %q, which has no schema under properties", l, top)
			}
			if e.path == top && e.what == "is required" {
				m.doc = append(m.doc, "Required when "+r.condition()+".")
			} else {
				m.doc = append(m.doc, sentence)
			}
		}
	}
	return interfaceText(name, doc, members), nil
}

func interfaceText(name string, doc []string, members []*member) string {
	var b strings.Builder
	b.WriteString(jsdoc("", doc, nil))
	b.WriteString("export interface " + name + " {\n")
	for _, m := range members {
		b.WriteString(jsdoc("  ", m.doc, m.tags))
		opt := "?"
		if m.required {
			opt = ""
		}
		b.WriteString("  " + memberName(m.name) + opt + ": " + m.typ + ";\n")
	}
	b.WriteString("  /** Members this version does not name are allowed and kept. */\n")
	b.WriteString("  [member: string]: unknown;\n")
	b.WriteString("}\n")
	return b.String()
}

var identifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

func memberName(n string) string {
	if identifier.MatchString(n) {
		return n
	}
	return strconv.Quote(n)
}

// test is one member tested by an "if": path is dotted from the object the
// rule belongs to, values its allowed values.
type test struct {
	path   string
	values []string
}

// effect is what a "then" demands of one member.
type effect struct {
	path string
	what string // "is required", or `must not be "v"`
	not  string // the forbidden value of a "must not be"
}

// rule is one if/then of an allOf.
type rule struct {
	tests   []test
	effects []effect
}

func (r rule) condition() string {
	var parts []string
	for _, t := range r.tests {
		q := make([]string, len(t.values))
		for i, v := range t.values {
			q[i] = strconv.Quote(v)
		}
		vs := q[0]
		if len(q) > 1 {
			vs = strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
		}
		parts = append(parts, "`"+t.path+"` is "+vs)
	}
	return strings.Join(parts, " and ")
}

func (r rule) sentence() string {
	// "p must not be v" under the condition "p is v and q is w" reads
	// better as "p may not be v when q is w".
	if len(r.effects) == 1 && r.effects[0].not != "" {
		e := r.effects[0]
		rest := rule{}
		found := false
		for _, t := range r.tests {
			if t.path == e.path && len(t.values) == 1 && t.values[0] == e.not {
				found = true
				continue
			}
			rest.tests = append(rest.tests, t)
		}
		if found && len(rest.tests) > 0 {
			return "`" + e.path + "` may not be " + strconv.Quote(e.not) + " when " + rest.condition() + "."
		}
	}
	var parts []string
	for _, e := range r.effects {
		parts = append(parts, "`"+e.path+"` "+e.what)
	}
	return "When " + r.condition() + ", " + strings.Join(parts, " and ") + "."
}

// rules reads the if/then rules of an object schema's allOf.
func (g *generator) rules(s *skillcat.Node, l loc) ([]rule, error) {
	all := s.Get("allOf")
	if all == nil {
		return nil, nil
	}
	var rules []rule
	for i, it := range all.Items {
		il := l.child("allOf", strconv.Itoa(i))
		for _, m := range it.Members {
			if m.Name != "if" && m.Name != "then" {
				return nil, fmt.Errorf("%s: only if/then is supported in allOf by dtsgen; got %q", il, m.Name)
			}
		}
		ifs, then := it.Get("if"), it.Get("then")
		if ifs == nil || then == nil {
			return nil, fmt.Errorf("%s: want both if and then", il)
		}
		var r rule
		var err error
		if r.tests, err = ifTests(ifs, "", il.child("if")); err != nil {
			return nil, err
		}
		if r.effects, err = thenEffects(then, "", il.child("then")); err != nil {
			return nil, err
		}
		if len(r.tests) == 0 || len(r.effects) == 0 {
			return nil, fmt.Errorf("%s: an if/then that tests or demands nothing", il)
		}
		rules = append(rules, r)
	}
	return rules, nil
}

func ifTests(s *skillcat.Node, prefix string, l loc) ([]test, error) {
	var tests []test
	for _, m := range s.Members {
		switch m.Name {
		case "required", "type": // guards that make the test apply
		case "properties":
			for _, p := range m.Value.Members {
				pl := l.child("properties", p.Name)
				v := p.Value
				switch {
				case v.Get("const") != nil:
					tests = append(tests, test{prefix + p.Name, []string{v.Get("const").Text}})
				case v.Get("enum") != nil:
					var vals []string
					for _, e := range v.Get("enum").Items {
						vals = append(vals, e.Text)
					}
					tests = append(tests, test{prefix + p.Name, vals})
				case v.Get("properties") != nil:
					sub, err := ifTests(v, prefix+p.Name+".", pl)
					if err != nil {
						return nil, err
					}
					tests = append(tests, sub...)
				default:
					return nil, fmt.Errorf("%s: dtsgen can phrase only const, enum and nested properties in an if", pl)
				}
			}
		default:
			return nil, fmt.Errorf("%s: keyword %q in an if is not supported by dtsgen", l, m.Name)
		}
	}
	return tests, nil
}

func thenEffects(s *skillcat.Node, prefix string, l loc) ([]effect, error) {
	var effects []effect
	for _, m := range s.Members {
		switch m.Name {
		case "required":
			for _, it := range m.Value.Items {
				effects = append(effects, effect{path: prefix + it.Text, what: "is required"})
			}
		case "properties":
			for _, p := range m.Value.Members {
				pl := l.child("properties", p.Name)
				if not := p.Value.Get("not"); not != nil && len(p.Value.Members) == 1 {
					c := not.Get("const")
					if c == nil || len(not.Members) != 1 {
						return nil, fmt.Errorf("%s: dtsgen can phrase only not/const in a then", pl)
					}
					effects = append(effects, effect{path: prefix + p.Name, what: "must not be " + strconv.Quote(c.Text), not: c.Text})
					continue
				}
				sub, err := thenEffects(p.Value, prefix+p.Name+".", pl)
				if err != nil {
					return nil, err
				}
				effects = append(effects, sub...)
			}
		default:
			return nil, fmt.Errorf("%s: keyword %q in a then is not supported by dtsgen", l, m.Name)
		}
	}
	return effects, nil
}

// discriminant returns the member whose value decides every rule, when the
// object is a discriminated union: each rule tests that one member against
// one constant and only requires members of the object itself, and the
// member is a required string enum.
func discriminant(rules []rule, s *skillcat.Node) (string, bool) {
	if len(rules) == 0 {
		return "", false
	}
	d := rules[0].tests[0].path
	for _, r := range rules {
		if len(r.tests) != 1 || r.tests[0].path != d || len(r.tests[0].values) != 1 {
			return "", false
		}
		for _, e := range r.effects {
			if e.what != "is required" || strings.Contains(e.path, ".") {
				return "", false
			}
		}
	}
	ds := s.Get("properties").Get(d)
	if ds == nil || ds.Get("enum") == nil {
		return "", false
	}
	req := s.Get("required")
	return d, req != nil && slices.ContainsFunc(req.Items, func(n *skillcat.Node) bool { return n.Text == d })
}

// unionDecl writes a discriminated union: the union type, then one interface
// per value of the discriminant d.
func (g *generator) unionDecl(name string, l loc, s *skillcat.Node, doc []string, members []*member, required map[string]bool, rules []rule, d string) (string, error) {
	values := s.Get("properties").Get(d).Get("enum").Items
	variantReq := map[string][]string{}
	for _, r := range rules {
		v := r.tests[0].values[0]
		for _, e := range r.effects {
			variantReq[v] = append(variantReq[v], e.path)
		}
	}
	placed := map[string]bool{d: true}
	var variants []string
	var bodies []string
	for _, vn := range values {
		v := vn.Text
		vname := variantNames[name][v]
		if vname == "" {
			vname = pascal(v) + name
		}
		variants = append(variants, vname)
		var vm []*member
		for _, m := range members {
			c := *m
			switch {
			case m.name == d:
				c.typ = strconv.Quote(v)
				c.doc = nil
			case required[m.name] || slices.Contains(variantReq[v], m.name):
				c.required = true
			case slices.Contains(variantOptional[name][v], m.name):
			default:
				continue
			}
			placed[m.name] = true
			vm = append(vm, &c)
		}
		vdoc := "A" + article(name) + " " + name + " whose `" + d + "` is " + strconv.Quote(v)
		if req := variantReq[v]; len(req) > 0 {
			vdoc += ": `" + strings.Join(req, "` and `") + "` required"
		}
		bodies = append(bodies, interfaceText(vname, []string{vdoc + "."}, vm))
	}
	for _, m := range members {
		if !placed[m.name] {
			return "", fmt.Errorf("%s: member %q belongs to no variant of %s; place it in variantOptional", l, m.name, name)
		}
	}
	for _, names := range variantOptional[name] {
		for _, n := range names {
			if s.Get("properties").Get(n) == nil {
				return "", errors.New("variantOptional names " + strconv.Quote(n) + ", which " + name + " does not have")
			}
		}
	}
	doc = append(doc, "A discriminated union on `"+d+"`.")
	text := jsdoc("", doc, nil) + "export type " + name + " = " + strings.Join(variants, " | ") + ";\n"
	for _, b := range bodies {
		text += "\n" + b
	}
	return text, nil
}

// article returns "n" when name starts with a vowel sound, so that "A"+it
// reads "An Auth".
func article(name string) string {
	if name != "" && strings.ContainsRune("AEIOU", rune(name[0])) {
		return "n"
	}
	return ""
}

func pascal(s string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// jsdoc writes a JSDoc comment of paragraphs and tags at an indent, or
// nothing when both are empty.
func jsdoc(indent string, paras []string, tags []string) string {
	if len(paras) == 0 && len(tags) == 0 {
		return ""
	}
	esc := func(s string) string { return strings.ReplaceAll(s, "*/", `*\/`) }
	if len(paras) == 1 && len(tags) == 0 && !strings.Contains(paras[0], "\n") {
		return indent + "/** " + esc(paras[0]) + " */\n"
	}
	var b strings.Builder
	b.WriteString(indent + "/**\n")
	for i, p := range paras {
		if i > 0 {
			b.WriteString(indent + " *\n")
		}
		for _, line := range strings.Split(p, "\n") {
			b.WriteString(strings.TrimRight(indent+" * "+esc(line), " ") + "\n")
		}
	}
	if len(paras) > 0 && len(tags) > 0 {
		b.WriteString(indent + " *\n")
	}
	for _, t := range tags {
		b.WriteString(indent + " * " + esc(t) + "\n")
	}
	b.WriteString(indent + " */\n")
	return b.String()
}
