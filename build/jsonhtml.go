package build

import (
	"encoding/json"
	"html/template"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
	"github.com/yuin/goldmark/util"
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

// isPlainJSON reports whether code is one JSON text in valid UTF-8 with no
// carriage return: text that highlightJSONCode writes as chroma would.
// (Chroma reads its input as runes, so invalid UTF-8 would come out as
// U+FFFD, and it turns "\r\n" into "\n" first.)
func isPlainJSON(code string) bool {
	return strings.IndexByte(code, '\r') < 0 && utf8.ValidString(code) && json.Valid([]byte(code))
}

// JSON token kinds of chroma's JSON lexer, with their CSS classes.
var (
	jsonTextClass   = tokenClass(chroma.Text)
	jsonPunctClass  = tokenClass(chroma.Punctuation)
	jsonKeyClass    = tokenClass(chroma.NameTag)
	jsonStringClass = tokenClass(chroma.LiteralStringDouble)
	jsonIntClass    = tokenClass(chroma.LiteralNumberInteger)
	jsonFloatClass  = tokenClass(chroma.LiteralNumberFloat)
	jsonConstClass  = tokenClass(chroma.KeywordConstant)
)

// highlightJSONCode writes a fenced block of JSON (isPlainJSON) as
// highlightCode does with chroma's JSON lexer, in one pass and without
// regular expressions. On a valid JSON text that lexer's rules give: runs
// of white space as Text, a string followed by ':' as NameTag and any other
// as LiteralStringDouble, numbers with a fraction or exponent as
// LiteralNumberFloat and others as LiteralNumberInteger, true/false/null
// as KeywordConstant, and each of {}[],: as Punctuation; chroma.Coalesce
// then joins a token to the one before it when both have the same type and
// the first is shorter than 8192 bytes. TestJSONCodeIsChroma holds the two
// to the same bytes.
func highlightJSONCode(code string) string {
	out := make([]byte, 0, len(code)*3)
	var class string // the pending token, code[start:end], and its type
	start, end, typ := 0, 0, -1
	flush := func() {
		if typ < 0 {
			return
		}
		if class != "" {
			out = append(out, `<span class="`...)
			out = append(out, class...)
			out = append(out, `">`...)
		}
		out = appendCodeHTML(out, code[start:end])
		if class != "" {
			out = append(out, "</span>"...)
		}
	}
	emit := func(cls string, t, to int) {
		if t == typ && end-start < 8192 {
			end = to
			return
		}
		flush()
		class, start, end, typ = cls, end, to, t
	}
	for i := 0; i < len(code); {
		c := code[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			j := i + 1
			for j < len(code) && (code[j] == ' ' || code[j] == '\t' || code[j] == '\n') {
				j++
			}
			emit(jsonTextClass, 0, j)
			i = j
		case c == '"':
			j := i + 1
			for code[j] != '"' {
				if code[j] == '\\' {
					j++
				}
				j++
			}
			j++
			k := j
			for k < len(code) && (code[k] == ' ' || code[k] == '\t' || code[k] == '\n') {
				k++
			}
			if k < len(code) && code[k] == ':' {
				emit(jsonKeyClass, 1, j)
			} else {
				emit(jsonStringClass, 2, j)
			}
			i = j
		case c == '-' || ('0' <= c && c <= '9'):
			j, float := i+1, false
			for j < len(code) && strings.IndexByte("0123456789.eE+-", code[j]) >= 0 {
				float = float || code[j] == '.' || code[j] == 'e' || code[j] == 'E'
				j++
			}
			if float {
				emit(jsonFloatClass, 3, j)
			} else {
				emit(jsonIntClass, 4, j)
			}
			i = j
		case c == 't' || c == 'f' || c == 'n':
			j := i + 1
			for j < len(code) && 'a' <= code[j] && code[j] <= 'z' {
				j++
			}
			emit(jsonConstClass, 5, j)
			i = j
		default: // one of {}[],:
			emit(jsonPunctClass, 6, i+1)
			i++
		}
	}
	flush()
	return string(out)
}

// appendCodeHTML appends s escaped as goldmark's util.EscapeHTML escapes
// text.
func appendCodeHTML(out []byte, s string) []byte {
	from := 0
	for i := 0; i < len(s); i++ {
		if esc := util.EscapeHTMLByte(s[i]); esc != nil {
			out = append(out, s[from:i]...)
			out = append(out, esc...)
			from = i + 1
		}
	}
	return append(out, s[from:]...)
}
