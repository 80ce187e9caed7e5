package build

import (
	"html/template"
	"strings"
)

// highlightJSONText marks up valid JSON for display with the same classes
// chroma's JSON lexer uses (so highlight.css styles it): nt for member
// names, s2 for strings, mi and mf for numbers, kc for true, false and null,
// p for punctuation. It is a single pass over the bytes, deterministic and
// about a hundred times cheaper than a regular-expression lexer; anything it
// does not expect is written out escaped, unstyled.
func highlightJSONText(data string) template.HTML {
	var b strings.Builder
	b.Grow(len(data) * 2)
	span := func(class, text string) {
		b.WriteString(`<span class="`)
		b.WriteString(class)
		b.WriteString(`">`)
		template.HTMLEscape(&b, []byte(text))
		b.WriteString("</span>")
	}
	for i := 0; i < len(data); {
		c := data[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(data) && data[j] != '"' {
				if data[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(data))
			k := j
			for k < len(data) && (data[k] == ' ' || data[k] == '\n' || data[k] == '\t' || data[k] == '\r') {
				k++
			}
			if k < len(data) && data[k] == ':' {
				span("nt", data[i:j])
			} else {
				span("s2", data[i:j])
			}
			i = j
		case c == '-' || (c >= '0' && c <= '9'):
			j := i + 1
			float := false
			for j < len(data) && strings.IndexByte("0123456789.eE+-", data[j]) >= 0 {
				if data[j] == '.' || data[j] == 'e' || data[j] == 'E' {
					float = true
				}
				j++
			}
			if float {
				span("mf", data[i:j])
			} else {
				span("mi", data[i:j])
			}
			i = j
		case c == 't' || c == 'f' || c == 'n':
			j := i
			for j < len(data) && data[j] >= 'a' && data[j] <= 'z' {
				j++
			}
			span("kc", data[i:j])
			i = j
		case strings.IndexByte("{}[],:", c) >= 0:
			span("p", data[i:i+1])
			i++
		default:
			j := i
			for j < len(data) && strings.IndexByte("\"-0123456789tfn{}[],:", data[j]) < 0 {
				j++
			}
			if j == i {
				j++
			}
			template.HTMLEscape(&b, []byte(data[i:j]))
			i = j
		}
	}
	return template.HTML(b.String())
}
