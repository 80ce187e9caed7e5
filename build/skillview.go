package build

import (
	"encoding/json"
	"fmt"
	"html/template"
	"sort"
	"strings"

	skillcat "github.com/skillcat/skillcat"
)

// skillView is what the skill page template shows of one skill.
type skillView struct {
	D               *skillcat.SkillDescriptor
	Summary         string
	Description     template.HTML
	Method          string
	Inputs          []schemaRow
	Output          []schemaRow
	OutputNote      string // for boolean or empty output schemas
	AccessNote      string
	Auth            authView
	Examples        []exampleView
	DescriptorHref  string // relative link to /skills/<id>.json
	Digest          string
	InputSchemaJSON string
}

type authView struct {
	Type    string
	Summary string
	Fields  [][2]string // label, value
	Scopes  [][2]string // scope, description
	Text    string      // custom instructions
}

type exampleView struct {
	Title    string
	Request  string
	Response string
}

// schemaRow is one member of an inputs or output schema, flattened: Depth
// says how deep it is nested.
type schemaRow struct {
	Name        string
	Path        string
	Depth       int
	Type        string
	Required    bool
	Default     string
	Enum        string
	Description string
	Constraints string
}

// exampleTimes are the fixed timestamps of example responses, so pages do
// not change between builds.
const (
	exampleCreated   = "2026-01-01T12:00:00Z"
	exampleStarted   = "2026-01-01T12:00:00.120Z"
	exampleCompleted = "2026-01-01T12:00:01.480Z"
)

func (p *pages) skillPage(s *Skill) ([]byte, error) {
	d := s.Descriptor
	desc, err := renderMarkdown(d.Description)
	if err != nil {
		return nil, fmt.Errorf("render description: %w", err)
	}
	v := &skillView{
		D:              d,
		Summary:        s.Summary,
		Description:    template.HTML(desc),
		Method:         d.Endpoint.EffectiveMethod(),
		Inputs:         schemaRows(d.Inputs),
		Output:         schemaRows(d.Output),
		AccessNote:     accessNote(d.Access),
		Auth:           authOf(d.Auth),
		DescriptorHref: "../" + d.ID + ".json",
		Digest:         s.Digest,
	}
	if len(v.Output) == 0 {
		v.OutputNote = outputNote(d.Output)
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
			Protocol: &skillcat.ProtocolVersion{Version: skillcat.ProtocolName},
		}
		data, err := req.Encode()
		if err != nil {
			return nil, err
		}
		v.Examples = append(v.Examples, exampleView{Title: "Request", Request: string(data)})
	}
	pg := p.newPage("../../", d.Name, "skills/"+d.ID+"/", nil)
	pg.Counts, pg.Total = nil, 0
	pg.Skill = v
	return p.execute("skill.html", pg)
}

// exampleOf builds a ready InvocationRequest for an example and, when it
// shows an output, the matching InvocationResponse.
func exampleOf(d *skillcat.SkillDescriptor, ex skillcat.Example, i int) (exampleView, error) {
	req := skillcat.InvocationRequest{
		Caller:    skillcat.Caller{ID: "my-agent", Type: skillcat.CallerAgent},
		SkillID:   d.ID,
		Inputs:    ex.Inputs,
		Protocol:  &skillcat.ProtocolVersion{Version: skillcat.ProtocolName},
		RequestID: fmt.Sprintf("example-%d", i+1),
	}
	reqJSON, err := req.Encode()
	if err != nil {
		return exampleView{}, fmt.Errorf("example %d request: %w", i, err)
	}
	ev := exampleView{Title: ex.Title, Request: string(reqJSON)}
	if ex.Output != nil {
		resp := skillcat.InvocationResponse{
			ExecutionID: fmt.Sprintf("exec-example-%d", i+1),
			Status:      skillcat.StatusSucceeded,
			SkillID:     d.ID,
			Timestamps:  skillcat.Timestamps{CreatedAt: exampleCreated, StartedAt: exampleStarted, CompletedAt: exampleCompleted},
			Output:      ex.Output,
		}
		respJSON, err := resp.Encode()
		if err != nil {
			return exampleView{}, fmt.Errorf("example %d response: %w", i, err)
		}
		ev.Response = string(respJSON)
	}
	return ev, nil
}

func accessNote(a skillcat.Access) string {
	switch a {
	case skillcat.Public:
		return "Public: anyone may discover and call this skill."
	case skillcat.Restricted:
		return "Restricted: listed for discovery, but calls need the credentials described under Authentication."
	}
	return ""
}

func authOf(a skillcat.Auth) authView {
	v := authView{Type: string(a.Type)}
	switch a.Type {
	case skillcat.AuthAPIKey:
		where := "header"
		if a.In == "query" {
			where = "query parameter"
		}
		v.Summary = "Send an API key in the " + where + " " + a.Name + "."
		v.Fields = [][2]string{{"Sent in", a.In}, {"Name", a.Name}}
	case skillcat.AuthOAuth2:
		v.Summary = "Get an OAuth 2.0 access token and send it as a Bearer token."
		v.Fields = [][2]string{{"Token URL", a.TokenURL}}
		if a.AuthorizationURL != "" {
			v.Fields = append(v.Fields, [2]string{"Authorization URL", a.AuthorizationURL})
		}
		for _, name := range sortedKeys(a.Scopes) {
			v.Scopes = append(v.Scopes, [2]string{name, a.Scopes[name]})
		}
	case skillcat.AuthCustom:
		v.Summary = "Authenticate as the provider describes:"
		v.Text = a.Instructions
	case skillcat.AuthNone:
		v.Summary = "No authentication needed."
	}
	return v
}

func outputNote(raw json.RawMessage) string {
	switch strings.TrimSpace(string(raw)) {
	case "true", "{}":
		return "Any JSON value."
	case "false":
		return "No output: the schema accepts nothing."
	}
	return "See the descriptor's output schema."
}

// maxSchemaRows bounds a schema table; deeper detail is in the descriptor.
const maxSchemaRows = 200

// schemaRows flattens an object schema's properties (and array items'
// properties) into table rows, in the order the schema lists them.
func schemaRows(raw json.RawMessage) []schemaRow {
	n, err := skillcat.ParseJSON(raw)
	if err != nil || n.Kind != skillcat.Object {
		return nil
	}
	var rows []schemaRow
	var walk func(sch *skillcat.Node, prefix string, depth int)
	walk = func(sch *skillcat.Node, prefix string, depth int) {
		if depth > 8 || sch == nil || sch.Kind != skillcat.Object {
			return
		}
		props := sch.Get("properties")
		if props == nil || props.Kind != skillcat.Object {
			if items := sch.Get("items"); items != nil {
				walk(items, prefix+"[]", depth)
			}
			return
		}
		required := map[string]bool{}
		if req := sch.Get("required"); req != nil {
			for _, it := range req.Items {
				required[it.Text] = true
			}
		}
		for _, m := range props.Members {
			if len(rows) >= maxSchemaRows {
				return
			}
			name := m.Name
			full := name
			if prefix != "" {
				full = prefix + "." + name
			}
			rows = append(rows, rowOf(m.Value, name, full, depth, required[name]))
			walk(m.Value, full, depth+1)
		}
	}
	walk(n, "", 0)
	return rows
}

func rowOf(sch *skillcat.Node, name, full string, depth int, required bool) schemaRow {
	r := schemaRow{Name: name, Path: full, Depth: depth, Required: required}
	if sch.Kind != skillcat.Object {
		if sch.Kind == skillcat.Bool && sch.Text == "true" {
			r.Type = "any"
		}
		return r
	}
	if t := sch.Get("type"); t != nil {
		switch t.Kind {
		case skillcat.String:
			r.Type = t.Text
		case skillcat.Array:
			var ts []string
			for _, it := range t.Items {
				ts = append(ts, it.Text)
			}
			r.Type = strings.Join(ts, " | ")
		}
	}
	if r.Type == "array" {
		if it := sch.Get("items").Get("type"); it != nil && it.Kind == skillcat.String {
			r.Type = "array of " + it.Text
		}
	}
	if ref := sch.Get("$ref"); r.Type == "" && ref != nil {
		r.Type = ref.Text
	}
	if f := sch.Get("format"); f != nil && f.Kind == skillcat.String {
		r.Type += " (" + f.Text + ")"
	}
	if dsc := sch.Get("description"); dsc != nil && dsc.Kind == skillcat.String {
		r.Description = dsc.Text
	} else if title := sch.Get("title"); title != nil && title.Kind == skillcat.String {
		r.Description = title.Text
	}
	if def := sch.Get("default"); def != nil {
		r.Default = string(def.AppendJSON(nil))
	}
	if enum := sch.Get("enum"); enum != nil && enum.Kind == skillcat.Array {
		var vals []string
		for _, it := range enum.Items {
			vals = append(vals, string(it.AppendJSON(nil)))
		}
		r.Enum = strings.Join(vals, ", ")
	} else if c := sch.Get("const"); c != nil {
		r.Enum = string(c.AppendJSON(nil))
	}
	var cons []string
	for _, k := range []struct{ key, label string }{
		{"minimum", "≥ "}, {"exclusiveMinimum", "> "}, {"maximum", "≤ "}, {"exclusiveMaximum", "< "},
		{"multipleOf", "multiple of "}, {"minLength", "min length "}, {"maxLength", "max length "},
		{"pattern", "pattern "}, {"minItems", "min items "}, {"maxItems", "max items "},
	} {
		if v := sch.Get(k.key); v != nil {
			cons = append(cons, k.label+string(v.AppendJSON(nil)))
		}
	}
	if u := sch.Get("uniqueItems"); u != nil && u.Text == "true" {
		cons = append(cons, "unique items")
	}
	r.Constraints = strings.Join(cons, ", ")
	return r
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
