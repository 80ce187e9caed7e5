package agentskills

import (
	"bytes"
	"encoding/json"
)

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
// given: two-space indent, no HTML escaping, a final newline.
func EncodeIndex(entries []Entry) ([]byte, error) {
	if entries == nil {
		entries = []Entry{}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(Index{Schema: Schema, Skills: entries}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
