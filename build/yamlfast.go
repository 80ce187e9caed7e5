package build

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Most front matter is the plainest YAML: block mappings and sequences
// indented by spaces, with one-line plain or quoted scalars. yaml.v3 reads
// it at several microseconds a line (its scanner keeps a token queue and
// simple-key bookkeeping meant for everything YAML allows); quickYAML reads
// that plainest form directly into the same yaml.Node tree, and declines
// anything else: comments, tabs, blank lines, flow collections, block
// scalars, anchors, aliases, tags, escapes, multi-line scalars, empty
// values, duplicate or long keys, and any character yaml.v3 would refuse.
// A declined document goes to yaml.v3, so every problem is still reported
// by yaml.v3's reading and in its words. TestQuickYAMLIsYAML holds the two
// to the same trees on generated documents and the synthetic catalog.

// quickYAML returns the document node yaml.v3 makes of yml, or false when
// yml is not in the form it reads.
func quickYAML(yml []byte) (*yaml.Node, bool) {
	if len(yml) == 0 || !quickText(yml) {
		return nil, false
	}
	q := quickReader{lines: quickLines(yml)}
	if q.lines == nil {
		return nil, false
	}
	root, ok := q.mapping(0)
	if !ok || q.i != len(q.lines) {
		return nil, false
	}
	return &yaml.Node{Kind: yaml.DocumentNode, Line: 1, Column: 1, Content: []*yaml.Node{root}}, true
}

// quickText reports whether yml holds only what quickYAML reads: no tab,
// carriage return, comment or backslash, and only characters that YAML
// calls printable.
func quickText(yml []byte) bool {
	for i := 0; i < len(yml); {
		c := yml[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' || c == 0x7f || c == '#' || c == '\\' {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(yml[i:])
		// U+0085, U+2028 and U+2029 are line breaks to yaml.v3.
		if r == utf8.RuneError || r < 0xa0 || r == 0x2028 || r == 0x2029 || r > 0xd7ff && r < 0xe000 || r == 0xfeff || r == 0xfffe || r == 0xffff {
			return false
		}
		i += size
	}
	return true
}

type quickLine struct {
	num    int    // 1-based
	indent int    // leading spaces
	text   string // after them, never empty, no trailing space
}

// quickLines splits yml into lines, or returns nil at a blank line or a
// line with trailing spaces.
func quickLines(yml []byte) []quickLine {
	var out []quickLine
	for num := 1; len(yml) > 0; num++ {
		line, rest, _ := bytes.Cut(yml, []byte("\n"))
		yml = rest
		text := bytes.TrimLeft(line, " ")
		if len(text) == 0 || text[len(text)-1] == ' ' {
			return nil
		}
		out = append(out, quickLine{num: num, indent: len(line) - len(text), text: string(text)})
	}
	return out
}

type quickReader struct {
	lines []quickLine
	i     int
	block []yaml.Node // nodes are allocated 32 at a time
}

// node returns a pointer to a copy of n, allocated in the current block.
func (q *quickReader) node(n yaml.Node) *yaml.Node {
	if len(q.block) == cap(q.block) {
		q.block = make([]yaml.Node, 0, 32)
	}
	q.block = append(q.block, n)
	return &q.block[len(q.block)-1]
}

// mapping reads the block mapping whose keys start at column indent+1.
func (q *quickReader) mapping(indent int) (*yaml.Node, bool) {
	first := q.lines[q.i]
	m := q.node(yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: first.num, Column: indent + 1})
	seen := map[string]bool{}
	for q.i < len(q.lines) && q.lines[q.i].indent == indent {
		ln := q.lines[q.i]
		key, style, value, ok := splitKey(ln.text)
		if !ok || seen[key] {
			return nil, false
		}
		seen[key] = true
		k := q.node(yaml.Node{Kind: yaml.ScalarNode, Style: style, Tag: "!!str", Value: key, Line: ln.num, Column: indent + 1})
		q.i++
		var v *yaml.Node
		if value == "" {
			// The value is the block below, indented further.
			if q.i >= len(q.lines) || q.lines[q.i].indent <= indent {
				return nil, false
			}
			if strings.HasPrefix(q.lines[q.i].text, "- ") {
				v, ok = q.sequence(q.lines[q.i].indent)
			} else {
				v, ok = q.mapping(q.lines[q.i].indent)
			}
		} else {
			// Columns count code points, as yaml.v3's do (a quoted key
			// may hold any letters).
			col := indent + utf8.RuneCountInString(ln.text[:len(ln.text)-len(value)]) + 1
			v, ok = q.scalarNode(value, ln.num, col)
		}
		if !ok {
			return nil, false
		}
		m.Content = append(m.Content, k, v)
	}
	if q.i < len(q.lines) && q.lines[q.i].indent > indent {
		return nil, false // a continuation line, or an indentation YAML would refuse
	}
	return m, true
}

// sequence reads the block sequence whose dashes are at column indent+1.
func (q *quickReader) sequence(indent int) (*yaml.Node, bool) {
	s := q.node(yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Line: q.lines[q.i].num, Column: indent + 1})
	for q.i < len(q.lines) && q.lines[q.i].indent == indent {
		ln := q.lines[q.i]
		rest, ok := strings.CutPrefix(ln.text, "- ")
		if !ok {
			return nil, false
		}
		rest = strings.TrimLeft(rest, " ")
		col := indent + len(ln.text) - len(rest) + 1
		var v *yaml.Node
		if _, _, _, isKey := splitKey(rest); isKey {
			// "- name: value": a mapping whose keys start after the dash.
			q.lines[q.i] = quickLine{num: ln.num, indent: col - 1, text: rest}
			v, ok = q.mapping(col - 1)
		} else if strings.Contains(rest, ": ") || strings.HasSuffix(rest, ":") || strings.HasPrefix(rest, "- ") {
			return nil, false
		} else {
			q.i++
			v, ok = q.scalarNode(rest, ln.num, col)
		}
		if !ok {
			return nil, false
		}
		s.Content = append(s.Content, v)
	}
	if q.i < len(q.lines) && q.lines[q.i].indent > indent {
		return nil, false
	}
	return s, true
}

// splitKey splits "name: value" or "name:" into the name, its style and
// the value (possibly ""). A name is ASCII letters, digits and "_$.-" not
// starting with "-", or double quoted without escapes; at most 128
// characters.
func splitKey(text string) (key string, style yaml.Style, value string, ok bool) {
	var rest string
	if strings.HasPrefix(text, `"`) {
		j := strings.IndexByte(text[1:], '"') + 1
		if j <= 0 || j > 129 || !strings.HasPrefix(text[j+1:], ":") {
			return "", 0, "", false
		}
		key, style, rest = text[1:j], yaml.DoubleQuotedStyle, text[j+2:]
	} else {
		i := strings.IndexByte(text, ':')
		if i <= 0 || i > 128 || text[0] == '-' {
			return "", 0, "", false
		}
		key, rest = text[:i], text[i+1:]
		for j := 0; j < len(key); j++ {
			c := key[j]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$' || c == '.' || c == '-') {
				return "", 0, "", false
			}
		}
	}
	if rest == "" {
		return key, style, "", true
	}
	if rest[0] != ' ' {
		return "", 0, "", false
	}
	return key, style, strings.TrimLeft(rest, " "), true
}

// scalarNode reads a one-line scalar: "double quoted" or 'single quoted'
// without escapes or inner quotes, or plain text that starts with no YAML
// indicator and holds no ": ", quotes or flow brackets; or an empty flow
// sequence [] or mapping {}.
func (q *quickReader) scalarNode(text string, line, col int) (*yaml.Node, bool) {
	n := q.node(yaml.Node{Kind: yaml.ScalarNode, Line: line, Column: col})
	switch text {
	case "[]":
		n.Kind, n.Tag, n.Style = yaml.SequenceNode, "!!seq", yaml.FlowStyle
		return n, true
	case "{}":
		n.Kind, n.Tag, n.Style = yaml.MappingNode, "!!map", yaml.FlowStyle
		return n, true
	}
	switch text[0] {
	case '"', '\'':
		q := text[:1]
		if len(text) < 2 || !strings.HasSuffix(text, q) || strings.Contains(text[1:len(text)-1], q) {
			return nil, false
		}
		n.Tag, n.Value = "!!str", text[1:len(text)-1]
		n.Style = yaml.DoubleQuotedStyle
		if q == "'" {
			n.Style = yaml.SingleQuotedStyle
		}
		return n, true
	case '-', '?', ':':
		if len(text) < 2 || text[1] == ' ' {
			return nil, false
		}
	case ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '%', '@', '`':
		return nil, false
	}
	if strings.Contains(text, ": ") || strings.HasSuffix(text, ":") || strings.ContainsAny(text, "[]{}\"'") {
		return nil, false
	}
	n.Value = text
	return n, true
}
