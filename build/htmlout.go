package build

import "strings"

// htmlOut is a page written in Go: markup appended as is, and values
// escaped exactly as html/template escapes a string in the context the
// built-in templates put it in (TestSkillHTMLIsTheTemplate holds the two
// to the same bytes).
type htmlOut struct{ b []byte }

// raw appends markup.
func (w *htmlOut) raw(s string) { w.b = append(w.b, s...) }

// text appends s escaped for HTML text, a quoted attribute value or an
// RCDATA element such as <title> (html/template's htmlEscaper, attrEscaper
// and rcdataEscaper on a plain string).
func (w *htmlOut) text(s string) { w.b = appendEscaped(w.b, s, true) }

// url appends a URL that starts an href or src attribute's value: a
// scheme other than http, https or mailto becomes "#ZgotmplZ", then the
// URL is normalised and escaped for the attribute (html/template's
// urlFilter, urlNormalizer and attrEscaper).
func (w *htmlOut) url(s string) {
	if !safeTemplateURL(s) {
		s = "#ZgotmplZ"
	}
	w.urlPart(s)
}

// urlPart appends the rest of a URL after a literal start such as
// "mailto:" (urlNormalizer and attrEscaper).
func (w *htmlOut) urlPart(s string) { w.urlBytes(s, true) }

// query appends a query parameter's value (urlEscaper and attrEscaper).
func (w *htmlOut) query(s string) { w.urlBytes(s, false) }

// urlBytes percent-encodes every byte of s but the unreserved ones (and,
// when norm, the reserved ones and valid escapes), as html/template's
// processURLOnto does; of what is left, '&' and '+' are then escaped for
// the attribute.
func (w *htmlOut) urlBytes(s string, norm bool) {
	const hex = "0123456789abcdef"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '!', '#', '$', '*', ',', '/', ':', ';', '=', '?', '@', '[', ']':
			if norm {
				w.b = append(w.b, c)
				continue
			}
		case '&':
			if norm {
				w.b = append(w.b, "&amp;"...)
				continue
			}
		case '+':
			if norm {
				w.b = append(w.b, "&#43;"...)
				continue
			}
		case '-', '.', '_', '~':
			w.b = append(w.b, c)
			continue
		case '%':
			if norm && i+2 < len(s) && isHexDigit(s[i+1]) && isHexDigit(s[i+2]) {
				w.b = append(w.b, c)
				continue
			}
		default:
			if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
				w.b = append(w.b, c)
				continue
			}
		}
		w.b = append(w.b, '%', hex[c>>4], hex[c&15])
	}
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// safeTemplateURL is html/template's isSafeURL: a URL with no scheme, or
// with http, https or mailto (compared as strings.EqualFold does, as
// html/template does).
func safeTemplateURL(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '/':
			return true
		case ':':
			p := s[:i]
			return strings.EqualFold(p, "http") || strings.EqualFold(p, "https") || strings.EqualFold(p, "mailto")
		}
	}
	return true
}

// tags writes a list of tags, each a link to the home page's search for
// it, after lead (the line break and indent before the list); nothing when
// there are none.
func (w *htmlOut) tags(lead, home string, tags []string) {
	if len(tags) == 0 {
		return
	}
	w.raw(lead)
	w.raw(`<ul class="tags" aria-label="Tags">`)
	for _, tag := range tags {
		w.raw(`<li><a href="`)
		w.url(home)
		w.raw(`?q=`)
		w.query(tag)
		w.raw(`">`)
		w.text(tag)
		w.raw(`</a></li>`)
	}
	w.raw(`</ul>`)
}
