package skillcat

import (
	"bytes"
	"cmp"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

//go:embed schemas/*.schema.json
var schemaFiles embed.FS

// The file names of the protocol's JSON Schemas, as published under
// /schemas/v1/.
const (
	DescriptorSchemaFile = "skill-descriptor.schema.json"
	IndexSchemaFile      = "skill-index.schema.json"
	RequestSchemaFile    = "invocation-request.schema.json"
	ResponseSchemaFile   = "invocation-response.schema.json"
)

// SchemaBaseURL is the base of the schemas' $id URLs: the schemas folder
// of this module's repository, where each file can be fetched, and what a
// descriptor's "$schema" names (docs/protocol.md, "The $schema URL").
const SchemaBaseURL = "https://raw.githubusercontent.com/skillcat/skillcat/main/schemas/"

// Schemas returns the protocol's four JSON Schemas (draft 2020-12) as a file
// system holding DescriptorSchemaFile, IndexSchemaFile, RequestSchemaFile and
// ResponseSchemaFile.
func Schemas() fs.FS {
	sub, err := fs.Sub(schemaFiles, "schemas")
	if err != nil {
		panic(err) // the embedded directory exists
	}
	return sub
}

// protocolSchemas holds the compiled built-in schemas and their parsed
// documents, for the keyword look-ups that make messages readable.
var protocolSchemas = sync.OnceValue(func() map[string]*jsonschema.Schema {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.UseLoader(noLoader{})
	out := map[string]*jsonschema.Schema{}
	for _, name := range []string{DescriptorSchemaFile, IndexSchemaFile, RequestSchemaFile, ResponseSchemaFile} {
		doc := schemaDoc(SchemaBaseURL + name)
		if err := c.AddResource(SchemaBaseURL+name, doc); err != nil {
			panic(fmt.Sprintf("add schema %s: %v", name, err))
		}
		sch, err := c.Compile(SchemaBaseURL + name)
		if err != nil {
			panic(fmt.Sprintf("compile schema %s: %v", name, err))
		}
		out[name] = sch
	}
	return out
})

// protocolDocs holds the parsed built-in schema documents by $id URL.
var protocolDocs = sync.OnceValue(func() map[string]any {
	docs := map[string]any{}
	for _, name := range []string{DescriptorSchemaFile, IndexSchemaFile, RequestSchemaFile, ResponseSchemaFile} {
		data, err := fs.ReadFile(schemaFiles, "schemas/"+name)
		if err != nil {
			panic(err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			panic(fmt.Sprintf("parse schema %s: %v", name, err))
		}
		docs[SchemaBaseURL+name] = doc
	}
	return docs
})

func schemaDoc(url string) any { return protocolDocs()[url] }

func descriptorSchema() *jsonschema.Schema { return protocolSchemas()[DescriptorSchemaFile] }

// noLoader refuses to load any schema from outside: a descriptor's schemas
// must be self-contained, and a build must never reach the network.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schemas must be self-contained; cannot load %q", url)
}

// validateSchema validates root against sch and translates every failure
// into a Violation.
func validateSchema(sch *jsonschema.Schema, src *Source, root *Node) Violations {
	return validateValue(sch, src, root, root.Value())
}

// validateValue is validateSchema given root.Value() already.
func validateValue(sch *jsonschema.Schema, src *Source, root *Node, v any) Violations {
	return translate(sch.Validate(v), src, root, nil, schemaDoc)
}

// translate turns a jsonschema validation error into violations at the
// instance locations (under prefix) of root, in plain words. Combinators
// (allOf, $ref, if/then) never reach the user: only the failing leaves do,
// phrased with the condition that made them apply.
func translate(err error, src *Source, root *Node, prefix Path, docs func(string) any) Violations {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	tr := translator{src: src, root: root, prefix: prefix, base: root.At(prefix), docs: docs, seen: map[string]bool{}}
	tr.walk(ve)
	return tr.out
}

type translator struct {
	src    *Source
	root   *Node
	prefix Path  // where in root the validated instance is
	base   *Node // the instance, which instance locations start from
	docs   func(string) any
	seen   map[string]bool
	out    Violations
}

var printer = message.NewPrinter(language.English)

func (tr *translator) walk(e *jsonschema.ValidationError) {
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.AllOf, *kind.Reference:
		for _, c := range e.Causes {
			tr.walk(c)
		}
		return
	case *kind.AnyOf, *kind.OneOf:
		if c := relevantBranch(e); c != nil {
			tr.walk(c)
			return
		}
	case *kind.PropertyNames:
		if obj, path, ok := tr.nameOwner(e, k.Property); ok {
			for _, m := range obj.Members {
				if m.Name == k.Property {
					tr.add(m.Key, path.Member(m.Name), "its name "+nameReason(e)+"; got "+quoteString(m.Name))
					break
				}
			}
			return
		}
	case *kind.Required:
		for _, name := range k.Missing {
			path := tr.path(e).Member(name)
			reason := "required member is missing"
			if cond := tr.condition(e, path); cond != "" {
				reason = "required when " + cond
			}
			tr.add(tr.nodeAt(e), path, reason)
		}
		return
	}
	tr.add(tr.nodeAt(e), tr.path(e), tr.reason(e))
}

// nameOwner finds the object whose member name failed "propertyNames".
// jsonschema/v6 gives such an error its validator's location slice, which
// later siblings overwrite, so only its length can be trusted: the owner
// is the object at that depth holding a member of that name, and of
// several the one that agrees with the location most (first in the source
// on a tie).
func (tr *translator) nameOwner(e *jsonschema.ValidationError, name string) (*Node, Path, bool) {
	depth := len(e.InstanceLocation)
	var best *Node
	var bestPath Path
	bestScore := -1
	var walk func(n *Node, path Path)
	walk = func(n *Node, path Path) {
		if n == nil {
			return
		}
		if len(path) == depth {
			if n.Kind != Object {
				return
			}
			score := 0
			for i, st := range path {
				if st.Token() == e.InstanceLocation[i] {
					score++
				}
			}
			if score > bestScore && slices.ContainsFunc(n.Members, func(m Member) bool { return m.Name == name }) {
				best, bestPath, bestScore = n, path, score
			}
			return
		}
		for _, m := range n.Members {
			walk(m.Value, path.Member(m.Name))
		}
		for i, it := range n.Items {
			walk(it, path.Item(i))
		}
	}
	walk(tr.base, nil)
	if best == nil {
		return nil, nil, false
	}
	return best, append(tr.prefix[:len(tr.prefix):len(tr.prefix)], bestPath...), true
}

// nameReason phrases why a member name failed "propertyNames", from the
// first keyword that failed on it.
func nameReason(e *jsonschema.ValidationError) string {
	for len(e.Causes) == 1 {
		e = e.Causes[0]
	}
	if len(e.Causes) > 0 {
		e = e.Causes[0]
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Format:
		return "must be a valid " + k.Want
	case *kind.Pattern:
		return fmt.Sprintf("must match the pattern %q", k.Want)
	case *kind.MaxLength:
		return fmt.Sprintf("must be at most %d characters", k.Want)
	case *kind.MinLength:
		return fmt.Sprintf("must be at least %d characters", k.Want)
	case *kind.Enum, *kind.Const:
		return "is not one of the names allowed"
	case *kind.FalseSchema:
		return "is not allowed"
	}
	return "is not allowed: " + e.ErrorKind.LocalizedString(printer)
}

// relevantBranch returns the one alternative of a failed anyOf or oneOf that
// was meant for the value's JSON type, or nil. The alternatives that failed
// only on "type" at the value itself are noise: the user wrote a string, so
// the branch for arrays does not concern them.
func relevantBranch(e *jsonschema.ValidationError) *jsonschema.ValidationError {
	var kept *jsonschema.ValidationError
	for _, c := range e.Causes {
		if onlyTypeMismatch(c, len(e.InstanceLocation)) {
			continue
		}
		if kept != nil {
			return nil
		}
		kept = c
	}
	return kept
}

func onlyTypeMismatch(e *jsonschema.ValidationError, depth int) bool {
	if len(e.Causes) == 0 {
		_, isType := e.ErrorKind.(*kind.Type)
		return isType && len(e.InstanceLocation) == depth
	}
	for _, c := range e.Causes {
		if !onlyTypeMismatch(c, depth) {
			return false
		}
	}
	return true
}

func (tr *translator) path(e *jsonschema.ValidationError) Path {
	return append(tr.prefix[:len(tr.prefix):len(tr.prefix)], tr.base.PathOf(e.InstanceLocation)...)
}

func (tr *translator) nodeAt(e *jsonschema.ValidationError) *Node {
	return tr.root.At(tr.path(e))
}

func (tr *translator) add(n *Node, path Path, reason string) {
	key := path.Pointer() + "\x00" + reason
	if tr.seen[key] {
		return
	}
	tr.seen[key] = true
	if n == nil {
		n = tr.root
	}
	tr.out = append(tr.out, tr.src.violation(n, path, reason))
}

// reason phrases one failing keyword.
func (tr *translator) reason(e *jsonschema.ValidationError) string {
	got := quoteValue(tr.nodeAt(e))
	switch k := e.ErrorKind.(type) {
	case *kind.Type:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = article(w)
		}
		return "must be " + strings.Join(want, " or ") + "; got " + kindPhrase(tr.nodeAt(e)) + yamlQuoteHint(tr.nodeAt(e), tr.path(e), k.Want)
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = display(w)
		}
		if len(want) == 1 {
			return "must be " + want[0] + "; got " + got + enumHint(tr.nodeAt(e), k.Want)
		}
		return "must be one of " + strings.Join(want, ", ") + "; got " + got + enumHint(tr.nodeAt(e), k.Want)
	case *kind.Const:
		return "must be " + display(k.Want) + "; got " + got
	case *kind.MinLength:
		if k.Want == 1 {
			return "must not be empty"
		}
		return fmt.Sprintf("must be at least %d characters; got %d", k.Want, k.Got)
	case *kind.MaxLength:
		return fmt.Sprintf("must be at most %d characters; got %d", k.Want, k.Got)
	case *kind.MaxItems:
		return fmt.Sprintf("must have at most %s; got %d", countOf(k.Want, "item"), k.Got)
	case *kind.MinItems:
		return fmt.Sprintf("must have at least %s; got %d", countOf(k.Want, "item"), k.Got)
	case *kind.UniqueItems:
		dup := quoteValue(tr.root.At(tr.path(e).Item(k.Duplicates[1])))
		return fmt.Sprintf("must not repeat %s (items %d and %d are equal)", dup, k.Duplicates[0], k.Duplicates[1])
	case *kind.Pattern:
		return tr.patternReason(e, got)
	case *kind.Format:
		if k.Want == "date-time" {
			return `must be an RFC 3339 date-time such as "2026-01-31T09:30:00Z"; got ` + got
		}
		return "must be a valid " + k.Want + "; got " + got
	case *kind.Minimum:
		return "must be at least " + ratString(k.Want) + "; got " + got
	case *kind.Maximum:
		return "must be at most " + ratString(k.Want) + "; got " + got
	case *kind.ExclusiveMinimum:
		return "must be greater than " + ratString(k.Want) + "; got " + got
	case *kind.ExclusiveMaximum:
		return "must be less than " + ratString(k.Want) + "; got " + got
	case *kind.MultipleOf:
		return "must be a multiple of " + ratString(k.Want) + "; got " + got
	case *kind.MinProperties:
		return fmt.Sprintf("must have at least %s; got %d", countOf(k.Want, "member"), k.Got)
	case *kind.MaxProperties:
		return fmt.Sprintf("must have at most %s; got %d", countOf(k.Want, "member"), k.Got)
	case *kind.FalseSchema:
		return "is not allowed here"
	case *kind.Not:
		if cond := tr.condition(e, nil); cond != "" {
			return "must not be " + got + " when " + cond
		}
		return "must not match the schema under \"not\"; got " + got
	case *kind.AdditionalProperties:
		return "has members the schema does not allow: " + quoteNames(inSourceOrder(tr.nodeAt(e), k.Properties))
	case *kind.OneOf:
		if len(k.Subschemas) > 1 {
			return fmt.Sprintf("must match exactly one alternative of \"oneOf\"; it matches alternatives %s", joinInts(k.Subschemas))
		}
		return "must match exactly one alternative of \"oneOf\"; it matches none"
	case *kind.AnyOf:
		return "must match at least one alternative of \"anyOf\"; it matches none"
	}
	return e.ErrorKind.LocalizedString(printer) + "; got " + got
}

// patternMessages phrase the built-in schemas' patterns by the $defs entry
// that holds them.
var patternMessages = map[string]string{
	"id":               `must be 1–128 lowercase letters and digits in groups joined by ".", "_" or "-" (like "weather.forecast")`,
	"label":            "must not be blank",
	"semver":           `must be a SemVer 2.0.0 version such as "1.4.0" or "2.0.0-beta.1"`,
	"protocol_version": `must be MAJOR.MINOR.PATCH, three numbers without leading zeros, such as "1.0.0"`,
	"tag":              `must be 1–32 lowercase letters, digits and "-", starting with a letter or digit`,
	"http_url":         "must be an absolute http or https URL",
	"email":            "must be an email address",
	"digest":           `must be "sha256:" followed by 64 lowercase hex digits`,
}

func (tr *translator) patternReason(e *jsonschema.ValidationError, got string) string {
	if url, frag, ok := strings.Cut(e.SchemaURL, "#"); ok && strings.HasPrefix(url, SchemaBaseURL) {
		if name, ok := strings.CutPrefix(frag, "/$defs/"); ok {
			if msg, ok := patternMessages[name]; ok {
				return msg + "; got " + got
			}
		}
		if strings.HasSuffix(frag, "/descriptor_url") {
			return "must be a URI reference without spaces; got " + got
		}
	}
	k := e.ErrorKind.(*kind.Pattern)
	return fmt.Sprintf("must match the pattern %q; got %s", k.Want, got)
}

// condition phrases the "if" that made a failing "then" apply, as
// `auth.type is "oauth2"`, or returns "" when the error is not under a then.
// The if must test members of the object it applies to with const or enum.
func (tr *translator) condition(e *jsonschema.ValidationError, _ Path) string {
	url, frag, ok := strings.Cut(e.SchemaURL, "#")
	if !ok {
		return ""
	}
	i := strings.LastIndex(frag+"/", "/then/")
	if i < 0 {
		return ""
	}
	ifSchema, ok := lookupPointer(tr.docs(url), frag[:i]+"/if").(map[string]any)
	if !ok {
		return ""
	}
	// The instance the "if" tested sits as many levels up as there are
	// properties/NAME steps between the then and the failing keyword.
	depth := strings.Count(frag[min(i+len("/then"), len(frag)):], "/properties/")
	loc := tr.path(e)
	if depth > len(loc) {
		return ""
	}
	base := loc[:len(loc)-depth]
	parts := tr.conditionParts(ifSchema, base)
	if len(parts) == 0 {
		return ""
	}
	// The failing member itself is not its own condition.
	self := loc.Field()
	kept := parts[:0]
	for _, p := range parts {
		if !strings.HasPrefix(p, self+" is ") {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		return ""
	}
	return strings.Join(kept, " and ")
}

// conditionParts phrases each member an "if" schema tests, descending into
// members that are objects (so {"auth": {"properties": {"type": …}}} reads
// auth.type is "none").
func (tr *translator) conditionParts(ifSchema map[string]any, base Path) []string {
	props, _ := ifSchema["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	sort.Strings(names)
	var parts []string
	for _, name := range names {
		p := base.Member(name)
		n := tr.root.At(p)
		switch {
		case n == nil:
		case n.Kind == Object:
			if sub, ok := props[name].(map[string]any); ok {
				parts = append(parts, tr.conditionParts(sub, p)...)
			}
		default:
			parts = append(parts, p.Field()+" is "+quoteValue(n))
		}
	}
	return parts
}

// lookupPointer resolves a JSON Pointer fragment in a parsed document.
func lookupPointer(doc any, ptr string) any {
	for _, tok := range ParsePointer(ptr) {
		switch v := doc.(type) {
		case map[string]any:
			doc = v[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v) {
				return nil
			}
			doc = v[i]
		default:
			return nil
		}
	}
	return doc
}

// countOf formats a count with its noun: "1 item", "20 items".
func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// ratString writes a number in decimal, exactly when that takes at most 30
// digits, else rounded to 20 significant digits with an exponent (1e+1000),
// so that a message stays short whatever the number.
func ratString(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		if s := r.Num().String(); len(s) <= 30 {
			return s
		}
	} else if n, exact := r.FloatPrec(); exact && n <= 30 {
		if s := r.FloatString(n); len(s) <= 32 {
			return s
		}
	}
	return new(big.Float).SetPrec(67).SetRat(r).Text('g', -1)
}

func article(typ string) string {
	switch typ {
	case "object", "array", "integer":
		return "an " + typ
	case "null":
		return "null"
	}
	return "a " + typ
}

// display renders a schema value (from enum or const) as JSON.
func display(v any) string {
	switch v := v.(type) {
	case string:
		return string(appendString(nil, v))
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprint(v)
}

// inSourceOrder orders member names of object n as the source writes them
// (the validator reports them in map order, which changes from run to run).
func inSourceOrder(n *Node, names []string) []string {
	pos := func(name string) int {
		if n != nil {
			for i, m := range n.Members {
				if m.Name == name {
					return i
				}
			}
		}
		return -1
	}
	sorted := slices.Clone(names)
	slices.SortStableFunc(sorted, func(a, b string) int { return cmp.Or(pos(a)-pos(b), strings.Compare(a, b)) })
	return sorted
}

func quoteNames(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = string(appendString(nil, n))
	}
	return strings.Join(q, ", ")
}

func joinInts(is []int) string {
	s := make([]string, len(is))
	for i, v := range is {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, " and ")
}

func itoa(i int) string { return strconv.Itoa(i) }
