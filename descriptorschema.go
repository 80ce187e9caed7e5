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
// schema's question directly, on the Node tree: true exactly
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

// descriptorValid reports whether the descriptor d is valid against the
// descriptor schema. It reads every member of each object, duplicates
// included, and looks a member up by its last occurrence, so that true
// holds for the value Node.Value gives too; of a tree without duplicate
// members it answers exactly as the schema does.
func descriptorValid(d *Node) bool {
	if d.Kind != Object {
		return false
	}
	var seen uint16
	for _, m := range d.Members {
		seen |= requiredBit(m.Name)
		if !descriptorMemberValid(m.Name, m.Value) {
			return false
		}
	}
	if seen != 1<<12-1 {
		return false
	}
	// allOf: restricted access needs an auth type other than "none".
	if isText(d.Get("access"), "restricted") && isText(d.Get("auth").Get("type"), "none") {
		return false
	}
	return true
}

// requiredBit is the bit of a member the descriptor schema requires, or 0.
func requiredBit(name string) uint16 {
	switch name {
	case "protocol":
		return 1 << 0
	case "id":
		return 1 << 1
	case "name":
		return 1 << 2
	case "version":
		return 1 << 3
	case "capability_type":
		return 1 << 4
	case "description":
		return 1 << 5
	case "provider":
		return 1 << 6
	case "endpoint":
		return 1 << 7
	case "inputs":
		return 1 << 8
	case "output":
		return 1 << 9
	case "auth":
		return 1 << 10
	case "access":
		return 1 << 11
	}
	return 0
}

// isText reports whether n is the string s.
func isText(n *Node, s string) bool { return n != nil && n.Kind == String && n.Text == s }

// descriptorMemberValid checks one top-level member against the schema's
// properties; a member the schema does not name passes.
func descriptorMemberValid(name string, v *Node) bool {
	switch name {
	case "$schema":
		return stringLen(v, 1, -1)
	case "protocol":
		version := v.Get("version")
		return v.Kind == Object && version != nil && version.Kind == String && plainVersion(version.Text)
	case "id":
		return stringLen(v, 1, 128) && idShaped(v.Text)
	case "name":
		return labelValid(v)
	case "version":
		return v.Kind == String && semverRE.MatchString(v.Text)
	case "capability_type":
		return oneOf(v, "plugin", "api", "knowledge", "task")
	case "description":
		return stringLen(v, 1, 20000)
	case "provider":
		if v.Kind != Object || v.Get("name") == nil {
			return false
		}
		for _, m := range v.Members {
			switch m.Name {
			case "name":
				if !labelValid(m.Value) {
					return false
				}
			case "url":
				if !httpURLValid(m.Value) {
					return false
				}
			case "email":
				if !stringLen(m.Value, -1, 254) || !emailRE.MatchString(m.Value.Text) {
					return false
				}
			}
		}
		return true
	case "endpoint":
		if v.Kind != Object || v.Get("url") == nil {
			return false
		}
		for _, m := range v.Members {
			switch m.Name {
			case "url":
				if !httpURLValid(m.Value) {
					return false
				}
			case "method":
				if !oneOf(m.Value, "GET", "POST", "PUT", "PATCH", "DELETE") {
					return false
				}
			}
		}
		return true
	case "inputs":
		return v.Kind == Object && isText(v.Get("type"), "object")
	case "output":
		return v.Kind == Object || v.Kind == Bool
	case "auth":
		return authValid(v)
	case "access":
		return oneOf(v, "public", "restricted", "private")
	case "tags":
		if v.Kind != Array || len(v.Items) > 20 {
			return false
		}
		for i, t := range v.Items {
			if t.Kind != String || !tagShaped(t.Text) {
				return false
			}
			for _, u := range v.Items[:i] {
				if u.Text == t.Text {
					return false
				}
			}
		}
		return true
	case "examples":
		if v.Kind != Array {
			return false
		}
		for _, ex := range v.Items {
			if ex.Kind != Object {
				return false
			}
			if title, inputs := ex.Get("title"), ex.Get("inputs"); title == nil || !stringLen(title, 1, 200) || inputs == nil || inputs.Kind != Object {
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
func authValid(a *Node) bool {
	t := a.Get("type")
	if a.Kind != Object || t == nil || t.Kind != String {
		return false
	}
	var needs []string
	switch t.Text {
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
		if a.Get(n) == nil {
			return false
		}
	}
	for _, m := range a.Members {
		if !authMemberValid(m.Name, m.Value) {
			return false
		}
	}
	return true
}

// authMemberValid checks one member of the auth object.
func authMemberValid(k string, v *Node) bool {
	switch k {
	case "in":
		return oneOf(v, "header", "query")
	case "name":
		return stringLen(v, 1, 256)
	case "token_url", "authorization_url":
		return httpURLValid(v)
	case "scopes":
		if v.Kind != Object {
			return false
		}
		for _, s := range v.Members {
			if s.Value.Kind != String {
				return false
			}
		}
		return true
	case "instructions":
		return stringLen(v, 1, 20000)
	}
	return true
}

// oneOf reports whether v is one of the strings (an "enum" of strings).
func oneOf(v *Node, values ...string) bool {
	if v.Kind != String {
		return false
	}
	for _, w := range values {
		if v.Text == w {
			return true
		}
	}
	return false
}

// stringLen reports whether v is a string of min to max code points (a
// negative bound is none), as "minLength" and "maxLength" count.
func stringLen(v *Node, min, max int) bool {
	if v.Kind != String {
		return false
	}
	s := v.Text
	if min <= 0 && (max < 0 || len(s) <= max) {
		return true // a code point takes at least one byte
	}
	n := utf8.RuneCountInString(s)
	return n >= min && (max < 0 || n <= max)
}

// labelValid is $defs/label: 1 to 120 code points, not all white space
// (the pattern [^\t\n\v\f\r\u0085\p{Z}]).
func labelValid(v *Node) bool {
	if !stringLen(v, 1, 120) {
		return false
	}
	for _, r := range v.Text {
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
func httpURLValid(v *Node) bool {
	if !stringLen(v, -1, 2048) {
		return false
	}
	s := v.Text
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
