package skillcat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
)

// Extra holds the members of an object that its Go type does not name, as
// raw JSON, so that they are written back unchanged: a member added by a newer
// 1.x minor or an x- extension survives a round trip.
type Extra map[string]json.RawMessage

// The codec maps protocol documents onto Go structs. A struct field with a
// json tag is a known member, written in field order and omitted when it is
// an empty string or a nil slice, map, pointer or RawMessage (non-nil empty
// values are written, so "tags": [] survives), unless its tag has the option
// skillcat:"keepempty": a required member whose value may be empty (an index entry's
// summary) is always written. The field of type Extra holds the rest,
// written after the known members sorted by name.

var (
	extraType = reflect.TypeFor[Extra]()
	rawType   = reflect.TypeFor[json.RawMessage]()
)

type structField struct {
	name  string
	index int
	keep  bool // written even when empty (struct tag skillcat:"keepempty")
}

type structInfo struct {
	fields []structField
	byName map[string]int // member name → field index
	extra  int            // index of the Extra field, or -1
}

var structInfos sync.Map // reflect.Type → *structInfo

func infoOf(t reflect.Type) *structInfo {
	if si, ok := structInfos.Load(t); ok {
		return si.(*structInfo)
	}
	si := &structInfo{byName: map[string]int{}, extra: -1}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Type == extraType {
			si.extra = i
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		si.fields = append(si.fields, structField{name, i, f.Tag.Get("skillcat") == "keepempty"})
		si.byName[name] = i
	}
	structInfos.Store(t, si)
	return si
}

// encode returns v (a pointer to or value of a document struct) as indented
// JSON with a final newline.
func encode(v any) ([]byte, error) {
	b := compactBufs.Get().(*[]byte)
	compact, err := appendValue((*b)[:0], reflect.ValueOf(v))
	var out []byte
	if err == nil {
		out = appendIndented(make([]byte, 0, len(compact)*3/2+1), compact)
		out = append(out, '\n')
	}
	putCompactBuf(b, compact)
	return out, err
}

// compactBufs holds the buffers encode writes the compact form into
// before indenting it, so that it allocates only its answer (grown by
// doubling from nothing, they were most of an encoding's allocation), and
// those decodeValue writes a raw member into.
var compactBufs = sync.Pool{New: func() any { return new([]byte) }}

// maxCompactBuf is the largest buffer kept for the next encode.
const maxCompactBuf = 1 << 20

// putCompactBuf gives b back to compactBufs holding used, what was written
// into it (and may have grown it), unless used outgrew maxCompactBuf.
func putCompactBuf(b *[]byte, used []byte) {
	if cap(used) <= maxCompactBuf {
		*b = used[:0]
		compactBufs.Put(b)
	}
}

// appendIndented appends src, compact JSON as appendValue writes it (no
// white space outside strings), indented as json.Indent(dst, src, "", "  ")
// indents it: a line per member and element, "{}" and "[]" kept on one line,
// a space after each colon. Unlike json.Indent it does not check src again.
func appendIndented(dst, src []byte) []byte {
	depth := 0
	newline := func() {
		dst = append(dst, '\n')
		for d := depth; d > 0; {
			n := min(d, len(indentSpaces)/2)
			dst = append(dst, indentSpaces[:2*n]...)
			d -= n
		}
	}
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '"':
			// The string's bytes up to the closing quote, in runs between
			// backslashes (each escapes the byte after it).
			j := i + 1
			for j < len(src) {
				q := bytes.IndexByte(src[j:], '"')
				if q < 0 {
					q = len(src) - j
				}
				b := bytes.IndexByte(src[j:j+q], '\\')
				if b < 0 {
					j += q
					break
				}
				j += b + 2
			}
			dst = append(dst, src[i:min(j+1, len(src))]...)
			i = j
		case '{', '[':
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				dst = append(dst, c, src[i+1])
				i++
				continue
			}
			dst = append(dst, c)
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			newline()
		case ':':
			dst = append(dst, ':', ' ')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// indentSpaces is white space for appendIndented's indents.
const indentSpaces = "                                "

// isCompactJSON reports whether raw is one JSON value, as json.Compact
// reads JSON, with no white space outside its strings: json.Compact gives
// such a value back unchanged, so appendValue appends it as it is instead
// of running encoding/json's scanner over it (the raw members of a decoded
// descriptor, which AppendJSON wrote, always are such values). It declines
// anything else, valid or not, and a value nested deeper than
// maxCompactDepth; json.Compact then reads it. FuzzIsCompactJSON holds it
// to json.Compact.
func isCompactJSON(raw []byte) bool {
	i, ok := compactValue(raw, 0, 0)
	return ok && i == len(raw)
}

// IndentJSON appends src to dst indented as json.Indent(dst, src, "", "  ")
// indents it, and returns json.Indent's error. A compact value (as
// AppendJSON and the encoders write JSON) is indented without running
// encoding/json's scanner over it again.
func IndentJSON(dst *bytes.Buffer, src []byte) error {
	if isCompactJSON(src) {
		dst.Write(appendIndented(dst.AvailableBuffer(), src))
		return nil
	}
	return json.Indent(dst, src, "", "  ")
}

// maxCompactDepth is the deepest nesting isCompactJSON reads
// (json.Compact's own limit is 10,000).
const maxCompactDepth = 512

// compactValue reads the value at raw[i:] and returns the offset after
// it, or false.
func compactValue(raw []byte, i, depth int) (int, bool) {
	if i >= len(raw) {
		return i, false
	}
	ok := false
	switch c := raw[i]; {
	case c == '{' || c == '[':
		if depth >= maxCompactDepth {
			return i, false
		}
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		if i++; i < len(raw) && raw[i] == end {
			return i + 1, true
		}
		for {
			if c == '{' {
				if i >= len(raw) || raw[i] != '"' {
					return i, false
				}
				if i, ok = compactString(raw, i); !ok || i >= len(raw) || raw[i] != ':' {
					return i, false
				}
				i++
			}
			if i, ok = compactValue(raw, i, depth+1); !ok || i >= len(raw) {
				return i, false
			}
			switch raw[i] {
			case ',':
				i++
			case end:
				return i + 1, true
			default:
				return i, false
			}
		}
	case c == '"':
		return compactString(raw, i)
	case c == '-' || c >= '0' && c <= '9':
		return compactNumber(raw, i)
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if len(raw)-i >= len(lit) && string(raw[i:i+len(lit)]) == lit {
			return i + len(lit), true
		}
	}
	return i, false
}

// compactString reads the string whose opening quote is at raw[i] and
// returns the offset after its closing quote, or false. Like json.Compact
// it takes any byte but a control character unescaped, UTF-8 or not.
func compactString(raw []byte, i int) (int, bool) {
	for i++; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		case c == '\\':
			if i++; i >= len(raw) {
				return i, false
			}
			switch raw[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(raw)-i < 5 {
					return i, false
				}
				for _, h := range raw[i+1 : i+5] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return i, false
					}
				}
				i += 4
			default:
				return i, false
			}
		}
	}
	return i, false
}

// compactNumber reads the number at raw[i:] (-?(0|[1-9][0-9]*)(.[0-9]+)?
// ([eE][+-]?[0-9]+)?) and returns the offset after it, or false.
func compactNumber(raw []byte, i int) (int, bool) {
	digits := func() bool {
		start := i
		for i < len(raw) && raw[i] >= '0' && raw[i] <= '9' {
			i++
		}
		return i > start
	}
	if raw[i] == '-' {
		i++
	}
	switch {
	case i < len(raw) && raw[i] == '0':
		i++
	case !digits():
		return i, false
	}
	if i < len(raw) && raw[i] == '.' {
		if i++; !digits() {
			return i, false
		}
	}
	if i < len(raw) && (raw[i] == 'e' || raw[i] == 'E') {
		if i++; i < len(raw) && (raw[i] == '+' || raw[i] == '-') {
			i++
		}
		if !digits() {
			return i, false
		}
	}
	return i, true
}

// marshalCompact returns v as compact JSON, for MarshalJSON methods.
func marshalCompact(v any) ([]byte, error) { return appendValue(nil, reflect.ValueOf(v)) }

func omit(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		return v.Len() == 0
	case reflect.Slice, reflect.Map, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

func appendValue(b []byte, v reflect.Value) ([]byte, error) {
	if v.Type() == rawType {
		raw := v.Bytes()
		if len(raw) == 0 {
			return append(b, "null"...), nil
		}
		if isCompactJSON(raw) {
			return append(b, raw...), nil // what json.Compact would give
		}
		buf := bytes.NewBuffer(b)
		if err := json.Compact(buf, raw); err != nil {
			return nil, fmt.Errorf("invalid raw JSON: %w", err)
		}
		return buf.Bytes(), nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return append(b, "null"...), nil
		}
		return appendValue(b, v.Elem())
	case reflect.String:
		return appendString(b, v.String()), nil
	case reflect.Slice:
		b = append(b, '[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendValue(b, v.Index(i)); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case reflect.Map:
		keys := make([]string, 0, v.Len())
		for _, k := range v.MapKeys() {
			keys = append(keys, k.String())
		}
		sort.Strings(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			var err error
			if b, err = appendValue(b, v.MapIndex(reflect.ValueOf(k).Convert(v.Type().Key()))); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case reflect.Struct:
		return appendStruct(b, v)
	}
	return nil, fmt.Errorf("cannot encode %s", v.Type())
}

func appendStruct(b []byte, v reflect.Value) ([]byte, error) {
	si := infoOf(v.Type())
	b = append(b, '{')
	first := true
	member := func(name string) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendString(b, name)
		b = append(b, ':')
	}
	var err error
	for _, f := range si.fields {
		fv := v.Field(f.index)
		if !f.keep && omit(fv) {
			continue
		}
		member(f.name)
		if b, err = appendValue(b, fv); err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
	}
	if si.extra >= 0 {
		extra := v.Field(si.extra).Interface().(Extra)
		names := make([]string, 0, len(extra))
		for name := range extra {
			if _, known := si.byName[name]; !known {
				names = append(names, name)
			}
		}
		sort.Strings(names)
		for _, name := range names {
			member(name)
			if b, err = appendValue(b, reflect.ValueOf(extra[name])); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
	}
	return append(b, '}'), nil
}

// decodeNode fills v (a pointer to a document struct) from n. It checks JSON
// types only; the schemas check everything else.
func decodeNode(n *Node, v any) error {
	return decodeValue(n, reflect.ValueOf(v).Elem(), make(Path, 0, 8))
}

// unmarshal parses data and decodes it into v, for UnmarshalJSON methods.
func unmarshal(data []byte, v any) error {
	n, err := parseValues(data) // decodeValue reads no member's name node
	if err != nil {
		return err
	}
	return decodeNode(n, v)
}

// decodeValue fills v from n, found at path in its document. The paths of
// n's parts are path with a step appended in place, sharing its backing
// array (siblings overwrite one another's step): a path is only read to
// phrase an error, never kept, so a decode allocates none.
func decodeValue(n *Node, v reflect.Value, path Path) error {
	wrong := func(want string) error {
		return fmt.Errorf("%s: must be %s; got %s", path.Field(), want, n.Kind)
	}
	if v.Type() == rawType {
		// Written into a pooled buffer and copied at its size: grown by
		// doubling from nothing, a schema took eight allocations.
		b := compactBufs.Get().(*[]byte)
		raw := n.AppendJSON((*b)[:0])
		v.SetBytes(bytes.Clone(raw))
		putCompactBuf(b, raw)
		return nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		if n.Kind == Null {
			return nil
		}
		v.Set(reflect.New(v.Type().Elem()))
		return decodeValue(n, v.Elem(), path)
	case reflect.String:
		if n.Kind != String {
			return wrong("a string")
		}
		v.SetString(n.Text)
	case reflect.Slice:
		if n.Kind != Array {
			return wrong("an array")
		}
		s := reflect.MakeSlice(v.Type(), len(n.Items), len(n.Items))
		for i, it := range n.Items {
			if err := decodeValue(it, s.Index(i), path.stepItem(i)); err != nil {
				return err
			}
		}
		v.Set(s)
	case reflect.Map:
		if n.Kind != Object {
			return wrong("an object")
		}
		m := reflect.MakeMapWithSize(v.Type(), len(n.Members))
		for _, mem := range n.Members {
			e := reflect.New(v.Type().Elem()).Elem()
			if err := decodeValue(mem.Value, e, path.stepMember(mem.Name)); err != nil {
				return err
			}
			m.SetMapIndex(reflect.ValueOf(mem.Name).Convert(v.Type().Key()), e)
		}
		v.Set(m)
	case reflect.Struct:
		if n.Kind != Object {
			return wrong("an object")
		}
		si := infoOf(v.Type())
		var extra Extra
		for _, mem := range n.Members {
			if i, ok := si.byName[mem.Name]; ok {
				if err := decodeValue(mem.Value, v.Field(i), path.stepMember(mem.Name)); err != nil {
					return err
				}
				continue
			}
			if si.extra >= 0 {
				if extra == nil {
					extra = Extra{}
				}
				extra[mem.Name] = mem.Value.AppendJSON(nil)
			}
		}
		if si.extra >= 0 {
			v.Field(si.extra).Set(reflect.ValueOf(extra))
		}
	default:
		return fmt.Errorf("cannot decode into %s", v.Type())
	}
	return nil
}
