package skillcat

// WellKnownPath is where a provider serves its SkillIndex (RFC 8615).
const WellKnownPath = "/.well-known/skills.json"

// SkillIndex is the Well-Known document listing every skill a provider
// publishes, ordered by id.
type SkillIndex struct {
	Protocol ProtocolVersion `json:"protocol"`
	Skills   []IndexEntry    `json:"skills"`
	Extra    Extra
}

// IndexEntry is one skill of a SkillIndex. DescriptorURL is a URI reference
// resolved against the index's own URL; Digest is "sha256:" and the hex
// SHA-256 of the exact bytes served there.
type IndexEntry struct {
	ID             string         `json:"id"`
	Name           string         `json:"name"`
	Version        string         `json:"version"`
	CapabilityType CapabilityType `json:"capability_type"`
	Access         Access         `json:"access"`
	Summary        string         `json:"summary" skillcat:"keepempty"`
	DescriptorURL  string         `json:"descriptor_url"`
	Digest         string         `json:"digest"`
	Extra          Extra
}

// Encode returns the index as published, in the form SkillDescriptor.Encode
// describes. An index without skills writes "skills": [].
func (x *SkillIndex) Encode() ([]byte, error) {
	if x.plain() {
		return x.encodePlain(), nil
	}
	if x.Skills == nil {
		c := *x
		c.Skills = []IndexEntry{}
		return encode(&c)
	}
	return encode(x)
}

// plain reports whether the index has no unknown members anywhere, as the
// indexes a build writes: encodePlain writes those.
func (x *SkillIndex) plain() bool {
	if len(x.Extra) > 0 || len(x.Protocol.Extra) > 0 {
		return false
	}
	for i := range x.Skills {
		if len(x.Skills[i].Extra) > 0 {
			return false
		}
	}
	return true
}

// encodePlain writes an index without unknown members as Encode does,
// without reflection: a build writes a large catalog's index, and its
// type indexes, again whenever a listed skill changes.
func (x *SkillIndex) encodePlain() []byte {
	size := 64
	for i := range x.Skills {
		e := &x.Skills[i]
		size += 200 + len(e.ID) + len(e.Name) + len(e.Version) + len(e.CapabilityType) + len(e.Access) + len(e.Summary) + len(e.DescriptorURL) + len(e.Digest)
	}
	b := make([]byte, 0, size)
	b = append(b, "{\n  \"protocol\": "...)
	if v := x.Protocol.Version; v == "" {
		b = append(b, "{}"...)
	} else {
		b = appendString(append(b, "{\n    \"version\": "...), v)
		b = append(b, "\n  }"...)
	}
	b = append(b, ",\n  \"skills\": ["...)
	for i := range x.Skills {
		e := &x.Skills[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n    {"...)
		first := true
		member := func(name, value string, keep bool) {
			if value == "" && !keep {
				return
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, "\n      \""...)
			b = append(b, name...)
			b = appendString(append(b, "\": "...), value)
		}
		member("id", e.ID, false)
		member("name", e.Name, false)
		member("version", e.Version, false)
		member("capability_type", string(e.CapabilityType), false)
		member("access", string(e.Access), false)
		member("summary", e.Summary, true)
		member("descriptor_url", e.DescriptorURL, false)
		member("digest", e.Digest, false)
		b = append(b, "\n    }"...)
	}
	if len(x.Skills) > 0 {
		b = append(b, "\n  "...)
	}
	return append(b, "]\n}\n"...)
}

// MarshalJSON writes the index as Encode does, compact.
func (x SkillIndex) MarshalJSON() ([]byte, error) { return marshalCompact(&x) }

// UnmarshalJSON decodes an index, keeping unknown members. It checks JSON
// types only; use ParseIndex to validate.
func (x *SkillIndex) UnmarshalJSON(data []byte) error {
	*x = SkillIndex{}
	return unmarshal(data, x)
}

// Filter returns the entries of one capability type, in index order.
func (x *SkillIndex) Filter(t CapabilityType) []IndexEntry {
	var out []IndexEntry
	for _, e := range x.Skills {
		if e.CapabilityType == t {
			out = append(out, e)
		}
	}
	return out
}

// ParseIndex parses and validates a SkillIndex: its structure, the protocol
// version rule, and that no id is listed twice. The violations of a valid
// index are warnings, such as an unknown member or the first skill out of
// id order.
func ParseIndex(file string, data []byte) (*SkillIndex, Violations) {
	src := &Source{Name: file, Data: data}
	root, vs := parseDocument(src, IndexSchemaFile)
	if vs.HasErrors() {
		return nil, vs
	}
	seen := map[string]int{}
	var order Violations // skills out of id order: warnings, the index is still usable
	for i, e := range root.Get("skills").Items {
		id := e.Get("id").Text
		if j, dup := seen[id]; dup {
			vs = append(vs, src.violation(e.Get("id"), Members("skills").Item(i).Member("id"),
				"id "+quoteValue(e.Get("id"))+" is listed twice (also at skills["+itoa(j)+"])"))
		} else if i > 0 && order == nil {
			if prev := root.Get("skills").Items[i-1].Get("id"); id < prev.Text {
				v := src.violation(e.Get("id"), Members("skills").Item(i).Member("id"),
					"the skills are not ordered by id (SPEC 1.3): "+quoteValue(e.Get("id"))+" comes after "+quoteValue(prev))
				v.Severity = SeverityWarning
				order = Violations{v}
			}
		}
		seen[id] = i
	}
	if vs.HasErrors() {
		return nil, vs
	}
	x := new(SkillIndex)
	if err := decodeNode(root, x); err != nil {
		return nil, Violations{src.fileViolation(1, 1, err.Error())}
	}
	vs = append(vs, order...)
	return x, append(vs, lintMembers(src, root, indexKind)...)
}

// parseDocument parses a JSON document and checks it against one of the
// built-in schemas, after the version rule and the duplicate-member rule.
func parseDocument(src *Source, schemaFile string) (*Node, Violations) {
	root, vs := ParseSource(src)
	if vs != nil {
		return nil, vs
	}
	if root.Kind != Object {
		line, col := src.Position(root)
		return nil, Violations{src.fileViolation(line, col, "must be a JSON object; got "+kindPhrase(root))}
	}
	if v, ok := checkProtocol(src, root); !ok {
		return nil, Violations{v}
	}
	vs = append(vs, duplicateMembers(src, root, walkPath())...)
	vs = append(vs, validateSchema(protocolSchemas()[schemaFile], src, root)...)
	vs.Sort()
	return root, vs
}
