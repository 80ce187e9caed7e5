package skillcat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// A descriptor's inputs and output are JSON Schemas of the provider's own.
// They must compile on their own (draft 2020-12 unless they say otherwise,
// no references outside the document), and each example must validate
// against them.

// userSchemaURL names a descriptor's inputs or output schema while it is
// compiled; it never reaches a message.
// A relative "$ref" resolves against it to another document in the same
// folder, which noLoader refuses: only fragments ("#/$defs/x") stay inside.
const userSchemaURL = "https://skill.invalid/descriptor/"

// SkillSchema is a compiled inputs or output schema of a descriptor.
type SkillSchema struct {
	sch *jsonschema.Schema
	doc any
	url string
}

// CompileSkillSchema compiles a descriptor's inputs or output schema given
// as raw JSON. The error, if any, names what is wrong in plain words.
func CompileSkillSchema(member string, raw json.RawMessage) (*SkillSchema, error) {
	n, err := ParseJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", member, err)
	}
	src := &Source{Name: member, Data: raw}
	s, vs := compileSkillSchema(src, n, nil, member, n.Value())
	if vs.HasErrors() {
		return nil, vs
	}
	return s, nil
}

// Validate validates an instance given as raw JSON against the schema and
// returns every violation, at fields under prefix (such as "inputs").
func (s *SkillSchema) Validate(name string, raw json.RawMessage, prefix ...string) Violations {
	src := &Source{Name: name, Data: raw}
	root, vs := ParseSource(src)
	if vs != nil {
		return vs
	}
	// Wrap the instance under prefix so that fields read inputs.city.
	docRoot := root
	for i := len(prefix) - 1; i >= 0; i-- {
		docRoot = &Node{Kind: Object, Offset: root.Offset, Members: []Member{{Name: prefix[i], Key: root, Value: docRoot}}}
	}
	return s.validateNode(newBudget(context.Background()), src, docRoot, root, root.Value(), Members(prefix...))
}

// validateNode checks instance, found at prefix of docRoot, within budget
// b; v is instance.Value().
func (s *SkillSchema) validateNode(b *budget, src *Source, docRoot, instance *Node, v any, prefix Path) Violations {
	if err := b.charge(s.sch, v); err != nil {
		reason := "was not checked: checking was interrupted"
		if errors.Is(err, errBudgetSpent) {
			reason = fmt.Sprintf("is too costly to check against its schema: the document's checks would apply subschemas more than %d times "+
				`(a recursive schema whose "oneOf" or "anyOf" branches all apply doubles the work with each level of nesting); simplify the schema or the value`, MaxValidationSteps)
		}
		return Violations{src.violation(instance, prefix, reason)}
	}
	return translate(s.sch.Validate(v), src, docRoot, prefix, s.lookupDoc)
}

func (s *SkillSchema) lookupDoc(url string) any {
	if url == s.url {
		return s.doc
	}
	return nil
}

// schemaCache holds compiled skill schemas by member and canonical JSON, so
// a catalog whose skills share schemas (a common output schema, say)
// compiles each once. Compiled schemas are immutable and safe to share.
var schemaCache = struct {
	sync.Mutex
	m map[string]*SkillSchema
}{m: map[string]*SkillSchema{}}

// maxCachedSchemas bounds the cache; it starts over when full.
const maxCachedSchemas = 256

// compileSkillSchema compiles the schema node n found at path of src.
// doc is the node's Value().
func compileSkillSchema(src *Source, root *Node, path Path, member string, doc any) (*SkillSchema, Violations) {
	n := root.At(path)
	if c := countValues(n, MaxSchemaValues); c > MaxSchemaValues {
		return nil, Violations{src.violation(n, path, fmt.Sprintf("is too large to check: a skill's schema may hold at most %d JSON values", MaxSchemaValues))}
	}
	key := n.AppendJSON(append([]byte(member), 0))
	schemaCache.Lock()
	cached := schemaCache.m[string(key)]
	schemaCache.Unlock()
	if cached != nil {
		return cached, nil
	}
	s, vs := compileNode(src, root, n, path, member, doc)
	if s != nil {
		schemaCache.Lock()
		if len(schemaCache.m) >= maxCachedSchemas {
			clear(schemaCache.m)
		}
		schemaCache.m[string(key)] = s
		schemaCache.Unlock()
	}
	return s, vs
}

func compileNode(src *Source, root, n *Node, path Path, member string, doc any) (*SkillSchema, Violations) {
	if metaValid(n) {
		if s := compileTrusted(doc, member); s != nil {
			return s, nil
		}
	}
	return compileChecked(src, root, n, path, member)
}

// compileChecked compiles schema node n (at path of root) as the library
// does by default, checking it against the metaschema first, and phrases
// every problem.
func compileChecked(src *Source, root, n *Node, path Path, member string) (*SkillSchema, Violations) {
	url := userSchemaURL + member + ".json"
	doc := n.Value()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	if err := c.AddResource(url, doc); err != nil {
		return nil, compileFailed(src, n, path, member, url, err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		var sve *jsonschema.SchemaValidationError
		if errors.As(err, &sve) {
			vs := translate(sve.Err, src, root, path, func(string) any { return nil })
			for i := range vs {
				vs[i].Reason = "is not a valid JSON Schema: " + vs[i].Reason
			}
			if len(vs) > 0 {
				return nil, vs
			}
		}
		return nil, compileFailed(src, n, path, member, url, err)
	}
	if cycle := refCycle(sch); cycle != nil {
		at := schemaPath(n, cycle[0], url)
		steps := make([]string, len(cycle))
		for i, loc := range cycle {
			steps[i] = "#" + schemaPath(n, loc, url).Pointer()
		}
		reason := fmt.Sprintf(`is not a valid JSON Schema: it refers to itself without looking into the value (%s), so no value could ever be checked against it`, strings.Join(steps, " → "))
		p := append(slices.Clone(path), at...)
		return nil, Violations{src.violation(root.At(p), p, reason)}
	}
	return &SkillSchema{sch: sch, doc: doc, url: url}, nil
}

// compileFailed is the violation of schema node n at path (its URL url)
// that did not compile, said by the compiler as err: at the "$ref" it
// could not follow when it names one, at the schema otherwise. When the
// trouble is with its references, it is each problem with them in
// document order (refProblems), which the compiler finds one at a time in
// no fixed order, each at the member that has it.
func compileFailed(src *Source, n *Node, path Path, member, url string, err error) Violations {
	problems := refProblems(n, member)
	if len(problems) == 0 {
		var load *jsonschema.LoadURLError
		var missing *jsonschema.JSONPointerNotFoundError
		switch {
		case errors.As(err, &load) && load.URL != strings.TrimSuffix(dialectOf(n), "#"):
			problems = []refProblem{{refTo(n, url, load.URL), ""}}
		case errors.As(err, &missing):
			problems = []refProblem{{refTo(n, url, missing.URL), ""}}
		default:
			problems = []refProblem{{"", ""}}
		}
		problems[0].reason = cleanSchemaError(err, url, member, dialectOf(n))
	}
	vs := make(Violations, len(problems))
	for i, p := range problems {
		tokens := ParsePointer(p.at)
		at := append(slices.Clone(path), n.PathOf(tokens)...)
		vs[i] = src.violation(n.Lookup(tokens), at, "is not a valid JSON Schema: "+p.reason)
	}
	return vs
}

// compileTrusted compiles a schema that metaValid accepted under
// trustedSchemaURL, which skips the library's metaschema check, or returns
// nil when it does not compile cleanly; compileNode then compiles it the
// usual way, so that every message is the one the library's own path gives.
func compileTrusted(doc any, member string) *SkillSchema {
	url := trustedSchemaURL + member + ".json"
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	if err := c.AddResource(url, doc); err != nil {
		return nil
	}
	sch, err := c.Compile(url)
	if err != nil || refCycle(sch) != nil {
		return nil
	}
	return &SkillSchema{sch: sch, doc: doc, url: url}
}

// schemaPath returns the path inside the schema document of a compiled
// subschema's location (url#/json/pointer).
func schemaPath(schema *Node, loc, url string) Path {
	_, ptr, _ := strings.Cut(strings.TrimPrefix(loc, url), "#")
	return schema.PathOf(ParsePointer(ptr))
}

// cleanSchemaError drops the compiler's internal URL from its message.
func cleanSchemaError(err error, url, member, dialect string) string {
	var load *jsonschema.LoadURLError
	if errors.As(err, &load) && dialect != "" && load.URL == strings.TrimSuffix(dialect, "#") {
		return fmt.Sprintf(`"$schema" %q is not a JSON Schema draft skillcat knows; use "https://json-schema.org/draft/2020-12/schema" or leave it out`, dialect)
	}
	if errors.As(err, &load) {
		ref := strings.TrimPrefix(load.URL, userSchemaURL)
		return fmt.Sprintf(`a "$ref" to %q leaves the schema; a skill's schemas must be self-contained: put shared parts under "$defs" and refer to them as "#/$defs/NAME"`, ref)
	}
	var missing *jsonschema.JSONPointerNotFoundError
	if errors.As(err, &missing) {
		return fmt.Sprintf(`a "$ref" points to %q, which does not exist in the schema`, strings.TrimPrefix(missing.URL, url))
	}
	msg := err.Error()
	msg = strings.ReplaceAll(msg, `"`+url+`#`, `"`+member+`#`)
	msg = strings.ReplaceAll(msg, url, member)
	return msg
}

// dialectOf returns a schema's "$schema" member, or "".
func dialectOf(n *Node) string {
	if d := n.Get("$schema"); d != nil && d.Kind == String {
		return d.Text
	}
	return ""
}

// MaxSchemaValues bounds the size of a descriptor's inputs or output
// schema, counted in JSON values: compiling grows faster than linearly with
// size, so a hostile source could otherwise stall a build for minutes.
// Real schemas stay far below it.
const MaxSchemaValues = 20000

// countValues counts the JSON values in n, stopping past limit.
func countValues(n *Node, limit int) int {
	count := 1
	for _, m := range n.Members {
		if count > limit {
			return count
		}
		count += countValues(m.Value, limit-count)
	}
	for _, it := range n.Items {
		if count > limit {
			return count
		}
		count += countValues(it, limit-count)
	}
	return count
}

// checkSkillSchemas compiles the descriptor's inputs and output schemas and
// validates each example against them. Members that the descriptor schema
// already rejected are left alone. unique says that no object of root
// repeats a member name (duplicateMembers found none), which the fast path
// (examplesValid) needs.
func checkSkillSchemas(ctx context.Context, src *Source, root *Node, unique bool) Violations {
	if unique && ctx.Err() == nil && examplesValid(root) {
		return nil // certainly what checkSkillSchemasLibrary would find
	}
	return checkSkillSchemasLibrary(ctx, src, root)
}

// checkSkillSchemasLibrary is checkSkillSchemas on the library's path:
// each schema compiled by jsonschema/v6, each example validated by it.
func checkSkillSchemasLibrary(ctx context.Context, src *Source, root *Node) Violations {
	var vs Violations
	b := newBudget(ctx)
	var inputs, output *SkillSchema
	// An inputs whose type the descriptor schema rejected ("array") is not
	// compiled: its examples would only repeat that one mistake.
	if n := root.Get("inputs"); n != nil && n.Kind == Object && objectTyped(n) {
		var v Violations
		inputs, v = compileSkillSchema(src, root, Members("inputs"), "inputs", n.Value())
		vs = append(vs, v...)
	}
	if n := root.Get("output"); n != nil && (n.Kind == Object || n.Kind == Bool) {
		var v Violations
		output, v = compileSkillSchema(src, root, Members("output"), "output", n.Value())
		vs = append(vs, v...)
	}
	eachExample(root, func(i int, part string, n *Node) bool {
		s := inputs
		if part == "output" {
			s = output
		}
		if s != nil {
			vs = append(vs, s.validateNode(b, src, root, n, n.Value(), Members("examples").Item(i).Member(part))...)
		}
		return true
	})
	return vs
}

// eachExample calls fn for each part of an example in the descriptor root
// that the skill's own schemas check, in order: an object example's
// "inputs" when they are an object, then its "output" when it has one; n
// is the part's node. It stops, and returns false, when fn does.
// checkSkillSchemas and examplesValid both walk the examples by it, so the
// fast path checks exactly what the library's path does.
func eachExample(root *Node, fn func(i int, part string, n *Node) bool) bool {
	examples := root.Get("examples")
	if examples == nil || examples.Kind != Array {
		return true
	}
	for i, ex := range examples.Items {
		if ex.Kind != Object {
			continue
		}
		if in := ex.Get("inputs"); in != nil && in.Kind == Object && !fn(i, "inputs", in) {
			return false
		}
		if out := ex.Get("output"); out != nil && !fn(i, "output", out) {
			return false
		}
	}
	return true
}

// objectTyped reports whether a schema node's type is "object" or absent.
func objectTyped(n *Node) bool {
	t := n.Get("type")
	return t == nil || (t.Kind == String && t.Text == "object")
}
