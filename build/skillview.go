package build

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	skillcat "github.com/skillcat/skillcat"
)

// skillView is what the skill page template shows of one skill.
type skillView struct {
	D           *skillcat.SkillDescriptor
	Summary     string
	Description template.HTML // "" while lazy
	// lazy says that Description and the examples' Request and Response
	// are not made (skillHTML writes them from the description's source
	// and the examples' JSON straight into the page) until fill makes
	// them for a template.
	lazy        bool
	punct       string // the class of JSON punctuation (punctClass)
	description string // the description's Markdown
	Method      string
	Inputs      schemaView
	Output      schemaView
	AccessNote  string
	Auth        authView
	Examples    []exampleView
	Digest      string
}

// schemaView is an inputs or output schema: its members flattened into
// table rows, what the root itself is, and the schema as highlighted JSON.
type schemaView struct {
	Rows        []schemaRow
	RootType    string        // "object", "array of object", "any JSON value", …
	Description string        // the root's description or title
	Closed      bool          // additionalProperties: false at the root
	Note        string        // for schemas that accept anything or nothing
	JSON        template.HTML // "" while indented waits to be highlighted
	// indented is the schema's JSON text (valid, without white space
	// around it) when JSON is left for skillHTML to highlight straight
	// into the page (highlightIndented), or for fill to make.
	indented string
	punct    string // the class of JSON punctuation (punctClass)
}

// fill makes v.JSON from v.indented.
func (v *schemaView) fill() {
	if v.JSON == "" && v.indented != "" {
		v.JSON = highlightIndented([]byte(v.indented), v.punct)
	}
}

type authView struct {
	Type    string
	Summary string
	Fields  []authField
	Scopes  [][2]string // scope, description
	Text    string      // custom instructions
}

type authField struct {
	Label, Value string
}

type exampleView struct {
	ID       string // element id: example-1, example-2, …
	Title    string
	Request  template.HTML // highlighted InvocationRequest JSON ("" while lazy)
	Response template.HTML // highlighted InvocationResponse JSON, or "" (also while lazy)
	request  string        // the InvocationRequest JSON
	response string        // the InvocationResponse JSON, or ""
}

// fill makes what v left lazy: the description's HTML and the examples'
// highlighted JSON, which a template reads.
func (v *skillView) fill() error {
	if !v.lazy {
		return nil
	}
	desc, err := markdownHTML(v.description)
	if err != nil {
		return fmt.Errorf("render description: %w", err)
	}
	v.Description = desc
	for i := range v.Examples {
		ex := &v.Examples[i]
		ex.Request = highlightJSONText(ex.request, v.punct)
		if ex.response != "" {
			ex.Response = highlightJSONText(ex.response, v.punct)
		}
	}
	v.Inputs.fill()
	v.Output.fill()
	v.lazy = false
	return nil
}

// schemaRow is one member of an inputs or output schema, flattened: Depth
// says how deep it is nested and Parent is the path of its parent with a
// trailing dot ("address." for address.city).
type schemaRow struct {
	Name        string
	Parent      string
	Depth       int
	Type        string
	Required    bool
	Default     string
	Enum        []string
	Description string
	Constraints []constraint
}

// constraint is one validation rule in words, with the value shown as code
// where it is one ("matches" + a pattern).
type constraint struct {
	Text, Code string
}

// exampleTimes are the fixed timestamps of example responses, so pages do
// not change between builds.
const (
	exampleCreated   = "2026-01-01T12:00:00Z"
	exampleStarted   = "2026-01-01T12:00:00.120Z"
	exampleCompleted = "2026-01-01T12:00:01.480Z"
)

// skillPage renders the page of a skill.
func (p *pages) skillPage(s *publishedSkill) ([]byte, error) {
	pg, err := p.skillPageData(s)
	if err != nil {
		return nil, err
	}
	return p.execute("skill.html", pg)
}

// skillPageData is what the skill page template gets for s.
func (p *pages) skillPageData(s *publishedSkill) (*page, error) {
	d := printableDescriptor(s.Descriptor)
	v := &skillView{
		D:           d,
		Summary:     skillcat.Printable(s.Summary),
		lazy:        true,
		punct:       p.views.punct,
		description: d.Description,
		Method:      d.Endpoint.EffectiveMethod(),
		Inputs:      p.views.of(d.Inputs, s.Tree.Get("inputs")),
		Output:      p.views.of(d.Output, s.Tree.Get("output")),
		AccessNote:  accessNote(d.Access, d.Auth.Type),
		Auth:        authOf(d.Auth),
		Digest:      s.Digest,
	}
	for i, ex := range d.Examples {
		ev, err := exampleOf(d, ex, i)
		if err != nil {
			return nil, err
		}
		v.Examples = append(v.Examples, ev)
	}
	if len(d.Examples) == 0 {
		req := skillcat.InvocationRequest{
			Caller:   skillcat.Caller{ID: "my-agent", Type: skillcat.CallerAgent},
			SkillID:  d.ID,
			Inputs:   json.RawMessage("{}"),
			Protocol: &skillcat.ProtocolVersion{Version: skillcat.CurrentVersion},
		}
		data, err := req.Encode()
		if err != nil {
			return nil, err
		}
		v.Examples = append(v.Examples, exampleView{ID: "example-1", Title: "Request", request: jsonText(data)})
	}
	if !p.goSkill {
		if err := v.fill(); err != nil {
			return nil, err
		}
	}
	pg := p.newPage(p.routes.skillPage(d.ID), d.Name, nil)
	pg.Counts, pg.Total = nil, 0
	pg.Type = string(d.CapabilityType)
	pg.Kind = "skill"
	pg.Skill = v
	return pg, nil
}

// highlightJSON returns JSON text as highlighted HTML (no trailing
// newline), its punctuation of class punct.
func highlightJSON(data []byte, punct string) template.HTML {
	return highlightJSONText(jsonText(data), punct)
}

// jsonText is encoded JSON without its trailing newline.
func jsonText(data []byte) string { return strings.TrimRight(string(data), "\n") }

// exampleOf builds a ready InvocationRequest for an example and, when it
// shows an output, the matching InvocationResponse.
func exampleOf(d *skillcat.SkillDescriptor, ex skillcat.Example, i int) (exampleView, error) {
	id := "example-" + strconv.Itoa(i+1)
	req := skillcat.InvocationRequest{
		Caller:    skillcat.Caller{ID: "my-agent", Type: skillcat.CallerAgent},
		SkillID:   d.ID,
		Inputs:    ex.Inputs,
		Protocol:  &skillcat.ProtocolVersion{Version: skillcat.CurrentVersion},
		RequestID: id,
	}
	reqJSON, err := req.Encode()
	if err != nil {
		return exampleView{}, fmt.Errorf("example %d request: %w", i, err)
	}
	title := ex.Title
	if strings.TrimSpace(title) == "" {
		title = fmt.Sprintf("Example %d", i+1)
	}
	ev := exampleView{ID: id, Title: title, request: jsonText(reqJSON)}
	if ex.Output != nil {
		resp := skillcat.InvocationResponse{
			ExecutionID: "exec-" + id,
			Status:      skillcat.StatusSucceeded,
			SkillID:     d.ID,
			Timestamps:  skillcat.Timestamps{CreatedAt: exampleCreated, StartedAt: exampleStarted, CompletedAt: exampleCompleted},
			Output:      ex.Output,
		}
		respJSON, err := resp.Encode()
		if err != nil {
			return exampleView{}, fmt.Errorf("example %d response: %w", i, err)
		}
		ev.response = jsonText(respJSON)
	}
	return ev, nil
}

func accessNote(a skillcat.Access, auth skillcat.AuthType) string {
	switch {
	case a == skillcat.Public && auth == skillcat.AuthNone:
		return "Public: anyone may discover and call this skill, no credentials needed."
	case a == skillcat.Public:
		return "Public: anyone may discover and call this skill with their own credentials, as described under Authentication."
	case a == skillcat.Restricted:
		return "Restricted: listed for discovery, but only callers the provider has granted access can use it; ask the provider for credentials."
	}
	return ""
}

func authOf(a skillcat.Auth) authView {
	v := authView{Type: string(a.Type)}
	switch a.Type {
	case skillcat.AuthAPIKey:
		if a.In == "query" {
			v.Summary = "An API key, sent as a query parameter."
			v.Fields = []authField{{"Query parameter", a.Name}}
		} else {
			v.Summary = "An API key, sent in a request header."
			v.Fields = []authField{{"Header", a.Name}}
		}
	case skillcat.AuthOAuth2:
		v.Summary = "OAuth 2.0: get an access token and send it as a Bearer token."
		if a.AuthorizationURL != "" {
			v.Fields = append(v.Fields, authField{"Authorization URL", a.AuthorizationURL})
		}
		v.Fields = append(v.Fields, authField{"Token URL", a.TokenURL})
		for _, name := range sortedKeys(a.Scopes) {
			v.Scopes = append(v.Scopes, [2]string{name, a.Scopes[name]})
		}
	case skillcat.AuthCustom:
		v.Summary = "As the provider describes:"
		v.Text = a.Instructions
	case skillcat.AuthNone:
		v.Summary = "None: no credentials needed."
	}
	return v
}

// indentJSON is raw as json.Indent formats it for a page.
func indentJSON(raw []byte) ([]byte, error) {
	var pretty bytes.Buffer
	err := json.Indent(&pretty, raw, "", "  ")
	return pretty.Bytes(), err
}

// maxSchemaRows bounds a schema table; deeper detail is in the descriptor.
const maxSchemaRows = 200

// maxSchemaDepth bounds how deep a schema table follows nested members and
// local references (which may be recursive).
const maxSchemaDepth = 8

// schemaViews remembers the views of the schemas a build has shown:
// providers repeat schemas across their skills (the same output, shared
// inputs), and a schema's view is a function of its bytes. It holds at
// most maxSchemaViews views of schemas up to maxViewedSchema bytes, and
// starts again empty when full. The views it hands out are shared: pages
// only read them.
type schemaViews struct {
	punct string // the class of JSON punctuation (punctClass)
	mu    sync.Mutex
	m     map[string]schemaView
}

const (
	maxSchemaViews  = 256
	maxViewedSchema = 4096
)

// of is schemaViewOf(raw, n, c.punct), made once per distinct raw while
// it is remembered.
func (c *schemaViews) of(raw json.RawMessage, n *skillcat.Node) schemaView {
	if len(raw) > maxViewedSchema {
		return schemaViewOf(raw, n, c.punct)
	}
	c.mu.Lock()
	v, ok := c.m[string(raw)]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = schemaViewOf(raw, n, c.punct)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxSchemaViews {
		c.m = make(map[string]schemaView, maxSchemaViews)
	}
	c.m[string(raw)] = v
	c.mu.Unlock()
	return v
}

// schemaViewOf describes an inputs or output schema for the page. root,
// when not nil, is the schema's tree as the descriptor was decoded, raw
// its AppendJSON: valid JSON (FuzzParseJSON holds AppendJSON to it), and
// the same values as raw parsed again, which spares parsing it. punct is
// the class of JSON punctuation (punctClass).
func schemaViewOf(raw json.RawMessage, root *skillcat.Node, punct string) schemaView {
	v := schemaView{punct: punct}
	if n := len(raw); n > 0 && strings.IndexByte(" \t\r\n", raw[n-1]) < 0 && (root != nil || json.Valid(raw)) {
		v.indented = string(raw)
	} else if pretty, err := indentJSON(raw); err == nil {
		v.JSON = highlightJSON(pretty, punct)
	}
	if root == nil {
		var err error
		if root, err = skillcat.ParseJSON(raw); err != nil {
			return v
		}
	}
	switch {
	case root.Kind == skillcat.Bool && root.Text == "true", root.Kind == skillcat.Object && len(root.Members) == 0:
		v.Note = "Any JSON value."
		return v
	case root.Kind == skillcat.Bool:
		v.Note = "Nothing: this schema accepts no value."
		return v
	case root.Kind != skillcat.Object:
		return v
	}
	r := schemaWalker{root: root}
	v.RootType = r.typeOf(root, 0)
	if v.RootType == "" {
		v.RootType = "any JSON value"
	}
	v.Description = textOf(r.resolve(root), "description", "title")
	if ap := root.Get("additionalProperties"); ap != nil && ap.Kind == skillcat.Bool && ap.Text == "false" {
		v.Closed = true
	}
	r.walk(root, "", 0)
	v.Rows = r.rows
	return v
}

// schemaWalker flattens a schema's members into rows, following local
// references ("#/$defs/…") into the same document.
type schemaWalker struct {
	root *skillcat.Node
	rows []schemaRow
	// steps bounds the work of naming types: a schema whose oneOf branches
	// refer back to it would otherwise take exponential time.
	steps int
}

// maxTypeSteps is how many schemas typeOf may visit for one page.
const maxTypeSteps = 20000

// resolve follows a local $ref (a few hops at most); anything else is
// returned as is.
func (w *schemaWalker) resolve(sch *skillcat.Node) *skillcat.Node {
	for hops := 0; hops < 4 && sch != nil && sch.Kind == skillcat.Object; hops++ {
		ref := sch.Get("$ref")
		if ref == nil || ref.Kind != skillcat.String || !strings.HasPrefix(ref.Text, "#") {
			return sch
		}
		target := w.root.Lookup(skillcat.ParsePointer(ref.Text[1:]))
		if target == nil {
			return sch
		}
		sch = target
	}
	return sch
}

// walk adds a row for each member of an object schema (or of an array's
// item schema), then the members nested in it.
func (w *schemaWalker) walk(sch *skillcat.Node, prefix string, depth int) {
	sch = w.resolve(sch)
	if depth > maxSchemaDepth || sch == nil || sch.Kind != skillcat.Object {
		return
	}
	props := sch.Get("properties")
	if props == nil || props.Kind != skillcat.Object {
		if items := sch.Get("items"); items != nil {
			w.walk(items, prefix+"[]", depth)
		}
		return
	}
	required := requiredNames(sch.Get("required"))
	for _, m := range props.Members {
		if len(w.rows) >= maxSchemaRows {
			return
		}
		parent := ""
		if prefix != "" {
			parent = prefix + "."
		}
		w.rows = append(w.rows, w.rowOf(m.Value, m.Name, parent, depth, required(m.Name)))
		w.walk(m.Value, parent+m.Name, depth+1)
	}
}

// requiredNames reports whether a name is among the items of a schema's
// "required" (nil for none): a scan of a short list, a set for a long one.
func requiredNames(req *skillcat.Node) func(string) bool {
	var items []*skillcat.Node
	if req != nil {
		items = req.Items
	}
	if len(items) <= 16 {
		return func(name string) bool {
			for _, it := range items {
				if it.Text == name {
					return true
				}
			}
			return false
		}
	}
	set := make(map[string]bool, len(items))
	for _, it := range items {
		set[it.Text] = true
	}
	return func(name string) bool { return set[name] }
}

// typeOf names a schema's type in words: "string (date-time)", "array of
// integer", "string | null", the branches of oneOf/anyOf, or a reference's
// target.
func (w *schemaWalker) typeOf(sch *skillcat.Node, depth int) string {
	if w.steps++; w.steps > maxTypeSteps {
		return ""
	}
	if sch != nil && sch.Kind == skillcat.Bool {
		if sch.Text == "true" {
			return "any"
		}
		return "nothing"
	}
	ref := sch.Get("$ref")
	target := w.resolve(sch)
	if target != sch && depth < maxSchemaDepth {
		if t := w.typeOf(target, depth+1); t != "" {
			return t
		}
	}
	if target == nil || target.Kind != skillcat.Object {
		return ""
	}
	sch = target
	var t string
	if n := sch.Get("type"); n != nil {
		switch n.Kind {
		case skillcat.String:
			t = n.Text
		case skillcat.Array:
			var ts []string
			for _, it := range n.Items {
				ts = append(ts, it.Text)
			}
			t = strings.Join(ts, " | ")
		}
	}
	if t == "" {
		for _, comb := range []string{"oneOf", "anyOf"} {
			if n := sch.Get(comb); n != nil && n.Kind == skillcat.Array && depth < maxSchemaDepth {
				var ts []string
				for _, it := range n.Items {
					if bt := w.typeOf(it, depth+1); bt != "" && !slices.Contains(ts, bt) {
						ts = append(ts, bt)
					}
				}
				t = strings.Join(ts, " | ")
				break
			}
		}
	}
	if t == "" {
		if c := sch.Get("const"); c != nil {
			t = c.Kind.String()
		} else if e := sch.Get("enum"); e != nil && e.Kind == skillcat.Array && len(e.Items) > 0 {
			t = e.Items[0].Kind.String()
		}
	}
	if t == "array" && depth < maxSchemaDepth {
		if it := sch.Get("items"); it != nil {
			if it := w.typeOf(it, depth+1); it != "" && it != "any" {
				t = "array of " + it
			}
		}
	}
	if f := sch.Get("format"); f != nil && f.Kind == skillcat.String {
		t += " (" + f.Text + ")"
	}
	if t == "" && ref != nil && ref.Kind == skillcat.String {
		t = ref.Text
	}
	return strings.TrimSpace(t)
}

// textOf returns the first of the named string members of sch, to be
// shown as HTML text (so skillcat.Printable).
func textOf(sch *skillcat.Node, names ...string) string {
	for _, name := range names {
		if n := sch.Get(name); n != nil && n.Kind == skillcat.String {
			return skillcat.Printable(n.Text)
		}
	}
	return ""
}

func (w *schemaWalker) rowOf(sch *skillcat.Node, name, parent string, depth int, required bool) schemaRow {
	r := schemaRow{Name: name, Parent: parent, Depth: depth, Required: required, Type: w.typeOf(sch, depth)}
	if sch.Kind != skillcat.Object {
		return r.printable()
	}
	// A member's own words win over those of the definition it refers to.
	target := w.resolve(sch)
	r.Description = textOf(sch, "description", "title")
	if r.Description == "" {
		r.Description = textOf(target, "description", "title")
	}
	for _, s := range []*skillcat.Node{sch, target} {
		if def := s.Get("default"); def != nil && r.Default == "" {
			r.Default = string(def.AppendJSON(nil))
		}
		if r.Enum != nil {
			continue
		}
		if enum := s.Get("enum"); enum != nil && enum.Kind == skillcat.Array {
			r.Enum = []string{}
			for _, it := range enum.Items {
				r.Enum = append(r.Enum, string(it.AppendJSON(nil)))
			}
		} else if c := s.Get("const"); c != nil {
			r.Enum = []string{string(c.AppendJSON(nil))}
		}
	}
	r.Constraints = constraints(sch)
	if target != sch {
		r.Constraints = append(r.Constraints, constraints(target)...)
	}
	return r.printable()
}

// constraints lists a schema's validation keywords in words.
func constraints(sch *skillcat.Node) []constraint {
	var cons []constraint
	num := func(key string) (string, bool) {
		v := sch.Get(key)
		if v == nil {
			return "", false
		}
		return string(v.AppendJSON(nil)), true
	}
	// count words a bound on a count: lead, the number, then the noun
	// (one for 1); concatenated, where fmt.Sprintf boxed both values.
	count := func(key, lead, one, many string) {
		if v, ok := num(key); ok {
			noun := many
			if v == "1" {
				noun = one
			}
			cons = append(cons, constraint{Text: lead + v + " " + noun})
		}
	}
	for _, k := range []struct{ key, label string }{
		{"minimum", "≥ "}, {"exclusiveMinimum", "> "}, {"maximum", "≤ "}, {"exclusiveMaximum", "< "}, {"multipleOf", "a multiple of "},
	} {
		if v, ok := num(k.key); ok {
			cons = append(cons, constraint{Text: k.label + v})
		}
	}
	count("minLength", "at least ", "character", "characters")
	count("maxLength", "at most ", "character", "characters")
	if p := sch.Get("pattern"); p != nil && p.Kind == skillcat.String {
		cons = append(cons, constraint{Text: "matches", Code: p.Text})
	}
	count("minItems", "at least ", "item", "items")
	count("maxItems", "at most ", "item", "items")
	count("minProperties", "at least ", "member", "members")
	count("maxProperties", "at most ", "member", "members")
	if u := sch.Get("uniqueItems"); u != nil && u.Text == "true" {
		cons = append(cons, constraint{Text: "unique items"})
	}
	if ap := sch.Get("additionalProperties"); ap != nil && ap.Kind == skillcat.Bool && ap.Text == "false" {
		cons = append(cons, constraint{Text: "no other members"})
	}
	if ro := sch.Get("readOnly"); ro != nil && ro.Text == "true" {
		cons = append(cons, constraint{Text: "read-only"})
	}
	if dep := sch.Get("deprecated"); dep != nil && dep.Text == "true" {
		cons = append(cons, constraint{Text: "deprecated"})
	}
	return cons
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
