package synth

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// object is a JSON object whose members keep the order they were added in, so
// generated files read like hand-written ones and are byte-stable.
type object []member

type member struct {
	key string
	val any // string, int, float64, bool, object, []any or []string
}

func (o *object) add(key string, val any) { *o = append(*o, member{key, val}) }

// appendJSON appends v as indented JSON (two spaces), without a final newline.
func appendJSON(b []byte, v any, indent int) []byte {
	switch v := v.(type) {
	case object:
		if len(v) == 0 {
			return append(b, "{}"...)
		}
		b = append(b, '{')
		for i, m := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = newline(b, indent+2)
			b = appendJSONString(b, m.key)
			b = append(b, ": "...)
			b = appendJSON(b, m.val, indent+2)
		}
		b = newline(b, indent)
		return append(b, '}')
	case []any:
		if len(v) == 0 {
			return append(b, "[]"...)
		}
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = newline(b, indent+2)
			b = appendJSON(b, e, indent+2)
		}
		b = newline(b, indent)
		return append(b, ']')
	case []string:
		// Short string lists (tags, enums, required) stay on one line.
		b = append(b, '[')
		for i, s := range v {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendJSONString(b, s)
		}
		return append(b, ']')
	default:
		return appendScalar(b, v)
	}
}

func newline(b []byte, indent int) []byte {
	b = append(b, '\n')
	for range indent {
		b = append(b, ' ')
	}
	return b
}

func appendScalar(b []byte, v any) []byte {
	switch v := v.(type) {
	case string:
		return appendJSONString(b, v)
	case int:
		return strconv.AppendInt(b, int64(v), 10)
	case float64:
		return strconv.AppendFloat(b, v, 'f', -1, 64)
	case bool:
		return strconv.AppendBool(b, v)
	case nil:
		return append(b, "null"...)
	}
	panic("synth: unsupported value type")
}

// appendJSONString appends s as a JSON string. Its escapes are also valid in a
// YAML double-quoted scalar, so the YAML writer uses it for strings that cannot
// be written plain.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue // UTF-8 sequences pass through unchanged
		}
		b = append(b, s[start:i]...)
		start = i + 1
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\t':
			b = append(b, '\\', 't')
		case '\r':
			b = append(b, '\\', 'r')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendYAML appends the members of o as block-style YAML, each line indented
// by indent spaces. When inline is true the first member follows a "- " that
// the caller has already written.
func appendYAML(b []byte, o object, indent int, inline bool) []byte {
	for i, m := range o {
		if i > 0 || !inline {
			b = pad(b, indent)
		}
		b = appendYAMLKey(b, m.key)
		b = append(b, ':')
		b = appendYAMLValue(b, m.val, indent)
	}
	return b
}

// appendYAMLValue appends the value of a mapping member whose key (and colon)
// is already written at indent.
func appendYAMLValue(b []byte, v any, indent int) []byte {
	switch v := v.(type) {
	case object:
		if len(v) == 0 {
			return append(b, " {}\n"...)
		}
		b = append(b, '\n')
		return appendYAML(b, v, indent+2, false)
	case []string:
		if len(v) == 0 {
			return append(b, " []\n"...)
		}
		b = append(b, '\n')
		for _, s := range v {
			b = pad(b, indent+2)
			b = append(b, "- "...)
			b = appendYAMLScalar(b, s)
			b = append(b, '\n')
		}
		return b
	case []any:
		if len(v) == 0 {
			return append(b, " []\n"...)
		}
		b = append(b, '\n')
		for _, e := range v {
			b = pad(b, indent+2)
			b = append(b, "- "...)
			switch e := e.(type) {
			case object:
				b = appendYAML(b, e, indent+4, true)
			default:
				b = appendYAMLScalar(b, e)
				b = append(b, '\n')
			}
		}
		return b
	default:
		b = append(b, ' ')
		b = appendYAMLScalar(b, v)
		return append(b, '\n')
	}
}

func pad(b []byte, n int) []byte {
	for range n {
		b = append(b, ' ')
	}
	return b
}

func appendYAMLKey(b []byte, k string) []byte {
	if plainKey(k) {
		return append(b, k...)
	}
	return appendJSONString(b, k)
}

func appendYAMLScalar(b []byte, v any) []byte {
	if s, ok := v.(string); ok && plainString(s) {
		return append(b, s...)
	}
	return appendScalar(b, v)
}

func plainKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$' ||
			i > 0 && (c >= '0' && c <= '9' || c == '-')) {
			return false
		}
	}
	return !yamlKeyword(k)
}

// plainString reports whether s reads back as the same string when written as
// a plain YAML scalar. It is deliberately conservative: anything unusual is
// quoted instead.
func plainString(s string) bool {
	if s == "" || s[len(s)-1] == ' ' || s[len(s)-1] == ':' || yamlKeyword(s) {
		return false
	}
	c := s[0]
	if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
		return false
	}
	if strings.Contains(s, ": ") || strings.Contains(s, " #") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			strings.IndexByte(" ._/@:-()", c) >= 0 || c >= utf8.RuneSelf) {
			return false
		}
	}
	return true
}

// yamlKeyword reports words that a YAML 1.1 reader would turn into a boolean
// or null.
func yamlKeyword(s string) bool {
	if len(s) > 5 {
		return false
	}
	switch strings.ToLower(s) {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null", "~":
		return true
	}
	return false
}
