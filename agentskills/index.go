package agentskills

import "unicode/utf8"

// Schema is the $schema of a v0.2.0 discovery index, which clients match
// to know how to read it.
const Schema = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"

// TypeSkillMD is the entry type of a skill served as a single SKILL.md.
const TypeSkillMD = "skill-md"

// Index is the discovery index, /.well-known/agent-skills/index.json.
type Index struct {
	Schema string  `json:"$schema"`
	Skills []Entry `json:"skills"`
}

// Entry is one skill of the discovery index.
type Entry struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description"`
	// URL is where the SKILL.md is, resolved against the index's own URL
	// (RFC 3986).
	URL string `json:"url"`
	// Digest is "sha256:" and the hex SHA-256 of the exact bytes at URL.
	Digest  string `json:"digest"`
	Version string `json:"version,omitempty"`
}

// EncodeIndex writes the discovery index of the entries, in the order
// given: two-space indent, no HTML escaping, a final newline; the bytes
// encoding/json writes with those settings, made without reflection (a
// large catalog's index is made again at every rebuild).
func EncodeIndex(entries []Entry) ([]byte, error) {
	size := 128
	for i := range entries {
		e := &entries[i]
		size += 160 + len(e.Name) + len(e.Type) + len(e.Description) + len(e.URL) + len(e.Digest) + len(e.Version)
	}
	b := make([]byte, 0, size)
	b = append(b, "{\n  \"$schema\": "...)
	b = appendString(b, Schema)
	b = append(b, ",\n  \"skills\": ["...)
	for i := range entries {
		e := &entries[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n    {\n      \"name\": "...)
		b = appendString(b, e.Name)
		b = append(b, ",\n      \"type\": "...)
		b = appendString(b, e.Type)
		b = append(b, ",\n      \"description\": "...)
		b = appendString(b, e.Description)
		b = append(b, ",\n      \"url\": "...)
		b = appendString(b, e.URL)
		b = append(b, ",\n      \"digest\": "...)
		b = appendString(b, e.Digest)
		if e.Version != "" {
			b = append(b, ",\n      \"version\": "...)
			b = appendString(b, e.Version)
		}
		b = append(b, "\n    }"...)
	}
	if len(entries) > 0 {
		b = append(b, "\n  "...)
	}
	return append(b, "]\n}\n"...), nil
}

// appendString appends s as a JSON string the way encoding/json writes it
// without HTML escaping: invalid UTF-8 as U+FFFD, U+2028 and U+2029
// escaped, control characters by their short escapes or \u00XX.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
