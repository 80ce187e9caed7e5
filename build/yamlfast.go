package build

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf8"

	skillcat "github.com/skillcat/skillcat"
)

// Most front matter is the plainest YAML: block mappings and sequences
// indented by spaces, with one-line plain or quoted scalars. yaml.v3 reads
// it at several microseconds a line (its scanner keeps a token queue and
// simple-key bookkeeping meant for everything YAML allows), and its tree is
// then converted into a Node tree (converter); quickNode reads that
// plainest form directly into the Node tree the two would make, and
// declines anything else: comments, tabs, blank lines, flow collections,
// block scalars, anchors, aliases, tags, escapes, multi-line scalars, empty
// values, duplicate or long keys, any character yaml.v3 would refuse, and
// any value the converter would report (a number beyond
// skillcat.CheckNumber's bounds, .inf). A declined document goes to
// yaml.v3 and the converter, so every problem is still reported by them and
// in their words. TestQuickYAMLIsYAML holds quickNode to them on generated
// documents and the synthetic catalog.

// quickNode returns the Node tree yaml.v3 and the converter make of yml,
// its lines shifted by lineOffset, or false when yml is not in the form it
// reads.
func quickNode(yml []byte, lineOffset int) (*skillcat.Node, bool) {
	if len(yml) == 0 || !quickText(yml) {
		return nil, false
	}
	q := quickReader{lines: quickLines(yml), lineOffset: lineOffset}
	if q.lines == nil {
		return nil, false
	}
	// A line holds a key and a value at most: the nodes in one block, the
	// stacks sized as the JSON parser's.
	q.block = make([]skillcat.Node, 0, 2*len(q.lines)+1)
	q.members, q.items = make([]skillcat.Member, 0, 32), make([]*skillcat.Node, 0, 16)
	root, ok := q.mapping(0, 0)
	if !ok || q.i != len(q.lines) {
		return nil, false
	}
	return root, true
}

// quickText reports whether yml holds only what quickNode reads: no tab,
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
// line with trailing spaces. The lines share one copy of yml (a string a
// line was a third of parsing's allocations): what the reader keeps
// of them lives only as long as the parse, whose results the index and
// the listing copy.
func quickLines(yml []byte) []quickLine {
	out := make([]quickLine, 0, bytes.Count(yml, []byte("\n"))+1)
	src := string(yml)
	for num := 1; len(src) > 0; num++ {
		line, rest, _ := strings.Cut(src, "\n")
		src = rest
		text := strings.TrimLeft(line, " ")
		if len(text) == 0 || text[len(text)-1] == ' ' {
			return nil
		}
		out = append(out, quickLine{num: num, indent: len(line) - len(text), text: text})
	}
	return out
}

type quickReader struct {
	lines      []quickLine
	i          int
	lineOffset int             // added to every line, as the converter does
	values     int             // the values read, as the converter counts them
	block      []skillcat.Node // nodes are allocated 32 at a time
	// The members and items of the mappings and sequences being read are
	// stacked until each ends and gets a slice of its own exact size.
	members []skillcat.Member
	items   []*skillcat.Node
}

// node returns a pointer to a copy of n, allocated in the current block.
func (q *quickReader) node(n skillcat.Node) *skillcat.Node {
	if len(q.block) == cap(q.block) {
		q.block = make([]skillcat.Node, 0, 32)
	}
	q.block = append(q.block, n)
	return &q.block[len(q.block)-1]
}

// value returns a new node for a value at line and col (the line in yml),
// or false past the converter's bounds on depth and values, which then
// reports them.
func (q *quickReader) value(n skillcat.Node, line, col, depth int) (*skillcat.Node, bool) {
	q.values++
	if q.values > maxYAMLNodes || depth > skillcat.MaxDepth {
		return nil, false
	}
	n.Line, n.Column = line+q.lineOffset, col
	return q.node(n), true
}

// mapping reads the block mapping whose keys start at column indent+1.
func (q *quickReader) mapping(indent, depth int) (*skillcat.Node, bool) {
	first := q.lines[q.i]
	m, ok := q.value(skillcat.Node{Kind: skillcat.Object}, first.num, indent+1, depth)
	if !ok {
		return nil, false
	}
	base := len(q.members)
	defer func() { q.members = q.members[:base] }()
	for q.i < len(q.lines) && q.lines[q.i].indent == indent {
		ln := q.lines[q.i]
		key, value, ok := splitKey(ln.text)
		if !ok || q.has(base, key) {
			return nil, false
		}
		k := q.node(skillcat.Node{Kind: skillcat.String, Text: key, Line: ln.num + q.lineOffset, Column: indent + 1})
		q.i++
		var v *skillcat.Node
		if value == "" {
			// The value is the block below, indented further.
			if q.i >= len(q.lines) || q.lines[q.i].indent <= indent {
				return nil, false
			}
			if strings.HasPrefix(q.lines[q.i].text, "- ") {
				v, ok = q.sequence(q.lines[q.i].indent, depth+1)
			} else {
				v, ok = q.mapping(q.lines[q.i].indent, depth+1)
			}
		} else {
			// Columns count code points, as yaml.v3's do (a quoted key
			// may hold any letters).
			col := indent + utf8.RuneCountInString(ln.text[:len(ln.text)-len(value)]) + 1
			v, ok = q.scalar(value, ln.num, col, depth+1)
		}
		if !ok {
			return nil, false
		}
		q.members = append(q.members, skillcat.Member{Name: key, Key: k, Value: v})
	}
	if q.i < len(q.lines) && q.lines[q.i].indent > indent {
		return nil, false // a continuation line, or an indentation YAML would refuse
	}
	m.Members = slices.Clone(q.members[base:])
	return m, true
}

// has reports whether the mapping whose members start at base already has
// a member called key.
func (q *quickReader) has(base int, key string) bool {
	for _, m := range q.members[base:] {
		if m.Name == key {
			return true
		}
	}
	return false
}

// sequence reads the block sequence whose dashes are at column indent+1.
func (q *quickReader) sequence(indent, depth int) (*skillcat.Node, bool) {
	s, ok := q.value(skillcat.Node{Kind: skillcat.Array}, q.lines[q.i].num, indent+1, depth)
	if !ok {
		return nil, false
	}
	base := len(q.items)
	defer func() { q.items = q.items[:base] }()
	for q.i < len(q.lines) && q.lines[q.i].indent == indent {
		ln := q.lines[q.i]
		rest, ok := strings.CutPrefix(ln.text, "- ")
		if !ok {
			return nil, false
		}
		rest = strings.TrimLeft(rest, " ")
		col := indent + len(ln.text) - len(rest) + 1
		var v *skillcat.Node
		if _, _, isKey := splitKey(rest); isKey {
			// "- name: value": a mapping whose keys start after the dash.
			q.lines[q.i] = quickLine{num: ln.num, indent: col - 1, text: rest}
			v, ok = q.mapping(col-1, depth+1)
		} else if strings.Contains(rest, ": ") || strings.HasSuffix(rest, ":") || strings.HasPrefix(rest, "- ") {
			return nil, false
		} else {
			q.i++
			v, ok = q.scalar(rest, ln.num, col, depth+1)
		}
		if !ok {
			return nil, false
		}
		q.items = append(q.items, v)
	}
	if q.i < len(q.lines) && q.lines[q.i].indent > indent {
		return nil, false
	}
	s.Items = slices.Clone(q.items[base:])
	return s, true
}

// splitKey splits "name: value" or "name:" into the name and the value
// (possibly ""). A name is ASCII letters, digits and "_$.-" not starting
// with "-", or double quoted without escapes; at most 128 characters.
func splitKey(text string) (key string, value string, ok bool) {
	var rest string
	if strings.HasPrefix(text, `"`) {
		j := strings.IndexByte(text[1:], '"') + 1
		if j <= 0 || j > 129 || !strings.HasPrefix(text[j+1:], ":") {
			return "", "", false
		}
		key, rest = text[1:j], text[j+2:]
	} else {
		i := strings.IndexByte(text, ':')
		if i <= 0 || i > 128 || text[0] == '-' {
			return "", "", false
		}
		key, rest = text[:i], text[i+1:]
		for j := 0; j < len(key); j++ {
			c := key[j]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$' || c == '.' || c == '-') {
				return "", "", false
			}
		}
	}
	if rest == "" {
		return key, "", true
	}
	if rest[0] != ' ' {
		return "", "", false
	}
	return key, strings.TrimLeft(rest, " "), true
}

// scalar reads a one-line scalar: "double quoted" or 'single quoted'
// without escapes or inner quotes (a string), or plain text that starts
// with no YAML indicator and holds no ": ", quotes or flow brackets,
// resolved as the converter resolves it (null, a boolean, a number, or a
// string); or an empty flow sequence [] or mapping {}.
func (q *quickReader) scalar(text string, line, col, depth int) (*skillcat.Node, bool) {
	var n skillcat.Node
	switch text {
	case "[]":
		n.Kind = skillcat.Array
		return q.value(n, line, col, depth)
	case "{}":
		n.Kind = skillcat.Object
		return q.value(n, line, col, depth)
	}
	switch text[0] {
	case '"', '\'':
		quote := text[:1]
		if len(text) < 2 || !strings.HasSuffix(text, quote) || strings.Contains(text[1:len(text)-1], quote) {
			return nil, false
		}
		n.Kind, n.Text = skillcat.String, text[1:len(text)-1]
		return q.value(n, line, col, depth)
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
	switch {
	case coreNull(text):
		n.Kind = skillcat.Null
	case coreBool(text):
		n.Kind, n.Text = skillcat.Bool, strings.ToLower(text)
	case isCoreNumber(text):
		num, err := jsonNumber(text)
		if err != nil {
			return nil, false // the converter reports it
		}
		n.Kind, n.Text = skillcat.Number, num
	default:
		n.Kind, n.Text = skillcat.String, text
	}
	return q.value(n, line, col, depth)
}
