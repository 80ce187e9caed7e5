package openapi

import (
	"encoding/json"
	"fmt"
	"mime"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	skillcat "github.com/skillcat/skillcat"
)

// maxExamples bounds the examples taken from one operation.
const maxExamples = 5

// operation is one operation of a document on its way to a descriptor.
type operation struct {
	doc    *document
	path   string
	method string
	item   *openapi3.PathItem
	op     *openapi3.Operation
	at     string // JSON Pointer of the operation in the document
	warn   func(pointer, reason string)
}

// bodyName is the inputs property that holds the request body, unless a
// parameter has that name; then it is "request_body".
const bodyName = "body"

func (o *operation) skill(opts skillcat.ImportOptions, prefix, version string, prov skillcat.Provider, ids skillcat.UniqueIDs) (*skillcat.SkillDescriptor, error) {
	op := o.op
	d := &skillcat.SkillDescriptor{
		Schema:         skillcat.SchemaBaseURL + skillcat.DescriptorSchemaFile,
		Protocol:       skillcat.CurrentProtocol(),
		Version:        version,
		CapabilityType: skillcat.API,
		Provider:       prov,
	}
	local := op.OperationID
	if local == "" {
		local = o.method + " " + o.path
	}
	slug := skillcat.Slug(local, 100)
	if slug == "" {
		slug = skillcat.Slug(o.method+" "+o.path, 100)
	}
	d.ID = ids.Make(prefix + "." + slug)
	d.Name = nameFor(op.Summary, op.OperationID, o.method, o.path)
	d.Description = o.description()

	servers := op.Servers
	at := o.at + "/servers"
	if servers == nil || len(*servers) == 0 {
		s, a := o.item.Servers, "/paths/"+escape(o.path)+"/servers"
		if len(s) == 0 {
			s, a = o.doc.t.Servers, "/servers"
		}
		servers, at = &s, a
	}
	quiet := func(string, string) {}
	if at != "/servers" {
		quiet = o.warn
	}
	base, _ := o.doc.server(*servers, opts, at, quiet)
	d.Endpoint = skillcat.Endpoint{URL: base + escapePath(o.path, true), Method: o.method}

	sec := o.doc.t.Security
	secAt := "/security"
	if op.Security != nil {
		sec, secAt = *op.Security, o.at+"/security"
	}
	auth, required := authOf(o.doc, sec, base, secAt, o.warn)
	d.Auth = auth
	d.Access = opts.Access
	switch {
	case d.Access == "" && required:
		d.Access = skillcat.Restricted
	case d.Access == "":
		d.Access = skillcat.Public
	case d.Access == skillcat.Restricted && auth.Type == skillcat.AuthNone:
		o.warn(o.at, "access public instead of restricted: the operation needs no auth, and restricted access requires some")
		d.Access = skillcat.Public
	}

	seen := map[string]bool{}
	for _, t := range op.Tags {
		tag := skillcat.TagOf(t)
		if tag == "" {
			o.warn(o.at+"/tags", skillcat.TagDropped(t))
		}
		if tag != "" && !seen[tag] {
			if len(d.Tags) == 20 {
				o.warn(o.at+"/tags", "tags after the 20th dropped")
				break
			}
			seen[tag] = true
			d.Tags = append(d.Tags, tag)
		}
	}
	if op.ExternalDocs != nil {
		d.DocumentationURL = absURL(op.ExternalDocs.URL, base)
	}
	if d.DocumentationURL == "" && o.doc.t.ExternalDocs != nil {
		d.DocumentationURL = absURL(o.doc.t.ExternalDocs.URL, base)
	}
	if len(op.Callbacks) > 0 {
		o.warn(o.at+"/callbacks", fmt.Sprintf("%d callback(s) dropped: a descriptor has no place for requests the API sends back", len(op.Callbacks)))
	}

	inputs, examples := o.inputs()
	output, outExample := o.output()
	if outExample != nil {
		for i := range examples {
			examples[i].Output = outExample
		}
	}
	d.Examples = examples
	return o.finish(d, inputs, output)
}

// maxName is the longest summary taken as a skill's name as it is; a longer
// one is a sentence, which the description keeps.
const maxName = 60

// nameFor chooses a skill's name: the operation's summary when it reads as
// a name (short, without a closing period), else one made of the
// operationId, else the summary cut short, else the method and path.
func nameFor(summary, operationID, method, p string) string {
	s := skillcat.Label(summary, 120)
	if t := strings.TrimSuffix(s, "."); t != "" && !strings.Contains(t, ". ") && utf8.RuneCountInString(t) <= maxName {
		return t
	}
	if operationID != "" || s == "" {
		return skillcat.Label(nameOf(operationID, method, p), 120)
	}
	return skillcat.Label(strings.TrimSuffix(s, "."), maxName)
}

// nameOf makes a name of an operationId ("listPets" → "List pets"), or of
// the method and path when there is none ("GET /pets/{id}").
func nameOf(operationID, method, p string) string {
	if s := skillcat.Slug(operationID, 120); s != "" {
		words := strings.ReplaceAll(s, "-", " ")
		return strings.ToUpper(words[:1]) + words[1:]
	}
	return method + " " + p
}

// description is the operation's summary as the first paragraph (when it
// has a description too), the description, the deprecation, and a line
// naming the API and the operation.
func (o *operation) description() string {
	op := o.op
	var parts []string
	summary := strings.TrimSpace(op.Summary)
	desc := strings.TrimSpace(op.Description)
	if summary != "" && !strings.HasPrefix(desc, summary) {
		parts = append(parts, summary)
	}
	if desc != "" {
		parts = append(parts, desc)
	}
	if op.Deprecated {
		parts = append(parts, "**Deprecated:** the API marks this operation as deprecated.")
	}
	line := fmt.Sprintf("`%s %s`", o.method, strings.ReplaceAll(o.path, "`", "'"))
	if o.doc.t.Info != nil {
		if title := strings.Join(strings.Fields(o.doc.t.Info.Title), " "); title != "" {
			line += " of the " + title
			if !strings.HasSuffix(strings.ToLower(title), "api") {
				line += " API"
			}
		}
	}
	parts = append(parts, "Operation "+line+".")
	text := strings.Join(parts, "\n\n")
	if r := []rune(text); len(r) > 20000 {
		o.warn(o.at+"/description", "description cut to 20,000 characters")
		text = string(r[:19999]) + "…"
	}
	return text
}

// param is one parameter of an operation with the inputs property it
// becomes.
type param struct {
	p    *openapi3.Parameter
	prop string
	at   string
}

// params returns the operation's parameters merged with its path item's
// (the operation's win), cookies and the headers OpenAPI ignores dropped.
func (o *operation) params() []param {
	var out []param
	index := map[string]int{}
	add := func(list openapi3.Parameters, at string) {
		for i, ref := range list {
			if ref == nil || ref.Value == nil {
				continue
			}
			p := ref.Value
			pat := fmt.Sprintf("%s/parameters/%d", at, i)
			in := strings.ToLower(p.In)
			switch in {
			case "path", "query", "header":
			case "cookie":
				o.warn(pat, fmt.Sprintf("cookie parameter %q dropped: inputs carry path, query and header parameters and the body", p.Name))
				continue
			default:
				o.warn(pat, fmt.Sprintf("parameter %q dropped: \"in\" is %q, not path, query, header or cookie", p.Name, p.In))
				continue
			}
			if p.Name == "" {
				o.warn(pat, "parameter without a name dropped")
				continue
			}
			if in == "header" {
				switch strings.ToLower(p.Name) {
				case "accept", "content-type", "authorization":
					continue // OpenAPI says these are ignored
				}
			}
			key := in + " " + p.Name
			if i, ok := index[key]; ok {
				out[i] = param{p: p, at: pat}
				continue
			}
			index[key] = len(out)
			out = append(out, param{p: p, at: pat})
		}
	}
	add(o.item.Parameters, "/paths/"+escape(o.path))
	add(o.op.Parameters, o.at)
	out = append(out, o.undeclared(index)...)
	used := map[string]bool{}
	for i := range out {
		name := out[i].p.Name
		if used[name] {
			name = strings.ToLower(out[i].p.In) + "_" + name
		}
		for n := 2; used[name]; n++ {
			name = fmt.Sprintf("%s_%d", out[i].p.Name, n)
		}
		used[name] = true
		out[i].prop = name
	}
	return out
}

// undeclared returns a required string parameter, with a warning, for
// each {name} of the path template that no path parameter declares (index
// holds the declared ones, "path name"): without it the endpoint's URL
// would hold a %7Bname%7D that no input fills.
func (o *operation) undeclared(index map[string]int) []param {
	var out []param
	for rest := o.path; ; {
		_, after, ok := strings.Cut(rest, "{")
		if !ok {
			return out
		}
		name, tail, ok := strings.Cut(after, "}")
		if !ok {
			return out
		}
		rest = tail
		if _, declared := index["path "+name]; declared || name == "" {
			continue
		}
		index["path "+name] = -1
		o.warn(o.at, fmt.Sprintf("path parameter %q of %s is not declared in parameters: it is a required string input; declare it to give it a schema and a description", name, o.path))
		out = append(out, param{p: &openapi3.Parameter{Name: name, In: "path", Required: true,
			Schema: openapi3.NewSchemaRef("", openapi3.NewStringSchema())}, at: o.at})
	}
}

// inputs builds the inputs schema and the examples of the inputs.
func (o *operation) inputs() (map[string]any, []skillcat.Example) {
	set := newSchemaSet(o.doc, "inputs", o.schemaWarn)
	props := map[string]any{}
	var required []any
	params := o.params()
	paramValues := map[string]any{}
	missing := false
	for _, p := range params {
		var sch any
		switch {
		case p.p.Schema != nil:
			sch = set.ref(p.p.Schema, skillcat.Members("inputs", "properties", p.prop))
		case len(p.p.Content) > 0:
			_, mt := pickMedia(p.p.Content)
			sch = set.ref(mt.Schema, skillcat.Members("inputs", "properties", p.prop))
		default:
			sch = map[string]any{}
		}
		where := map[string]string{"path": "path", "query": "query", "header": "header"}[strings.ToLower(p.p.In)]
		if m, ok := sch.(map[string]any); ok {
			{
				m = copyWithout(m, "")
				text := strings.TrimSpace(p.p.Description)
				note := fmt.Sprintf("Sent as the %s parameter %q.", where, p.p.Name)
				if text != "" {
					text += "\n\n" + note
				} else {
					text = note
				}
				m["description"] = text
				if p.p.Deprecated {
					m["deprecated"] = true
				}
				sch = m
			}
		}
		props[p.prop] = sch
		req := p.p.Required || strings.EqualFold(p.p.In, "path")
		if req {
			required = append(required, p.prop)
		}
		if v, ok := exampleOf(p.p.Example, p.p.Examples, p.p.Schema); ok {
			paramValues[p.prop] = v
		} else if req {
			missing = true
		}
	}
	var bodies []namedExample
	if rb := o.op.RequestBody; rb != nil && rb.Value != nil {
		name := bodyName
		if _, taken := props[name]; taken {
			name = "request_body"
		}
		mtName, mt := pickMedia(rb.Value.Content)
		var sch any = map[string]any{}
		if mt != nil {
			sch = set.ref(mt.Schema, skillcat.Members("inputs", "properties", name))
			if !jsonMedia(mtName) && !formMedia(mtName) {
				sch = map[string]any{"type": "string", "contentMediaType": mtName}
			}
			if !jsonMedia(mtName) {
				o.warn(o.at+"/requestBody/content/"+escape(mtName), fmt.Sprintf(
					"the API takes its body as %s, but the protocol's HTTP binding sends the invocation as JSON: the endpoint must also accept JSON, or sit behind an adapter that converts it", mtName))
			}
			bodies = mediaExamples(mt)
		}
		if m, ok := sch.(map[string]any); ok {
			{
				m = copyWithout(m, "")
				text := strings.TrimSpace(rb.Value.Description)
				note := "The request body"
				if mtName != "" {
					note += " (" + mtName + ")"
				}
				note += "."
				if text != "" {
					text += "\n\n" + note
				} else {
					text = note
				}
				m["description"] = text
				sch = m
			}
		}
		props[name] = sch
		if rb.Value.Required {
			required = append(required, name)
			if len(bodies) == 0 {
				missing = true
			}
		}
		for i := range bodies {
			bodies[i].prop = name
		}
	}
	schema := map[string]any{"type": "object", "properties": props}
	if len(props) == 0 {
		schema = map[string]any{"type": "object", "additionalProperties": false}
	}
	if len(required) > 0 {
		schema["required"] = required
	}
	schema = set.root(schema)

	var examples []skillcat.Example
	if missing {
		return schema, nil
	}
	if len(bodies) == 0 && len(paramValues) > 0 {
		bodies = []namedExample{{title: "Example"}}
	}
	for i, b := range bodies {
		if i == maxExamples {
			break
		}
		in := map[string]any{}
		for k, v := range paramValues {
			in[k] = v
		}
		if b.prop != "" {
			in[b.prop] = b.value
		}
		raw, err := marshal(in)
		if err != nil {
			continue
		}
		examples = append(examples, skillcat.Example{Title: skillcat.Label(b.title, 200), Inputs: raw})
	}
	return schema, examples
}

// output builds the output schema from the first 2xx response (else the
// default response) and an example of it.
func (o *operation) output() (any, json.RawMessage) {
	set := newSchemaSet(o.doc, "output", o.schemaWarn)
	resps := o.op.Responses
	if resps == nil {
		return map[string]any{}, nil
	}
	var codes []string
	for code := range resps.Map() {
		if len(code) == 3 && code[0] == '2' {
			codes = append(codes, code)
		}
	}
	sort.Slice(codes, func(i, j int) bool {
		return strings.ToUpper(codes[i]) < strings.ToUpper(codes[j]) // 200 < 201 < 2XX
	})
	if len(codes) == 0 && resps.Value("default") != nil {
		codes = []string{"default"}
	}
	if len(codes) == 0 {
		return map[string]any{}, nil
	}
	r := resps.Value(codes[0])
	if r == nil || r.Value == nil {
		return map[string]any{}, nil
	}
	if len(r.Value.Content) == 0 {
		desc := "The operation returns no content."
		if codes[0] == "default" {
			desc = "The document describes no successful response."
		}
		return map[string]any{"description": desc}, nil
	}
	mtName, mt := pickMedia(r.Value.Content)
	if !jsonMedia(mtName) {
		return map[string]any{"type": "string", "contentMediaType": mtName}, nil
	}
	sch := set.ref(mt.Schema, skillcat.Members("output"))
	var example json.RawMessage
	if ex := mediaExamples(mt); len(ex) > 0 {
		example, _ = marshal(ex[0].value)
	}
	if m, ok := sch.(map[string]any); ok {
		return set.root(m), example
	}
	if len(set.defs) > 0 {
		return set.root(map[string]any{"allOf": []any{sch}}), example
	}
	return sch, example
}

// schemaWarn is how a schema set of this operation warns: at the
// operation, naming the place in the skill.
func (o *operation) schemaWarn(at skillcat.Path, reason string) {
	o.warn(o.at, fmt.Sprintf("%s: %s", at.Field(), reason))
}

// pickMedia chooses the media type of a content map: application/json,
// then another JSON type, then a form, then */*, then the first by name.
func pickMedia(c openapi3.Content) (string, *openapi3.MediaType) {
	if len(c) == 0 {
		return "", nil
	}
	names := sortedKeys(c)
	rank := func(n string) int {
		mt, _, err := mime.ParseMediaType(n)
		if err != nil {
			mt = strings.ToLower(n)
		}
		switch {
		case mt == "application/json":
			return 0
		case jsonMedia(mt):
			return 1
		case formMedia(mt):
			return 2
		case mt == "*/*":
			return 3
		}
		return 4
	}
	sort.SliceStable(names, func(i, j int) bool { return rank(names[i]) < rank(names[j]) })
	for _, n := range names {
		if c[n] != nil {
			return n, c[n]
		}
	}
	return "", nil
}

func jsonMedia(n string) bool {
	mt, _, err := mime.ParseMediaType(n)
	if err != nil {
		mt = strings.ToLower(n)
	}
	return mt == "application/json" || strings.HasSuffix(mt, "+json") || mt == "*/*" || mt == "text/json" || strings.HasSuffix(mt, "/json")
}

func formMedia(n string) bool {
	mt, _, _ := mime.ParseMediaType(n)
	return mt == "application/x-www-form-urlencoded" || mt == "multipart/form-data"
}

// namedExample is an example value with a title.
type namedExample struct {
	title string
	value any
	prop  string
}

// mediaExamples returns a media type's examples: its named examples by
// name, or its one example, or its schema's example.
func mediaExamples(mt *openapi3.MediaType) []namedExample {
	if mt == nil {
		return nil
	}
	var out []namedExample
	for _, name := range sortedKeys(mt.Examples) {
		ex := mt.Examples[name]
		if ex == nil || ex.Value == nil || ex.Value.Value == nil {
			continue
		}
		title := strings.TrimSpace(ex.Value.Summary)
		if title == "" {
			title = name
		}
		out = append(out, namedExample{title: title, value: ex.Value.Value})
	}
	if len(out) > 0 {
		return out
	}
	if mt.Example != nil {
		return []namedExample{{title: "Example", value: mt.Example}}
	}
	if mt.Schema != nil && mt.Schema.Value != nil && mt.Schema.Value.Example != nil {
		return []namedExample{{title: "Example", value: mt.Schema.Value.Example}}
	}
	return nil
}

// exampleOf returns a parameter's example value: its example, its first
// named example, or its schema's example.
func exampleOf(example any, examples openapi3.Examples, schema *openapi3.SchemaRef) (any, bool) {
	if example != nil {
		return example, true
	}
	for _, name := range sortedKeys(examples) {
		if ex := examples[name]; ex != nil && ex.Value != nil && ex.Value.Value != nil {
			return ex.Value.Value, true
		}
	}
	if schema != nil && schema.Value != nil {
		if schema.Value.Example != nil {
			return schema.Value.Example, true
		}
		if len(schema.Value.Examples) > 0 {
			return schema.Value.Examples[0], true
		}
	}
	return nil, false
}

// finish sets the schemas and repairs what the protocol's own validation
// rejects inside them: a keyword that does not compile is dropped, an
// example that does not validate is dropped, each with a warning. Any
// other violation means the mapping is wrong, and is an error.
func (o *operation) finish(d *skillcat.SkillDescriptor, inputs map[string]any, output any) (*skillcat.SkillDescriptor, error) {
	trees := map[string]any{"inputs": inputs, "output": output}
	for round := 0; ; round++ {
		var err error
		if d.Inputs, err = marshal(trees["inputs"]); err != nil {
			return nil, fileError(o.doc.file, 0, 0, fmt.Sprintf("%s %s: inputs: %v", o.method, o.path, err))
		}
		if d.Output, err = marshal(trees["output"]); err != nil {
			return nil, fileError(o.doc.file, 0, 0, fmt.Sprintf("%s %s: output: %v", o.method, o.path, err))
		}
		data, err := d.Encode()
		if err != nil {
			return nil, fileError(o.doc.file, 0, 0, fmt.Sprintf("%s %s: %v", o.method, o.path, err))
		}
		_, vs := skillcat.ParseDescriptor(d.ID+".json", data)
		if !vs.HasErrors() {
			return d, nil
		}
		if round == 50 {
			return nil, fileError(o.doc.file, 0, 0, fmt.Sprintf("operation %s %s cannot be mapped: %s", o.method, o.path, vs[0].Reason))
		}
		dropped := map[int]bool{}
		for _, v := range vs {
			if v.Severity == skillcat.SeverityWarning {
				continue
			}
			tokens := strings.Split(strings.TrimPrefix(v.Pointer, "/"), "/")
			switch {
			case len(tokens) >= 2 && tokens[0] == "examples":
				i, _ := strconv.Atoi(tokens[1])
				if !dropped[i] {
					dropped[i] = true
					o.warn(o.at, fmt.Sprintf("example %q dropped: %s: %s", d.Examples[i].Title, v.Field, v.Reason))
				}
			case len(tokens) >= 1 && (tokens[0] == "inputs" || tokens[0] == "output"):
				if !remove(trees, tokens) {
					if tokens[0] == "inputs" {
						trees["inputs"] = map[string]any{"type": "object"}
					} else {
						trees["output"] = map[string]any{}
					}
					o.warn(o.at, fmt.Sprintf("%s schema replaced by an open one: %s", tokens[0], v.Reason))
				} else {
					o.warn(o.at, fmt.Sprintf("%s dropped: %s", v.Field, v.Reason))
				}
			default:
				return nil, fileError(o.doc.file, 0, 0, fmt.Sprintf("operation %s %s cannot be mapped: %s: %s", o.method, o.path, v.Field, v.Reason))
			}
		}
		if len(dropped) > 0 {
			var keep []skillcat.Example
			for i, ex := range d.Examples {
				if !dropped[i] {
					keep = append(keep, ex)
				}
			}
			d.Examples = keep
		}
	}
}

// remove deletes the value at the JSON Pointer tokens from trees, and
// reports whether there was one to delete below the root.
func remove(trees map[string]any, tokens []string) bool {
	if len(tokens) < 2 {
		return false
	}
	cur := trees[tokens[0]]
	for i, tok := range tokens[1:] {
		tok = unescape(tok)
		last := i == len(tokens)-2
		switch c := cur.(type) {
		case map[string]any:
			if last {
				if _, ok := c[tok]; !ok {
					return false
				}
				delete(c, tok)
				return true
			}
			cur = c[tok]
		case []any:
			n, err := strconv.Atoi(tok)
			if err != nil || n < 0 || n >= len(c) {
				return false
			}
			if last {
				c[n] = map[string]any{}
				return true
			}
			cur = c[n]
		default:
			return false
		}
	}
	return false
}

// marshal writes v as compact JSON the way the protocol package writes
// descriptors: keys sorted, and strings escaped only where JSON requires
// ("<" and U+2028 stay as they are), so that a source read back gives the
// same bytes.
func marshal(v any) (json.RawMessage, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	n, err := skillcat.ParseJSON(data)
	if err != nil {
		return nil, err
	}
	return n.AppendJSON(nil), nil
}
