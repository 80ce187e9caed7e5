package skillcat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// NodeKind is the JSON type of a Node.
type NodeKind uint8

// The kinds of JSON value.
const (
	Null NodeKind = iota
	Bool
	Number
	String
	Array
	Object
)

// String returns the kind's name as used in error messages ("object", "string", …).
func (k NodeKind) String() string {
	switch k {
	case Null:
		return "null"
	case Bool:
		return "boolean"
	case Number:
		return "number"
	case String:
		return "string"
	case Array:
		return "array"
	case Object:
		return "object"
	}
	return "unknown"
}

// Node is one JSON value of a source document together with where it stands
// in that source. JSON sources record a byte Offset; other sources (YAML front
// matter) record Line and Column directly, which then take precedence.
type Node struct {
	Kind NodeKind
	// Text is the string's value, a number's literal text exactly as written,
	// or "true"/"false".
	Text    string
	Members []Member // an object's members in source order, duplicates included
	Items   []*Node  // an array's elements

	Offset       int // byte offset of the value in its source
	Line, Column int // 1-based; zero when the position comes from Offset
}

// Member is one name–value pair of an object Node.
type Member struct {
	Name  string
	Key   *Node // the member's name as a String node, for its position
	Value *Node
}

// Get returns the value of the last member called name, or nil.
func (n *Node) Get(name string) *Node {
	if n == nil || n.Kind != Object {
		return nil
	}
	for i := len(n.Members) - 1; i >= 0; i-- {
		if n.Members[i].Name == name {
			return n.Members[i].Value
		}
	}
	return nil
}

// Lookup returns the node at the JSON Pointer given as unescaped reference
// tokens, or nil when there is none.
func (n *Node) Lookup(tokens []string) *Node {
	for _, tok := range tokens {
		if n == nil {
			return nil
		}
		switch n.Kind {
		case Object:
			n = n.Get(tok)
		case Array:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n.Items) || strconv.Itoa(i) != tok {
				return nil
			}
			n = n.Items[i]
		default:
			return nil
		}
	}
	return n
}

// At returns the node at path p, or nil when there is none: a member step
// looks into an object, an index step into an array.
func (n *Node) At(p Path) *Node {
	for _, s := range p {
		if !s.IsIndex {
			n = n.Get(s.Name)
			continue
		}
		if n == nil || n.Kind != Array || s.Index < 0 || s.Index >= len(n.Items) {
			return nil
		}
		n = n.Items[s.Index]
	}
	return n
}

// PathOf returns the Path of a JSON Pointer, given as unescaped reference
// tokens, in the document n: a token into an array is an index, any other
// token (past the document's end too) a member name.
func (n *Node) PathOf(tokens []string) Path {
	p := make(Path, len(tokens))
	for i, tok := range tokens {
		if n != nil && n.Kind == Array {
			if k, ok := IndexToken(tok); ok {
				p[i] = Step{Index: k, IsIndex: true}
				n = n.Lookup(tokens[i : i+1])
				continue
			}
		}
		p[i] = Step{Name: tok}
		n = n.Lookup(tokens[i : i+1])
	}
	return p
}

// Value converts the node into the form encoding/json produces with UseNumber:
// map[string]any, []any, json.Number, string, bool or nil. Of duplicate
// members the last one wins.
func (n *Node) Value() any {
	switch n.Kind {
	case Bool:
		return n.Text == "true"
	case Number:
		return json.Number(n.Text)
	case String:
		return n.Text
	case Array:
		a := make([]any, len(n.Items))
		for i, it := range n.Items {
			a[i] = it.Value()
		}
		return a
	case Object:
		m := make(map[string]any, len(n.Members))
		for _, mem := range n.Members {
			m[mem.Name] = mem.Value.Value()
		}
		return m
	}
	return nil
}

// AppendJSON appends the node as compact JSON, members in source order
// (a duplicated name is written once, with its last value), numbers exactly
// as written, and no HTML escaping.
func (n *Node) AppendJSON(b []byte) []byte {
	switch n.Kind {
	case Null:
		return append(b, "null"...)
	case Bool, Number:
		return append(b, n.Text...)
	case String:
		return appendString(b, n.Text)
	case Array:
		b = append(b, '[')
		for i, it := range n.Items {
			if i > 0 {
				b = append(b, ',')
			}
			b = it.AppendJSON(b)
		}
		return append(b, ']')
	}
	b = append(b, '{')
	// Of duplicate names only the last is written. A large object looks
	// them up in a map, so that writing it stays linear.
	var last map[string]int
	if len(n.Members) > 16 {
		last = make(map[string]int, len(n.Members))
		for i, m := range n.Members {
			last[m.Name] = i
		}
	}
	first := true
	for i, m := range n.Members {
		if last != nil && last[m.Name] != i || last == nil && n.lastIndex(m.Name) != i {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendString(b, m.Name)
		b = append(b, ':')
		b = m.Value.AppendJSON(b)
	}
	return append(b, '}')
}

// lastIndex returns the index of the last member called name.
func (n *Node) lastIndex(name string) int {
	for i := len(n.Members) - 1; i >= 0; i-- {
		if n.Members[i].Name == name {
			return i
		}
	}
	return -1
}

// appendString appends s as a JSON string without HTML escaping.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// MaxDepth is how deeply arrays and objects may nest in a source document.
const MaxDepth = 256

// SyntaxError is a JSON syntax error at a byte offset of the source, or
// (Limit set) a value beyond a bound of this package such as a number's
// exponent.
type SyntaxError struct {
	Offset int
	Msg    string
	Limit  bool // valid JSON, refused by a bound (CheckNumber)
}

// Error returns the message with its byte offset.
func (e *SyntaxError) Error() string { return fmt.Sprintf("offset %d: %s", e.Offset, e.Msg) }

// ParseJSON parses one JSON value (RFC 8259) into a Node tree, keeping the
// byte offset of every value and member name, number literals exactly as
// written and duplicate member names. Text after the value is an error, and so
// is invalid UTF-8 inside a string. A leading UTF-8 byte order mark is
// skipped.
func ParseJSON(data []byte) (*Node, error) { return parseJSON(data, false) }

// parseValues is ParseJSON without the members' name nodes (Member.Key is
// nil): the tree of a document that is decoded and never reported on,
// a third fewer nodes for a descriptor.
func parseValues(data []byte) (*Node, error) { return parseJSON(data, true) }

func parseJSON(data []byte, noKeys bool) (*Node, error) {
	// The stacks sized for a descriptor's deepest objects and arrays.
	p := parser{data: data, noKeys: noKeys, members: make([]Member, 0, 32), items: make([]*Node, 0, 16)}
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		p.i = 3 // a UTF-8 byte order mark, as some editors write
	}
	p.space()
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i < len(p.data) {
		return nil, p.errorf("unexpected %s after the end of the document", p.describe())
	}
	return n, nil
}

type parser struct {
	data []byte
	i    int
	// Nodes are allocated in blocks, and the members and items of the
	// objects and arrays being read are stacked until each closes and gets
	// a slice of its own exact size: a descriptor's tree costs a few
	// allocations a block instead of several a value.
	block   []Node
	members []Member
	items   []*Node
	// noKeys leaves Member.Key nil, for a document that is only decoded
	// (parseValues), never reported on.
	noKeys bool
}

// node returns a pointer to a copy of n, allocated in the current block.
func (p *parser) node(n Node) *Node {
	if len(p.block) == cap(p.block) {
		p.block = make([]Node, 0, 32)
	}
	p.block = append(p.block, n)
	return &p.block[len(p.block)-1]
}

func (p *parser) errorf(format string, args ...any) error {
	return &SyntaxError{Offset: p.i, Msg: fmt.Sprintf(format, args...)}
}

// describe names the byte at the cursor for an error message.
func (p *parser) describe() string {
	if p.i >= len(p.data) {
		return "end of input"
	}
	r, _ := utf8.DecodeRune(p.data[p.i:])
	if r == utf8.RuneError {
		return fmt.Sprintf("byte 0x%02x", p.data[p.i])
	}
	return strconv.QuoteRune(r)
}

func (p *parser) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (*Node, error) {
	if p.i >= len(p.data) {
		return nil, p.errorf("unexpected end of input, expected a value")
	}
	start := p.i
	switch c := p.data[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return p.node(Node{Kind: String, Text: s, Offset: start}), nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		for _, lit := range [...]struct {
			word string
			kind NodeKind
		}{{"true", Bool}, {"false", Bool}, {"null", Null}} {
			if len(p.data)-p.i >= len(lit.word) && string(p.data[p.i:p.i+len(lit.word)]) == lit.word {
				p.i += len(lit.word)
				text := lit.word
				if lit.kind == Null {
					text = ""
				}
				return p.node(Node{Kind: lit.kind, Text: text, Offset: start}), nil
			}
		}
		return nil, p.errorf("unexpected %s, expected a value", p.describe())
	}
}

func (p *parser) object(depth int) (*Node, error) {
	if depth >= MaxDepth {
		return nil, p.errorf("nested more than %d levels deep", MaxDepth)
	}
	n := p.node(Node{Kind: Object, Offset: p.i})
	p.i++ // {
	p.space()
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		return n, nil
	}
	base := len(p.members)
	for {
		if p.i >= len(p.data) || p.data[p.i] != '"' {
			return nil, p.errorf("unexpected %s, expected a member name in double quotes", p.describe())
		}
		keyOff := p.i
		name, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != ':' {
			return nil, p.errorf("unexpected %s, expected ':' after member name %q", p.describe(), name)
		}
		p.i++
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		var key *Node
		if !p.noKeys {
			key = p.node(Node{Kind: String, Text: name, Offset: keyOff})
		}
		p.members = append(p.members, Member{Name: name, Key: key, Value: v})
		p.space()
		if p.i < len(p.data) && p.data[p.i] == ',' {
			p.i++
			p.space()
			continue
		}
		if p.i < len(p.data) && p.data[p.i] == '}' {
			p.i++
			n.Members = slices.Clone(p.members[base:])
			p.members = p.members[:base]
			return n, nil
		}
		return nil, p.errorf("unexpected %s, expected ',' or '}' after object member", p.describe())
	}
}

func (p *parser) array(depth int) (*Node, error) {
	if depth >= MaxDepth {
		return nil, p.errorf("nested more than %d levels deep", MaxDepth)
	}
	n := p.node(Node{Kind: Array, Offset: p.i})
	p.i++ // [
	p.space()
	if p.i < len(p.data) && p.data[p.i] == ']' {
		p.i++
		return n, nil
	}
	base := len(p.items)
	for {
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		p.items = append(p.items, v)
		p.space()
		if p.i < len(p.data) && p.data[p.i] == ',' {
			p.i++
			p.space()
			continue
		}
		if p.i < len(p.data) && p.data[p.i] == ']' {
			p.i++
			n.Items = slices.Clone(p.items[base:])
			p.items = p.items[:base]
			return n, nil
		}
		return nil, p.errorf("unexpected %s, expected ',' or ']' after array element", p.describe())
	}
}

func (p *parser) number() (*Node, error) {
	start := p.i
	d := p.data
	if d[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(d) && d[p.i] == '0':
		p.i++
	case p.i < len(d) && d[p.i] >= '1' && d[p.i] <= '9':
		for p.i < len(d) && d[p.i] >= '0' && d[p.i] <= '9' {
			p.i++
		}
	default:
		return nil, p.errorf("invalid number: expected a digit, got %s", p.describe())
	}
	if p.i < len(d) && d[p.i] == '.' {
		p.i++
		if p.i >= len(d) || d[p.i] < '0' || d[p.i] > '9' {
			return nil, p.errorf("invalid number: expected a digit after '.', got %s", p.describe())
		}
		for p.i < len(d) && d[p.i] >= '0' && d[p.i] <= '9' {
			p.i++
		}
	}
	if p.i < len(d) && (d[p.i] == 'e' || d[p.i] == 'E') {
		p.i++
		if p.i < len(d) && (d[p.i] == '+' || d[p.i] == '-') {
			p.i++
		}
		if p.i >= len(d) || d[p.i] < '0' || d[p.i] > '9' {
			return nil, p.errorf("invalid number: expected a digit in the exponent, got %s", p.describe())
		}
		for p.i < len(d) && d[p.i] >= '0' && d[p.i] <= '9' {
			p.i++
		}
	}
	text := string(d[start:p.i])
	if err := CheckNumber(text); err != nil {
		return nil, &SyntaxError{Offset: start, Msg: err.Error(), Limit: true}
	}
	return p.node(Node{Kind: Number, Text: text, Offset: start}), nil
}

// commonStrings are the member names and values that nearly every
// descriptor and schema repeats: str gives each of them one string for
// all documents instead of a copy each. They are found by commonString in
// a table of 256 short lists, indexed by commonSlot (a map lookup hashed
// every short string of a document, a quarter of str's time).
var commonStrings = func() *[256][]string {
	t := new([256][]string)
	for _, s := range strings.Fields(`protocol version id name capability_type description provider url email
		endpoint method inputs output auth type access tags examples documentation_url title
		in token_url authorization_url scopes instructions $schema
		plugin api knowledge task public restricted private api_key oauth2 custom none header query
		GET POST PUT PATCH DELETE 1.0.0
		properties required additionalProperties items enum const default minimum maximum
		exclusiveMinimum exclusiveMaximum minLength maxLength minItems maxItems pattern format
		object string integer number boolean array null $ref $defs anyOf oneOf allOf not
		date-time date uri`) {
		i := commonSlot([]byte(s))
		t[i] = append(t[i], s)
	}
	return t
}()

// maxCommonString is the length of the longest of commonStrings.
const maxCommonString = len("additionalProperties")

// commonSlot is the index in commonStrings of the list that holds s, if
// any list does; s is not empty.
func commonSlot(s []byte) uint8 {
	return uint8(len(s)*7 + int(s[0])*3 + int(s[len(s)-1]))
}

// commonString returns the one string of commonStrings equal to s, or
// false.
func commonString(s []byte) (string, bool) {
	if len(s) == 0 || len(s) > maxCommonString {
		return "", false
	}
	for _, c := range commonStrings[commonSlot(s)] {
		if c == string(s) {
			return c, true
		}
	}
	return "", false
}

// str parses a JSON string at the cursor and returns its value.
func (p *parser) str() (string, error) {
	p.i++ // opening quote
	start := p.i
	d := p.data
	// Fast path: no escapes.
	for p.i < len(d) {
		c := d[p.i]
		if c == '"' {
			s := d[start:p.i]
			if !utf8.Valid(s) {
				return "", p.invalidUTF8(start)
			}
			p.i++
			if c, ok := commonString(s); ok {
				return c, nil
			}
			return string(s), nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
		p.i++
	}
	// Escapes only shorten the text, so the value is at most as long as
	// the text up to the next quote, unless an escaped quote comes first;
	// a Builder of that size makes it in one allocation.
	var buf strings.Builder
	if end := bytes.IndexByte(d[p.i:], '"'); end >= 0 {
		buf.Grow(p.i - start + end)
	}
	buf.Write(d[start:p.i])
	for p.i < len(d) {
		c := d[p.i]
		switch {
		case c == '"':
			v := buf.String()
			if !utf8.ValidString(v) {
				return "", p.invalidUTF8(start)
			}
			p.i++
			return v, nil
		case c < 0x20:
			return "", p.errorf("control character 0x%02x in string: write it as an escape such as \\n", c)
		case c == '\\':
			p.i++
			if p.i >= len(d) {
				return "", p.errorf("unexpected end of input in string escape")
			}
			e := d[p.i]
			p.i++
			switch e {
			case '"', '\\', '/':
				buf.WriteByte(e)
			case 'b':
				buf.WriteByte('\b')
			case 'f':
				buf.WriteByte('\f')
			case 'n':
				buf.WriteByte('\n')
			case 'r':
				buf.WriteByte('\r')
			case 't':
				buf.WriteByte('\t')
			case 'u':
				esc := p.i - 2 // the backslash: surrogate errors point at the escape
				r, err := p.hex4()
				if err != nil {
					return "", err
				}
				if r >= 0xD800 && r < 0xDC00 {
					// A high surrogate must be followed by a low one.
					if p.i+1 < len(d) && d[p.i] == '\\' && d[p.i+1] == 'u' {
						p.i += 2
						r2, err := p.hex4()
						if err != nil {
							return "", err
						}
						if r2 >= 0xDC00 && r2 < 0xE000 {
							r = (r-0xD800)<<10 | (r2 - 0xDC00) + 0x10000
						} else {
							return "", &SyntaxError{Offset: esc, Msg: "invalid surrogate pair in string escape"}
						}
					} else {
						return "", &SyntaxError{Offset: esc, Msg: fmt.Sprintf("lone surrogate \\u%04x in string escape", r)}
					}
				} else if r >= 0xDC00 && r < 0xE000 {
					return "", &SyntaxError{Offset: esc, Msg: fmt.Sprintf("lone surrogate \\u%04x in string escape", r)}
				}
				buf.WriteRune(rune(r))
			default:
				p.i--
				return "", p.errorf("invalid escape \\%c in string", e)
			}
		default:
			// The run of bytes up to the next quote, escape or control
			// character, at once.
			j := p.i + 1
			for j < len(d) && d[j] != '"' && d[j] != '\\' && d[j] >= 0x20 {
				j++
			}
			buf.Write(d[p.i:j])
			p.i = j
		}
	}
	return "", &SyntaxError{Offset: start - 1, Msg: "string is never closed: missing '\"'"}
}

func (p *parser) hex4() (int, error) {
	if p.i+4 > len(p.data) {
		return 0, p.errorf("unexpected end of input in \\u escape")
	}
	v, err := strconv.ParseUint(string(p.data[p.i:p.i+4]), 16, 32)
	if err != nil {
		return 0, p.errorf("invalid \\u escape: %q is not four hex digits", p.data[p.i:p.i+4])
	}
	p.i += 4
	return int(v), nil
}

func (p *parser) invalidUTF8(start int) error {
	for i := start; i < len(p.data); {
		r, size := utf8.DecodeRune(p.data[i:])
		if r == utf8.RuneError && size <= 1 {
			return &SyntaxError{Offset: i, Msg: "invalid UTF-8 in string"}
		}
		i += size
	}
	return &SyntaxError{Offset: start, Msg: "invalid UTF-8 in string"}
}
