package skillcat

import "strings"

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
