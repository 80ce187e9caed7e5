package skillcat

import (
	"net/url"
	"strings"
)

// MaxURLLength is the longest URL a descriptor member may hold.
const MaxURLLength = 2048

// IsHTTPURL reports whether s is a URL a descriptor accepts in its URL
// members (provider.url, endpoint.url, token_url, authorization_url,
// documentation_url): the descriptor schema's http_url, that is "http://"
// or "https://", a host of URL characters, then printable ASCII only, at
// most MaxURLLength characters. Importers and other writers check URLs
// with it before they write them.
func IsHTTPURL(s string) bool {
	if len(s) > MaxURLLength {
		return false
	}
	rest, ok := strings.CutPrefix(s, "https://")
	if !ok {
		if rest, ok = strings.CutPrefix(s, "http://"); !ok {
			return false
		}
	}
	host := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		host = rest[:i]
	}
	if host == "" {
		return false
	}
	for i := 0; i < len(host); i++ {
		c := host[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._~%!$&'()*+,;=:@[]-", c) >= 0) {
			return false
		}
	}
	for i := len(host); i < len(rest); i++ {
		if rest[i] < '!' || rest[i] > '~' {
			return false
		}
	}
	return true
}

// ImportedURL returns u, white space trimmed, when it parses as a URL and
// IsHTTPURL accepts it, or "": how an importer takes a URL from a foreign
// document, which leaves out one a descriptor could not hold.
func ImportedURL(u string) string {
	u = strings.TrimSpace(u)
	if _, err := url.Parse(u); err != nil || !IsHTTPURL(u) {
		return ""
	}
	return u
}

// EscapeURL percent-encodes, byte by byte, what a descriptor's URL may
// not hold: bytes outside printable ASCII, braces, and the characters
// RFC 3986 leaves out of URIs (" < > \ ^ ` |). Everything else is kept,
// "%" included.
func EscapeURL(s string) string {
	var b strings.Builder
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c > '~' || strings.IndexByte("{}\"<>\\^`|", c) >= 0 {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
