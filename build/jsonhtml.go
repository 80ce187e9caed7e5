package build

import (
	"encoding/json"
	"html/template"
	"io/fs"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
	"github.com/yuin/goldmark/util"
)

// highlightJSONText marks up valid JSON for display with the same classes
// chroma's JSON lexer uses (so highlight.css styles it): nt for member
// names, s2 for strings, mi and mf for numbers, kc for true, false and null,
// and punct for punctuation (see punctClass). It is a single pass over the
// bytes, deterministic and about a hundred times cheaper than a
// regular-expression lexer; anything it does not expect is written out
// escaped, unstyled.
func highlightJSONText(data, punct string) template.HTML {
	b := scratch()
	return template.HTML(done(b, appendHighlightJSON(*b, data, punct)))
}

// punctClass is the class the one-pass highlighters give JSON's
// punctuation on a site whose templates are fsys: chroma's "p" when a
// style sheet or template of the site names that class, or styles the
// spans in code whatever their class, else "", none. The built-in
// highlight.css colours no punctuation, and the marks were a fifth of a
// skill page's bytes.
func punctClass(fsys fs.FS) string {
	named := false
	fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || named || d.IsDir() || !strings.HasSuffix(name, ".css") && !strings.HasSuffix(name, ".html") && !strings.HasSuffix(name, ".js") {
			return nil
		}
		data, err := fs.ReadFile(fsys, name)
		named = err != nil || punctSelector.Match(data) || codeSpanSelector.Match(data)
		return nil
	})
	if named {
		return "p"
	}
	return ""
}

// punctSelector matches the class selector .p, alone or after an element
// (span.p), not .pre, .p-1 or a number; a script's o.p, or a comment,
// keeps the marks too.
var punctSelector = regexp.MustCompile(`(^|[^0-9])\.p($|[^0-9A-Za-z_-])`)

// codeSpanSelector matches a selector of spans in code (.chroma span,
// pre code span), which styled the punctuation's spans too; "span 4" in
// a declaration is no selector.
var codeSpanSelector = regexp.MustCompile(`(\bpre|\bcode|\.chroma)\b[^{};]*\bspan\b[^{};]*\{`)

// appendHighlightJSON appends highlightJSONText(data, punct) to out.
func appendHighlightJSON(out []byte, data, punct string) []byte {
	for i := 0; i < len(data); {
		c := data[i]
		switch {
		case c == '"':
			out, i = appendJSONString(out, data, i)
		case c == '-' || (c >= '0' && c <= '9'):
			out, i = appendJSONNumber(out, data, i)
		case c == 't' || c == 'f' || c == 'n':
			j := i
			for j < len(data) && data[j] >= 'a' && data[j] <= 'z' {
				j++
			}
			out = appendJSONSpan(out, "kc", data[i:j])
			i = j
		case strings.IndexByte("{}[],:", c) >= 0:
			out = appendJSONSpan(out, punct, data[i:i+1])
			i++
		default:
			j := i
			for j < len(data) && strings.IndexByte("\"-0123456789tfn{}[],:", data[j]) < 0 {
				j++
			}
			if j == i {
				j++
			}
			out = appendTemplateHTML(out, data[i:j])
			i = j
		}
	}
	return out
}

// scratches holds the buffers the one-pass highlighters write into, so
// that each allocates only its answer, of its size: markup makes JSON
// several times longer (a '{' becomes a 24-byte span), which a buffer
// sized from the text grew into by doubling, then was copied to a string.
// A skill's SKILL.md and its instructions are made in them too, each
// written out (to its file, or the eager run's spill) before its buffer
// goes back: 9,000 skills then make no 75 MB of them.
var scratches = sync.Pool{New: func() any { return new([]byte) }}

// maxScratch is the largest buffer kept for the next use.
const maxScratch = 1 << 20

// scratch is a buffer from scratches, emptied; release gives it back
// holding out, what was last written into it (its room may have grown),
// and done returns out as a string and releases the buffer.
func scratch() *[]byte {
	b := scratches.Get().(*[]byte)
	*b = (*b)[:0]
	return b
}

func release(b *[]byte, out []byte) {
	if cap(out) <= maxScratch {
		*b = out[:0]
		scratches.Put(b)
	}
}

func done(b *[]byte, out []byte) string {
	s := string(out)
	release(b, out)
	return s
}

// appendJSONSpan appends text as a span of class, as highlightJSONText
// marks a token up, or as plain text when class is "".
func appendJSONSpan(out []byte, class, text string) []byte {
	if class == "" {
		return appendTemplateHTML(out, text)
	}
	out = append(out, `<span class="`...)
	out = append(out, class...)
	out = append(out, `">`...)
	out = appendTemplateHTML(out, text)
	return append(out, "</span>"...)
}

// appendTemplateHTML appends s escaped as template.HTMLEscape escapes it.
func appendTemplateHTML(out []byte, s string) []byte { return appendEscaped(out, s, false) }

// appendEscaped appends s with NUL, quotes, '&', '<' and '>' escaped as
// html/template escapes them, and '+' too when plus is set (its
// htmlEscaper does; template.HTMLEscape does not). Runs of bytes that need
// no escape are skipped by a table (escaped), not a switch per byte: the
// skill pages' text goes through here, some 60 ms of a cold build's CPU
// at 10,000 skills.
func appendEscaped(out []byte, s string, plus bool) []byte {
	from := 0
	for i := 0; i < len(s); i++ {
		k := escaped[s[i]]
		if k == 0 || k == escPlus && !plus {
			continue
		}
		out = append(out, s[from:i]...)
		out = append(out, escapes[k]...)
		from = i + 1
	}
	return append(out, s[from:]...)
}

// escaped numbers the bytes appendEscaped escapes (0 for any other), and
// escapes holds what it writes for each number.
var (
	escaped = [256]uint8{0: 1, '"': 2, '\'': 3, '&': 4, '<': 5, '>': 6, '+': escPlus}
	escapes = [...]string{1: "\uFFFD", 2: "&#34;", 3: "&#39;", 4: "&amp;", 5: "&lt;", 6: "&gt;", escPlus: "&#43;"}
)

// escPlus is the number of '+' in escaped.
const escPlus = 7

// highlightIndented returns valid JSON text as highlightJSONText marks up
// its json.Indent form (no prefix, two spaces, no trailing newline), in
// one pass: what schema pages show. The JSON must be valid and end with
// no white space (json.Indent keeps trailing white space);
// TestHighlightIndentedIsIndent holds the two to the same bytes.
func highlightIndented(raw []byte, punct string) template.HTML {
	b := scratch()
	return template.HTML(done(b, appendHighlightIndented(*b, string(raw), punct)))
}

// appendHighlightIndented appends highlightIndented(data, punct) to out.
func appendHighlightIndented(out []byte, data, punct string) []byte {
	depth, needIndent := 0, false
	newline := func(depth int) {
		out = append(out, '\n')
		for i := 0; i < depth; i++ {
			out = append(out, "  "...)
		}
	}
	for i := 0; i < len(data); {
		c := data[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			i++
			continue
		}
		if needIndent && c != '}' && c != ']' {
			needIndent = false
			depth++
			newline(depth)
		}
		switch c {
		case '{', '[':
			needIndent = true
			out = appendJSONSpan(out, punct, data[i:i+1])
			i++
		case ',':
			out = appendJSONSpan(out, punct, ",")
			newline(depth)
			i++
		case ':':
			out = appendJSONSpan(out, punct, ":")
			out = append(out, ' ')
			i++
		case '}', ']':
			if needIndent {
				needIndent = false
			} else {
				depth--
				newline(depth)
			}
			out = appendJSONSpan(out, punct, data[i:i+1])
			i++
		case '"':
			out, i = appendJSONString(out, data, i)
		case 't', 'f', 'n':
			j := i
			for j < len(data) && data[j] >= 'a' && data[j] <= 'z' {
				j++
			}
			out = appendJSONSpan(out, "kc", data[i:j])
			i = j
		default: // a number
			out, i = appendJSONNumber(out, data, i)
		}
	}
	return out
}

// appendJSONString appends the string starting at data[i] (its opening
// quote) as a span, nt when a colon follows it (a member name) and s2
// otherwise, and returns the index after it.
func appendJSONString(out []byte, data string, i int) ([]byte, int) {
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
	class := "s2"
	if k < len(data) && data[k] == ':' {
		class = "nt"
	}
	return appendJSONSpan(out, class, data[i:j]), j
}

// appendJSONNumber appends the number starting at data[i] as a span, mf
// when it has a fraction or an exponent and mi otherwise, and returns the
// index after it.
func appendJSONNumber(out []byte, data string, i int) ([]byte, int) {
	j, float := i+1, false
	for j < len(data) && strings.IndexByte("0123456789.eE+-", data[j]) >= 0 {
		float = float || data[j] == '.' || data[j] == 'e' || data[j] == 'E'
		j++
	}
	class := "mi"
	if float {
		class = "mf"
	}
	return appendJSONSpan(out, class, data[i:j]), j
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
	b := scratch()
	out := *b
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
	return done(b, out)
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
