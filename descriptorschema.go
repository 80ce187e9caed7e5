package skillcat

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Validating a descriptor against the descriptor schema with jsonschema/v6
// is an interpreted walk (a scope, a reference and a regular expression for
// each member) that costs most of a valid descriptor's check, and nearly
// every descriptor a build reads is valid. descriptorValid answers the
// schema's question directly, in the form Node.Value gives: true exactly
// when schemas/skill-descriptor.schema.json accepts the document. Only a
// document it refuses is validated by the library, whose errors become
// the violations, so every message is the library path's.
// TestDescriptorValidAgrees holds it to the library on generated valid
// and broken descriptors, and TestDescriptorSchemaUnchanged to the schema
// it was written from.

// Patterns of the descriptor schema's $defs that descriptorValid leaves to
// Go's regexp package, as the library does.
var (
	semverRE = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-((0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*))*))?(\+([0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*))?$`)
	emailRE  = regexp.MustCompile(`^[^@\s]+@[^@\s]+$`)
)

// descriptorValid reports whether v, a descriptor as Node.Value gives it,
// is valid against the descriptor schema.
func descriptorValid(v any) bool {
	d, ok := v.(map[string]any)
	if !ok {
		return false
	}
	for _, name := range [...]string{"protocol", "id", "name", "version", "capability_type", "description",
		"provider", "endpoint", "inputs", "output", "auth", "access"} {
		if _, ok := d[name]; !ok {
			return false
		}
	}
	for name, m := range d {
		if !descriptorMemberValid(name, m) {
			return false
		}
	}
	// allOf: restricted access needs an auth type other than "none".
	if auth, ok := d["auth"].(map[string]any); ok && d["access"] == any("restricted") && auth["type"] == any("none") {
		return false
	}
	return true
}

// descriptorMemberValid checks one top-level member against the schema's
// properties; a member the schema does not name passes.
func descriptorMemberValid(name string, v any) bool {
	switch name {
	case "$schema":
		return stringLen(v, 1, -1)
	case "protocol":
		p, ok := v.(map[string]any)
		if !ok {
			return false
		}
		version, ok := p["version"].(string)
		return ok && plainVersion(version)
	case "id":
		s, ok := v.(string)
		return ok && stringLen(v, 1, 128) && idShaped(s)
	case "name":
		return labelValid(v)
	case "version":
		s, ok := v.(string)
		return ok && semverRE.MatchString(s)
	case "capability_type":
		return oneOf(v, "plugin", "api", "knowledge", "task")
	case "description":
		return stringLen(v, 1, 20000)
	case "provider":
		p, ok := v.(map[string]any)
		if !ok || !hasMember(p, "name") {
			return false
		}
		return objectValid(p, func(k string, v any) bool {
			switch k {
			case "name":
				return labelValid(v)
			case "url":
				return httpURLValid(v)
			case "email":
				s, ok := v.(string)
				return ok && stringLen(v, -1, 254) && emailRE.MatchString(s)
			}
			return true
		})
	case "endpoint":
		e, ok := v.(map[string]any)
		if !ok || !hasMember(e, "url") {
			return false
		}
		return objectValid(e, func(k string, v any) bool {
			switch k {
			case "url":
				return httpURLValid(v)
			case "method":
				return oneOf(v, "GET", "POST", "PUT", "PATCH", "DELETE")
			}
			return true
		})
	case "inputs":
		s, ok := v.(map[string]any)
		return ok && hasMember(s, "type") && s["type"] == any("object")
	case "output":
		switch v.(type) {
		case map[string]any, bool:
			return true
		}
		return false
	case "auth":
		return authValid(v)
	case "access":
		return oneOf(v, "public", "restricted", "private")
	case "tags":
		tags, ok := v.([]any)
		if !ok || len(tags) > 20 {
			return false
		}
		for i, t := range tags {
			s, ok := t.(string)
			if !ok || !tagShaped(s) {
				return false
			}
			for _, u := range tags[:i] {
				if u == t {
					return false
				}
			}
		}
		return true
	case "examples":
		examples, ok := v.([]any)
		if !ok {
			return false
		}
		for _, e := range examples {
			ex, ok := e.(map[string]any)
			if !ok || !hasMember(ex, "title") || !hasMember(ex, "inputs") {
				return false
			}
			if !stringLen(ex["title"], 1, 200) {
				return false
			}
			if _, ok := ex["inputs"].(map[string]any); !ok {
				return false
			}
		}
		return true
	case "documentation_url":
		return httpURLValid(v)
	}
	return true
}

// authValid checks the auth member ($defs/auth).
func authValid(v any) bool {
	a, ok := v.(map[string]any)
	if !ok || !hasMember(a, "type") {
		return false
	}
	var needs []string
	switch a["type"] {
	case "api_key":
		needs = []string{"in", "name"}
	case "oauth2":
		needs = []string{"token_url"}
	case "custom":
		needs = []string{"instructions"}
	case "none":
	default:
		return false
	}
	for _, n := range needs {
		if !hasMember(a, n) {
			return false
		}
	}
	return objectValid(a, func(k string, v any) bool {
		switch k {
		case "in":
			return oneOf(v, "header", "query")
		case "name":
			return stringLen(v, 1, 256)
		case "token_url", "authorization_url":
			return httpURLValid(v)
		case "scopes":
			m, ok := v.(map[string]any)
			if !ok {
				return false
			}
			for _, s := range m {
				if _, ok := s.(string); !ok {
					return false
				}
			}
			return true
		case "instructions":
			return stringLen(v, 1, 20000)
		}
		return true
	})
}

func hasMember(m map[string]any, name string) bool {
	_, ok := m[name]
	return ok
}

// objectValid reports whether every member of m passes valid.
func objectValid(m map[string]any, valid func(string, any) bool) bool {
	for k, v := range m {
		if !valid(k, v) {
			return false
		}
	}
	return true
}

// oneOf reports whether v is one of the strings (an "enum" of strings).
func oneOf(v any, values ...string) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	for _, w := range values {
		if s == w {
			return true
		}
	}
	return false
}

// stringLen reports whether v is a string of min to max code points (a
// negative bound is none), as "minLength" and "maxLength" count.
func stringLen(v any, min, max int) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	if min <= 0 && (max < 0 || len(s) <= max) {
		return true // a code point takes at least one byte
	}
	n := utf8.RuneCountInString(s)
	return n >= min && (max < 0 || n <= max)
}

// labelValid is $defs/label: 1 to 120 code points, not all white space
// (the pattern [^\t\n\v\f\r\u0085\p{Z}]).
func labelValid(v any) bool {
	s, ok := v.(string)
	if !ok || !stringLen(v, 1, 120) {
		return false
	}
	for _, r := range s {
		switch r {
		case '\t', '\n', '\v', '\f', '\r', '\u0085':
			continue
		}
		if !unicode.Is(unicode.Z, r) {
			return true
		}
	}
	return false
}

// plainVersion is $defs/protocol_version: MAJOR.MINOR.PATCH, no leading
// zeros.
func plainVersion(s string) bool {
	for i := 0; i < 3; i++ {
		n := 0
		for n < len(s) && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		if n == 0 || n > 1 && s[0] == '0' {
			return false
		}
		s = s[n:]
		if i < 2 {
			if s == "" || s[0] != '.' {
				return false
			}
			s = s[1:]
		}
	}
	return s == ""
}

// idShaped is the pattern of $defs/id: ^[a-z0-9]+([._-][a-z0-9]+)*$.
func idShaped(s string) bool {
	run := 0 // length of the current run of [a-z0-9]
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			run++
		case c == '.' || c == '_' || c == '-':
			if run == 0 {
				return false
			}
			run = 0
		default:
			return false
		}
	}
	return run > 0
}

// tagShaped is the pattern of $defs/tag: ^[a-z0-9][a-z0-9-]{0,31}$.
func tagShaped(s string) bool {
	if len(s) == 0 || len(s) > 32 || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// httpURLValid is $defs/http_url: at most 2048 code points and the pattern
// ^https?://[A-Za-z0-9._~%!$&'()*+,;=:@\[\]-]+([/?#][!-~]*)?$.
func httpURLValid(v any) bool {
	s, ok := v.(string)
	if !ok || !stringLen(v, -1, 2048) {
		return false
	}
	switch {
	case strings.HasPrefix(s, "https://"):
		s = s[len("https://"):]
	case strings.HasPrefix(s, "http://"):
		s = s[len("http://"):]
	default:
		return false
	}
	n := 0
	for n < len(s) && strings.IndexByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~%!$&'()*+,;=:@[]-", s[n]) >= 0 {
		n++
	}
	if n == 0 {
		return false
	}
	s = s[n:]
	if s == "" {
		return true
	}
	if s[0] != '/' && s[0] != '?' && s[0] != '#' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '!' || s[i] > '~' {
			return false
		}
	}
	return true
}
