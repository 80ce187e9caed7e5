package skillcat

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// The linter: warnings for documents that are valid but probably not what
// their author meant. Each is a Violation of SeverityWarning with a hint;
// --strict makes them errors.
//
//   - an unknown member that is not "x-…", at any level of a descriptor, a
//     SkillIndex, an InvocationRequest or an InvocationResponse, says where
//     it probably belongs (quiet for a newer 1.x minor, whose new members
//     are expected);
//   - an unknown JSON Schema keyword in inputs or output (OpenAPI's
//     "nullable", "example") names the draft 2020-12 equivalent;
//   - a member still holding a placeholder that skillcat new wrote.

// shape is what the protocol defines for one value of a document: the
// members of an object (each with its own shape), the shape of each item of
// an array, or a JSON Schema of the provider's own. The zero shape is a
// value whose content the protocol leaves free (a map of scopes, an
// example's inputs).
type shape struct {
	members map[string]*shape
	each    *shape
	schema  bool
}

var (
	freeShape   = &shape{}
	schemaShape = &shape{schema: true}

	// descriptorShape is a SkillDescriptor, member by member.
	descriptorShape = &shape{members: map[string]*shape{
		"$schema": freeShape, "protocol": {members: map[string]*shape{"version": freeShape}},
		"id": freeShape, "name": freeShape, "version": freeShape, "capability_type": freeShape, "description": freeShape,
		"provider": {members: map[string]*shape{"name": freeShape, "url": freeShape, "email": freeShape}},
		"endpoint": {members: map[string]*shape{"url": freeShape, "method": freeShape}},
		"inputs":   schemaShape, "output": schemaShape,
		"auth": {members: map[string]*shape{"type": freeShape, "in": freeShape, "name": freeShape, "token_url": freeShape,
			"authorization_url": freeShape, "scopes": freeShape, "instructions": freeShape}},
		"access": freeShape, "tags": freeShape,
		"examples":          {each: &shape{members: map[string]*shape{"title": freeShape, "inputs": freeShape, "output": freeShape}}},
		"documentation_url": freeShape,
	}}

	// indexShape is a SkillIndex, requestShape an InvocationRequest and
	// responseShape an InvocationResponse.
	indexShape = &shape{members: map[string]*shape{
		"protocol": {members: map[string]*shape{"version": freeShape}},
		"skills": {each: &shape{members: map[string]*shape{"id": freeShape, "name": freeShape, "version": freeShape,
			"capability_type": freeShape, "access": freeShape, "summary": freeShape, "descriptor_url": freeShape, "digest": freeShape}}},
	}}
	requestShape = &shape{members: map[string]*shape{
		"protocol": {members: map[string]*shape{"version": freeShape}},
		"caller":   {members: map[string]*shape{"id": freeShape, "type": freeShape}},
		"skill_id": freeShape, "inputs": freeShape, "request_id": freeShape, "context": freeShape,
	}}
	responseShape = &shape{members: map[string]*shape{
		"execution_id": freeShape, "status": freeShape, "skill_id": freeShape,
		"timestamps": {members: map[string]*shape{"created_at": freeShape, "started_at": freeShape, "completed_at": freeShape}},
		"output":     freeShape,
		"error":      {members: map[string]*shape{"code": freeShape, "message": freeShape}},
	}}

	descriptorKind = newDocKind("a descriptor", descriptorShape)
	indexKind      = newDocKind("a SkillIndex", indexShape)
	requestKind    = newDocKind("an InvocationRequest", requestShape)
	responseKind   = newDocKind("an InvocationResponse", responseShape)
)

// docKind is one kind of protocol document, for the linter: its shape and,
// for "did you mean" across objects, where each member name lives in it
// ("endpoint.method").
type docKind struct {
	name string // with its article: "a descriptor"

	shape  *shape
	places map[string][]string
}

func newDocKind(name string, s *shape) *docKind {
	return &docKind{name: name, shape: s, places: places(s, "")}
}

// lintMembers returns a warning for every unknown member of a document of
// kind k, unless it declares a newer minor.
func lintMembers(src *Source, root *Node, k *docKind) Violations {
	if newerMinor(root) {
		return nil
	}
	vs := unknownMembers(src, root, walkPath(), k.shape, k)
	for i := range vs {
		vs[i].Severity = SeverityWarning
	}
	return vs
}

func memberNames(s *shape) []string {
	names := make([]string, 0, len(s.members))
	for name := range s.members {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// places lists, for every member name under s, the dotted paths where it is
// defined, sorted.
func places(s *shape, prefix string) map[string][]string {
	out := map[string][]string{}
	var walk func(s *shape, prefix string)
	walk = func(s *shape, prefix string) {
		if s.each != nil {
			walk(s.each, prefix+"[]")
		}
		for name, sub := range s.members {
			p := name
			if prefix != "" {
				p = prefix + "." + name
			}
			out[name] = append(out[name], p)
			walk(sub, p)
		}
	}
	walk(s, prefix)
	for _, ps := range out {
		sort.Strings(ps)
	}
	return out
}

// lintDescriptor returns the warnings of a descriptor that passed
// validation or not: unknown members, unknown schema keywords and
// placeholders.
func lintDescriptor(src *Source, root *Node) Violations {
	vs := lintMembers(src, root, descriptorKind)
	for _, member := range []string{"inputs", "output"} {
		if n := root.Get(member); n != nil && n.Kind == Object && knownDialect(n) {
			vs = append(vs, schemaKeywords(src, n, walkPath().stepMember(member))...)
		}
	}
	vs = append(vs, placeholders(src, root)...)
	vs = append(vs, deviceName(src, root)...)
	vs = append(vs, userInfo(src, root)...)
	for i := range vs {
		vs[i].Severity = SeverityWarning
	}
	return vs
}

// urlMembers are the descriptor's URL members.
var urlMembers = []Path{Members("endpoint", "url"), Members("provider", "url"), Members("documentation_url"),
	Members("auth", "token_url"), Members("auth", "authorization_url")}

// userInfo warns of a URL member with a password in its user information
// ("https://user:password@host/"): it is published with the descriptor,
// password and all, and skillcat's client refuses such an endpoint
// (credentials go where auth.type says). A user name alone
// ("https://user@host/") is left alone.
func userInfo(src *Source, root *Node) Violations {
	var vs Violations
	for _, p := range urlMembers {
		n := root.At(p)
		if n == nil || n.Kind != String || !strings.Contains(n.Text, "@") {
			continue
		}
		if u, err := url.Parse(n.Text); err == nil && u.Host != "" && u.User != nil {
			if _, ok := u.User.Password(); ok {
				vs = append(vs, src.violation(n, p, fmt.Sprintf("holds a password (%s:…@), which is published with the descriptor; give credentials where auth.type says, never in a URL", u.User.Username())))
			}
		}
	}
	return vs
}

// windowsDevices are the names Windows keeps for devices, whatever
// extension follows them (NUL.json is NUL).
var windowsDevices = []string{"con", "prn", "aux", "nul",
	"com0", "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8", "com9",
	"lpt0", "lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9"}

// deviceName warns of an id whose first segment is a Windows device name
// ("con", "nul.backup"): the id pattern admits it, but the files a build
// names after it (skills/con.json, skills/con/) cannot be made, copied or
// checked out on Windows.
func deviceName(src *Source, root *Node) Violations {
	n := root.Get("id")
	if n == nil || n.Kind != String {
		return nil
	}
	first, _, _ := strings.Cut(n.Text, ".")
	if !slices.Contains(windowsDevices, first) {
		return nil
	}
	return Violations{src.violation(n, Members("id"), fmt.Sprintf("%q is a device name on Windows (%s), where the files named after the id (skills/%s.json, skills/%s/) cannot be made or checked out; choose another id",
		n.Text, strings.ToUpper(first), n.Text, n.Text))}
}

// newerMinor reports whether a document declares a protocol version of the
// supported major with a minor above this package's.
func newerMinor(root *Node) bool {
	vn := root.Get("protocol").Get("version")
	if vn == nil || vn.Kind != String {
		return false
	}
	v, err := ParseVersion(vn.Text)
	cur, _ := ParseVersion(CurrentVersion)
	return err == nil && v.Major == cur.Major && v.Minor > cur.Minor
}

// unknownMembers warns of every member of n, and of the objects below it
// that the protocol defines, that s does not name and that is not "x-…".
// Its path grows in place (walkPath).
func unknownMembers(src *Source, n *Node, path Path, s *shape, k *docKind) Violations {
	var vs Violations
	switch {
	case s.each != nil && n.Kind == Array:
		for i, it := range n.Items {
			vs = append(vs, unknownMembers(src, it, path.stepItem(i), s.each, k)...)
		}
	case s.members != nil && n.Kind == Object:
		for _, m := range n.Members {
			p := path.stepMember(m.Name)
			if sub, ok := s.members[m.Name]; ok {
				vs = append(vs, unknownMembers(src, m.Value, p, sub, k)...)
				continue
			}
			if strings.HasPrefix(m.Name, "x-") {
				continue
			}
			vs = append(vs, src.violation(m.Key, p, unknownMemberReason(m.Name, path, s, k)))
		}
	}
	return vs
}

// unknownMemberReason says what an unknown member probably is: a misspelt
// member of the same object, a member of another object, a JSON Schema
// keyword that belongs in inputs, or an extension that needs its "x-".
func unknownMemberReason(name string, parent Path, s *shape, k *docKind) string {
	if guess := closest(name, memberNames(s)); guess != "" {
		return "unknown member " + quoteString(name) + "; did you mean " + quoteString(guess) + "?"
	}
	where := k.name + " member"
	if len(parent) > 0 {
		where = "a member of " + strings.Join(nonIndex(parent), ".")
	}
	var elsewhere []string
	for _, p := range k.places[name] {
		if p == name {
			elsewhere = append(elsewhere, "the top-level "+quoteString(p))
			continue
		}
		elsewhere = append(elsewhere, quoteString(p))
	}
	if k == descriptorKind && isSchemaKeyword(name) {
		elsewhere = append(elsewhere, quoteString("inputs."+name))
	}
	if len(elsewhere) > 0 {
		return quoteString(name) + " is not " + where + "; did you mean " + orList(elsewhere) + "?"
	}
	return quoteString(name) + " is not " + where + " in protocol " + CurrentVersion + "; if it is an extension of your own, name it " + quoteString("x-"+name)
}

// nonIndex drops array indexes from a path: examples[0].inputs reads
// examples[].inputs.
func nonIndex(p Path) []string {
	out := make([]string, 0, len(p))
	for _, s := range p {
		if s.IsIndex && len(out) > 0 {
			out[len(out)-1] += "[]"
			continue
		}
		out = append(out, s.Token())
	}
	return out
}

// orList joins quoted names as `"a"`, `"a" or "b"`, `"a", "b" or "c"`.
func orList(items []string) string {
	if len(items) == 1 {
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// The keywords of JSON Schema draft 2020-12, by what their value holds.
var (
	schemaValued = []string{"additionalProperties", "unevaluatedProperties", "unevaluatedItems", "items", "contains",
		"propertyNames", "not", "if", "then", "else", "contentSchema"}
	schemaArrays  = []string{"prefixItems", "allOf", "anyOf", "oneOf"}
	schemaMaps    = []string{"properties", "patternProperties", "$defs", "dependentSchemas"}
	otherKeywords = []string{"$schema", "$id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$vocabulary", "$comment",
		"type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
		"maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxContains", "minContains",
		"maxProperties", "minProperties", "required", "dependentRequired",
		"title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples",
		"format", "contentEncoding", "contentMediaType"}
	schemaKeywordList = append(append(append(append([]string{}, schemaValued...), schemaArrays...), schemaMaps...), otherKeywords...)
)

func isSchemaKeyword(name string) bool { return isKnown(name, schemaKeywordList) }

// foreignKeywords are keywords of OpenAPI and of older JSON Schema drafts
// that draft 2020-12 ignores, each with what to write instead. The value of
// "definitions" is still walked as a map of schemas.
var foreignKeywords = map[string]string{
	"nullable":        `is an OpenAPI keyword that JSON Schema 2020-12 ignores; allow null in "type" instead: "type": [%s, "null"]`,
	"example":         `is an OpenAPI keyword that JSON Schema 2020-12 ignores; use "examples", an array: "examples": [%s]`,
	"definitions":     `is the draft-07 name; JSON Schema 2020-12 calls it "$defs" (and "$ref": "#/$defs/NAME")`,
	"id":              `is the draft-04 name; JSON Schema 2020-12 calls it "$id"`,
	"dependencies":    `is the draft-07 keyword; JSON Schema 2020-12 splits it into "dependentRequired" (lists of names) and "dependentSchemas" (schemas)`,
	"additionalItems": `is the draft-07 keyword; in JSON Schema 2020-12 the tuple is "prefixItems" and the rest "items"`,
	"discriminator":   `is an OpenAPI keyword that JSON Schema 2020-12 ignores; tell the alternatives of "oneOf" apart with a "const" property`,
	"xml":             `is an OpenAPI keyword that JSON Schema 2020-12 ignores; remove it, or name it "x-xml"`,
	"externalDocs":    `is an OpenAPI keyword that JSON Schema 2020-12 ignores; put the link in "description", or name it "x-externalDocs"`,
}

// knownDialect reports whether a schema is draft 2020-12: it declares no
// "$schema", or that draft's.
func knownDialect(n *Node) bool {
	d := dialectOf(n)
	return d == "" || strings.TrimSuffix(d, "#") == "https://json-schema.org/draft/2020-12/schema"
}

// schemaKeywords warns of every keyword of the schema n (and its
// subschemas) that draft 2020-12 does not define, naming its equivalent.
// Its path grows in place (walkPath).
func schemaKeywords(src *Source, n *Node, path Path) Violations {
	if n.Kind != Object {
		return nil
	}
	var vs Violations
	sub := func(v *Node, p Path) { vs = append(vs, schemaKeywords(src, v, p)...) }
	for _, m := range n.Members {
		// The path is made only where it is used: most members are neither
		// subschemas nor unknown.
		switch {
		case isKnown(m.Name, schemaValued):
			sub(m.Value, path.stepMember(m.Name))
		case isKnown(m.Name, schemaArrays):
			p := path.stepMember(m.Name)
			for i, it := range m.Value.Items {
				sub(it, p.stepItem(i))
			}
		case isKnown(m.Name, schemaMaps) || m.Name == "definitions":
			p := path.stepMember(m.Name)
			for _, mm := range m.Value.Members {
				sub(mm.Value, p.stepMember(mm.Name))
			}
		}
		if isSchemaKeyword(m.Name) || strings.HasPrefix(m.Name, "x-") {
			continue
		}
		reason := "unknown JSON Schema keyword " + quoteString(m.Name) + "; JSON Schema 2020-12 ignores it"
		if hint, ok := foreignKeywords[m.Name]; ok {
			reason = quoteString(m.Name) + " " + hint
			switch m.Name {
			case "nullable":
				reason = strings.Replace(reason, "%s", nullableType(n), 1)
			case "example":
				reason = strings.Replace(reason, "%s", string(m.Value.AppendJSON(nil)), 1)
			}
		} else if guess := closest(m.Name, schemaKeywordList); guess != "" {
			reason += "; did you mean " + quoteString(guess) + "?"
		} else {
			reason += "; if it is an annotation of your own, name it " + quoteString("x-"+m.Name)
		}
		vs = append(vs, src.violation(m.Key, path.Member(m.Name), reason))
	}
	return vs
}

// nullableType returns the schema's type as JSON, for the "nullable" hint.
func nullableType(n *Node) string {
	if t := n.Get("type"); t != nil && t.Kind == String {
		return quoteString(t.Text)
	}
	return `"string"`
}

// The placeholders that skillcat new writes into a scaffold (their one
// owner). A skill that still holds one was not finished.
const (
	PlaceholderSummary          = "Replace this sentence with one that says what "
	PlaceholderProviderName     = "Your Organisation"
	PlaceholderProviderURL      = "https://your-organisation.example.com"
	PlaceholderProviderEmail    = "skills@your-organisation.example.com"
	PlaceholderEndpointURL      = "https://api.example.com/skills/"             // and the id
	PlaceholderDocumentationURL = "https://your-organisation.example.com/docs/" // and the id
)

// PlaceholderServer stands in for a server an imported document does not
// give as an absolute URL (skillcat import writes it, plus the path, and
// says so); a skill still calling it was not finished.
const PlaceholderServer = "https://server.placeholder.invalid"

// placeholders warns of each member that still holds what skillcat new
// wrote.
func placeholders(src *Source, root *Node) Violations {
	var vs Violations
	check := func(path Path, match func(string) bool, hint string) {
		n := root.At(path)
		if n != nil && n.Kind == String && match(n.Text) {
			vs = append(vs, src.violation(n, path, "still holds the placeholder skillcat new wrote; "+hint))
		}
	}
	is := func(want string) func(string) bool { return func(s string) bool { return s == want } }
	prefix := func(want string) func(string) bool { return func(s string) bool { return strings.HasPrefix(s, want) } }
	check(Members("description"), func(s string) bool { return strings.Contains(s, PlaceholderSummary) },
		"replace the first paragraph with what the skill does: it is the summary shown in the catalog and the index")
	check(Members("provider", "name"), is(PlaceholderProviderName), "give your organisation's name")
	check(Members("provider", "url"), is(PlaceholderProviderURL), "give your organisation's web site, or remove the member")
	check(Members("provider", "email"), is(PlaceholderProviderEmail), "give an address that reaches you, or remove the member")
	check(Members("endpoint", "url"), prefix(PlaceholderEndpointURL), "give the URL your skill is served at")
	if n := root.At(Members("endpoint", "url")); n != nil && n.Kind == String && strings.HasPrefix(n.Text, PlaceholderServer) {
		vs = append(vs, src.violation(n, Members("endpoint", "url"),
			"still holds the placeholder server skillcat import wrote (the document gave no absolute server URL); give the URL your skill is served at, or import again with --server URL"))
	}
	check(Members("documentation_url"), prefix(PlaceholderDocumentationURL), "link your skill's documentation, or remove the member")
	return vs
}

// enumHint suggests the allowed value that a string differs from only in
// case or surrounding space, or is within edit distance 2 of, ignoring
// case: "; did you mean \"api\"?".
func enumHint(n *Node, want []any) string {
	if n == nil || n.Kind != String {
		return ""
	}
	var names, lower []string
	for _, w := range want {
		if s, ok := w.(string); ok {
			if strings.EqualFold(s, strings.TrimSpace(n.Text)) {
				return "; did you mean " + quoteString(s) + "?"
			}
			names, lower = append(names, s), append(lower, strings.ToLower(s))
		}
	}
	if guess := closest(strings.ToLower(n.Text), lower); guess != "" {
		return "; did you mean " + quoteString(names[slices.Index(lower, guess)]) + "?"
	}
	return ""
}

// yamlQuoteHint suggests quoting a YAML scalar that YAML read as a number
// or a boolean where a string is required. At a member named version it
// suggests the SemVer the number stands for (1.0 → "1.0.0"), since the
// quoted number alone would be refused next.
func yamlQuoteHint(n *Node, path Path, want []string) string {
	if n == nil || n.Line == 0 || (n.Kind != Number && n.Kind != Bool) || !isKnown("string", want) {
		return ""
	}
	text := n.Text
	if len(path) > 0 && path[len(path)-1] == (Step{Name: "version"}) && n.Kind == Number {
		if _, err := ParseVersion(text); err != nil && semverPrefix.MatchString(text) {
			for strings.Count(text, ".") < 2 {
				text += ".0"
			}
		}
	}
	return "; YAML reads an unquoted " + n.Text + " as a " + n.Kind.String() + `: write "` + text + `"`
}

// semverPrefix matches a number of one or two dot-separated parts, the
// start of a SemVer version.
var semverPrefix = regexp.MustCompile(`^(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))?$`)

func isKnown(name string, known []string) bool {
	for _, k := range known {
		if k == name {
			return true
		}
	}
	return false
}

// closest returns the known name nearest to name within edit distance 2
// (1 for a name of up to three characters, so that "url" does not suggest
// "id"), or "".
func closest(name string, known []string) string {
	limit := 3
	if len([]rune(name)) <= 3 {
		limit = 2
	}
	best, bestD := "", limit
	for _, k := range known {
		if d := editDistance(name, k, bestD); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance returns the Levenshtein distance of a and b in code points,
// or limit when it is limit or more.
func editDistance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d >= limit || -d >= limit {
		return limit
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin >= limit {
			return limit
		}
		prev, cur = cur, prev
	}
	return min(prev[len(rb)], limit)
}
