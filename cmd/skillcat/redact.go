package main

import (
	"net/url"
	"strings"
)

// redactURL returns s with the password of a URL's user information
// written "xxxxx" (url.URL.Redacted), for a message: a --previous or an
// import URL may carry HTTP Basic credentials, which must reach neither a
// log nor a source. Anything that is not such a URL is returned as it is.
func redactURL(s string) string {
	if !strings.Contains(s, "@") {
		return s
	}
	u, err := url.Parse(s)
	if err != nil || u.User == nil || u.Host == "" {
		return s
	}
	return u.Redacted()
}

// withoutUser returns the URL s without its user information, for what
// is derived from it and written down (a relative server resolved against
// the document's URL).
func withoutUser(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	u.User = nil
	return u.String()
}
