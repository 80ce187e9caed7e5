package skillcat

import (
	"context"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// CapabilityType is the kind of capability a skill offers.
type CapabilityType string

// The capability types of the protocol.
const (
	Plugin    CapabilityType = "plugin"
	API       CapabilityType = "api"
	Knowledge CapabilityType = "knowledge"
	Task      CapabilityType = "task"
)

// CapabilityTypes lists every capability type in the specification's order.
var CapabilityTypes = []CapabilityType{Plugin, API, Knowledge, Task}

// Access says who may see and call a skill. Private skills are validated but
// never published.
type Access string

// The access levels of the protocol.
const (
	Public     Access = "public"
	Restricted Access = "restricted"
	Private    Access = "private"
)

// AuthType is how a consumer authenticates to a skill's endpoint.
type AuthType string

// The auth types of the protocol.
const (
	AuthAPIKey AuthType = "api_key"
	AuthOAuth2 AuthType = "oauth2"
	AuthCustom AuthType = "custom"
	AuthNone   AuthType = "none"
)

// ProtocolVersion is the {"version": "MAJOR.MINOR.PATCH"} member of every
// protocol document.
type ProtocolVersion struct {
	Version string `json:"version"`
	Extra   Extra
}

// CurrentProtocol returns the ProtocolVersion this package writes.
func CurrentProtocol() ProtocolVersion { return ProtocolVersion{Version: CurrentVersion} }

// SkillDescriptor describes one skill: what it does, where and how to call
// it, and who may. Field order is the specification's member order, which is
// also the order Encode writes.
type SkillDescriptor struct {
	Schema           string          `json:"$schema"`
	Protocol         ProtocolVersion `json:"protocol"`
	ID               string          `json:"id"`
	Name             string          `json:"name"`
	Version          string          `json:"version"`
	CapabilityType   CapabilityType  `json:"capability_type"`
	Description      string          `json:"description"`
	Provider         Provider        `json:"provider"`
	Endpoint         Endpoint        `json:"endpoint"`
	Inputs           json.RawMessage `json:"inputs"`
	Output           json.RawMessage `json:"output"`
	Auth             Auth            `json:"auth"`
	Access           Access          `json:"access"`
	Tags             []string        `json:"tags"`
	Examples         []Example       `json:"examples"`
	DocumentationURL string          `json:"documentation_url"`
	Extra            Extra
}

// Provider is who publishes a skill.
type Provider struct {
	Name  string `json:"name"`
	URL   string `json:"url"`
	Email string `json:"email"`
	Extra Extra
}

// Endpoint is where a skill is invoked.
type Endpoint struct {
	URL string `json:"url"`
	// Method is empty when the source leaves it out; see EffectiveMethod.
	Method string `json:"method"`
	Extra  Extra
}

// DefaultMethod is the HTTP method of an endpoint that names none.
const DefaultMethod = "POST"

// EffectiveMethod returns the endpoint's method, DefaultMethod when unset.
func (e Endpoint) EffectiveMethod() string {
	if e.Method == "" {
		return DefaultMethod
	}
	return e.Method
}

// Auth is what a consumer needs to call a skill. Which members apply depends
// on Type: api_key uses In and Name, oauth2 TokenURL, AuthorizationURL and
// Scopes, custom Instructions, none nothing.
type Auth struct {
	Type             AuthType          `json:"type"`
	In               string            `json:"in"`
	Name             string            `json:"name"`
	TokenURL         string            `json:"token_url"`
	AuthorizationURL string            `json:"authorization_url"`
	Scopes           map[string]string `json:"scopes"`
	Instructions     string            `json:"instructions"`
	Extra            Extra
}

// Example is one sample call of a skill; Output is nil when the example
// shows none.
type Example struct {
	Title  string          `json:"title"`
	Inputs json.RawMessage `json:"inputs"`
	Output json.RawMessage `json:"output"`
	Extra  Extra
}

// Encode returns the descriptor as published: known members in the
// specification's order, unknown members after them sorted by name, two-space
// indent, a final newline, no HTML escaping, numbers exactly as written.
func (d *SkillDescriptor) Encode() ([]byte, error) { return encode(d) }

// MarshalJSON writes the descriptor as Encode does, compact.
func (d SkillDescriptor) MarshalJSON() ([]byte, error) { return marshalCompact(&d) }

// UnmarshalJSON decodes a descriptor, keeping unknown members in Extra. It
// checks JSON types only; use ParseDescriptor to validate.
func (d *SkillDescriptor) UnmarshalJSON(data []byte) error {
	*d = SkillDescriptor{}
	return unmarshal(data, d)
}

// UnmarshalDescriptor is UnmarshalJSON, also returning the tree of values
// it decoded (without the members' name nodes, so Node.Key is nil), for a
// caller that reads parts of the descriptor again: each json.RawMessage of
// the descriptor is its member's Node.AppendJSON.
func UnmarshalDescriptor(data []byte) (*SkillDescriptor, *Node, error) {
	n, err := parseValues(data)
	if err != nil {
		return nil, nil, err
	}
	d := new(SkillDescriptor)
	if err := decodeNode(n, d); err != nil {
		return nil, nil, err
	}
	return d, n, nil
}

// ParseDescriptor parses and validates a JSON skill descriptor. It returns
// the descriptor and every violation found; the descriptor is nil when any
// violation is an error. Warnings (an unknown member that looks like a typo)
// come with a descriptor.
func ParseDescriptor(file string, data []byte) (*SkillDescriptor, Violations) {
	return ParseDescriptorContext(context.Background(), file, data)
}

// ParseDescriptorContext is ParseDescriptor whose schema checks stop once
// ctx is done (see DecodeDescriptorContext).
func ParseDescriptorContext(ctx context.Context, file string, data []byte) (*SkillDescriptor, Violations) {
	src := &Source{Name: file, Data: data}
	root, vs := ParseSource(src)
	if vs != nil {
		return nil, vs
	}
	return DecodeDescriptorContext(ctx, src, root)
}

// ParseSource checks that a JSON source is non-empty UTF-8 holding one JSON
// value and parses it into a Node tree. Each problem is a file-level
// violation at the line and column where it was found.
func ParseSource(src *Source) (*Node, Violations) {
	if len(trimSpace(src.Data)) == 0 {
		return nil, Violations{src.fileViolation(1, 1, "file is empty: expected a JSON object")}
	}
	if vs := CheckText(src); vs != nil {
		return nil, vs
	}
	root, err := ParseJSON(src.Data)
	if err != nil {
		se := err.(*SyntaxError)
		line, col := src.OffsetPosition(se.Offset)
		if se.Limit {
			return nil, Violations{src.fileViolation(line, col, se.Msg)}
		}
		return nil, Violations{src.fileViolation(line, col, "invalid JSON: "+se.Msg)}
	}
	return root, nil
}

// CheckText reports a source that is not valid UTF-8, at the first bad byte.
func CheckText(src *Source) Violations {
	if utf8.Valid(src.Data) {
		return nil
	}
	off := 0
	for off < len(src.Data) {
		r, size := utf8.DecodeRune(src.Data[off:])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		off += size
	}
	line, col := src.OffsetPosition(off)
	return Violations{src.fileViolation(line, col, fmt.Sprintf("file is not valid UTF-8 (byte 0x%02x); save it as UTF-8", src.Data[off]))}
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}

// DecodeDescriptor validates a descriptor given as a Node tree of src (from
// JSON, or built from YAML front matter with positions of its own) and
// decodes it. It reports every violation: the protocol version rule first (an
// incompatible major is the only violation reported), then structure, then
// the inputs and output schemas and the examples, then the linter's
// warnings (lint.go).
func DecodeDescriptor(src *Source, root *Node) (*SkillDescriptor, Violations) {
	return DecodeDescriptorContext(context.Background(), src, root)
}

// DecodeDescriptorContext is DecodeDescriptor whose checks of examples
// against the descriptor's own schemas stop, with a violation, once ctx is
// done. Those checks have a budget of MaxValidationSteps whatever ctx.
func DecodeDescriptorContext(ctx context.Context, src *Source, root *Node) (*SkillDescriptor, Violations) {
	var vs Violations
	if root.Kind != Object {
		line, col := src.Position(root)
		return nil, Violations{src.fileViolation(line, col, "must be a JSON object; got "+kindPhrase(root))}
	}
	if v, ok := checkProtocol(src, root); !ok {
		return nil, Violations{v}
	}
	dups := duplicateMembers(src, root, walkPath())
	vs = append(vs, dups...)
	// The checks read the Node tree; only the library's paths, for a
	// document they cannot vouch for, convert it to values.
	if !descriptorValid(root) {
		vs = append(vs, validateValue(descriptorSchema(), src, root, root.Value())...)
	}
	vs = append(vs, checkSkillSchemas(ctx, src, root, len(dups) == 0)...)
	vs = append(vs, lintDescriptor(src, root)...)
	vs.Sort()
	if vs.HasErrors() {
		return nil, vs
	}
	d := new(SkillDescriptor)
	if err := decodeNode(root, d); err != nil {
		line, col := src.Position(root)
		return nil, append(vs, src.fileViolation(line, col, err.Error()))
	}
	return d, vs
}

// checkProtocol applies the version rule: a document whose protocol.version
// is well formed with a major above SupportedMajor yields only the
// incompatible-version violation.
func checkProtocol(src *Source, root *Node) (Violation, bool) {
	vn := root.Get("protocol").Get("version")
	if vn == nil || vn.Kind != String {
		return Violation{}, true
	}
	v, err := ParseVersion(vn.Text)
	if err != nil {
		return Violation{}, true
	}
	if err := CheckCompatible(v, SupportedMajor); err != nil {
		viol := src.violation(vn, Members("protocol", "version"), err.Error())
		viol.Err = err
		return viol, false
	}
	return Violation{}, true
}

// duplicateMembers reports every member whose name repeats an earlier one
// in the same object, anywhere in the tree. Its path grows in place
// (walkPath).
func duplicateMembers(src *Source, n *Node, path Path) Violations {
	var vs Violations
	switch n.Kind {
	case Object:
		// Small objects, nearly all of them, are checked without a map.
		var seen map[string]bool
		if len(n.Members) > 16 {
			seen = make(map[string]bool, len(n.Members))
		}
		for i, m := range n.Members {
			dup := seen[m.Name]
			if seen != nil {
				seen[m.Name] = true
			} else {
				for _, e := range n.Members[:i] {
					if dup = e.Name == m.Name; dup {
						break
					}
				}
			}
			if dup {
				vs = append(vs, src.violation(m.Key, path.Member(m.Name), "member "+string(appendString(nil, m.Name))+" appears more than once in this object"))
			}
			if m.Value.Kind == Object || m.Value.Kind == Array {
				vs = append(vs, duplicateMembers(src, m.Value, path.stepMember(m.Name))...)
			}
		}
	case Array:
		for i, it := range n.Items {
			if it.Kind == Object || it.Kind == Array {
				vs = append(vs, duplicateMembers(src, it, path.stepItem(i))...)
			}
		}
	}
	return vs
}

// kindPhrase names a node's JSON type with an article: "an array", "a string".
func kindPhrase(n *Node) string {
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case Array, Object:
		return "an " + n.Kind.String()
	case Null:
		return "null"
	}
	return n.Kind.String() + " " + quoteValue(n)
}

// ValidID reports whether id is a valid skill id: 1–128 characters of
// lowercase letters and digits in groups joined by ".", "_" or "-", safe as
// a file name and URL segment on every system.
func ValidID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	prevSep := true // an id starts with a letter or digit
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			prevSep = false
		case c == '.' || c == '_' || c == '-':
			if prevSep {
				return false
			}
			prevSep = true
		default:
			return false
		}
	}
	return !prevSep
}
