package agentskills

import (
	"io"
	"unicode/utf8"
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
// given: two-space indent, no HTML escaping, a final newline; the bytes
// encoding/json writes with those settings, made without reflection (a
// large catalog's index is made again at every rebuild).
func EncodeIndex(entries []Entry) ([]byte, error) {
	size := 128
	for i := range entries {
		e := &entries[i]
		size += 160 + len(e.Name) + len(e.Type) + len(e.Description) + len(e.URL) + len(e.Digest) + len(e.Version)
	}
	b := appendHead(make([]byte, 0, size))
	for i := range entries {
		b = appendEntry(b, i, &entries[i])
	}
	return appendTail(b, len(entries)), nil
}

// IndexWriter writes a discovery index entry by entry to an io.Writer, so
// that a large catalog's index is never held whole, nor its entries (at
// 100,000 skills ~36 MB of document and ~54 MB of entries): the bytes
// EncodeIndex makes of the same entries.
type IndexWriter struct {
	w   io.Writer
	b   []byte
	n   int
	err error
}

// indexChunk is how much an IndexWriter gathers before it writes.
const indexChunk = 32 << 10

// NewIndexWriter starts an index written to w.
func NewIndexWriter(w io.Writer) *IndexWriter {
	return &IndexWriter{w: w, b: appendHead(make([]byte, 0, indexChunk+4<<10))}
}

// Add writes the next entry; an error is the writer's, also returned by
// every later call.
func (x *IndexWriter) Add(e *Entry) error {
	x.b = appendEntry(x.b, x.n, e)
	x.n++
	if len(x.b) >= indexChunk {
		x.flush()
	}
	return x.err
}

// Close ends the index and writes what is left; it does not close the
// underlying writer.
func (x *IndexWriter) Close() error {
	x.b = appendTail(x.b, x.n)
	x.flush()
	return x.err
}

func (x *IndexWriter) flush() {
	if x.err == nil {
		_, x.err = x.w.Write(x.b)
	}
	x.b = x.b[:0]
}

// appendHead appends what comes before the first entry.
func appendHead(b []byte) []byte {
	b = append(b, "{\n  \"$schema\": "...)
	b = appendString(b, Schema)
	return append(b, ",\n  \"skills\": ["...)
}

// appendEntry appends entry e, the i-th (from 0).
func appendEntry(b []byte, i int, e *Entry) []byte {
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
	return append(b, "\n    }"...)
}

// appendTail appends what follows the last of n entries.
func appendTail(b []byte, n int) []byte {
	if n > 0 {
		b = append(b, "\n  "...)
	}
	return append(b, "]\n}\n"...)
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
