package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/skillcat/skillcat/client"
)

// minRedacted is the shortest credential value replaced in what is
// printed; replacing every "k" of a one-letter test key would garble the
// output and hide nothing.
const minRedacted = 4

// secrets lists the values of a credential in every form they can be
// printed in (secretForms), so that nothing printed holds one. A custom
// header's value of a scheme and a credential ("Token abc…") adds the
// credential alone, and "Basic …" the user:password it encodes.
func secrets(c client.Credential) []string {
	var s []string
	if len(c.Secret) >= minRedacted {
		s = append(s, secretForms(c.Secret)...)
	}
	for _, vals := range c.Header {
		for _, v := range vals {
			if len(v) < minRedacted {
				continue
			}
			s = append(s, secretForms(v)...)
			scheme, cred, ok := strings.Cut(v, " ")
			if cred = strings.TrimSpace(cred); ok && len(cred) >= minRedacted {
				s = append(s, secretForms(cred)...)
			}
			if b64 := cred; ok && strings.EqualFold(scheme, "basic") {
				if pair, err := base64.StdEncoding.DecodeString(b64); err == nil {
					user, pass, _ := strings.Cut(string(pair), ":")
					s = append(s, basicSecrets(user, pass)...)
				}
			}
		}
	}
	return longestFirst(s)
}

// basicSecrets lists the forms of the password of HTTP Basic credentials
// (secretForms), and of the Authorization value's base64 of user:password,
// both as the client sends it (each part URL-encoded, RFC 6749 §2.3.1) and
// as is: an endpoint may echo the header it got.
func basicSecrets(user, pass string) []string {
	var s []string
	if len(pass) >= minRedacted {
		s = append(s, secretForms(pass)...)
	}
	for _, pair := range []string{url.QueryEscape(user) + ":" + url.QueryEscape(pass), user + ":" + pass} {
		if len(pass) > 0 {
			s = append(s, secretForms(base64.StdEncoding.EncodeToString([]byte(pair)))...)
		}
	}
	return longestFirst(s)
}

// secretForms lists v as it may be printed when an endpoint echoes it
// back: as is, JSON-escaped (as Go writes it, with and without its HTML
// escapes, and as encoders that escape all but ASCII do), Go-quoted (%q,
// with and without non-ASCII escaped), URL-encoded (query and path), and
// as printable shows it.
func secretForms(v string) []string {
	forms := []string{v, printable(v), url.QueryEscape(v), url.PathEscape(v), jsonASCII(v)}
	forms = append(forms, unquote(strconv.Quote(v)), unquote(strconv.QuoteToASCII(v)))
	if b, err := json.Marshal(v); err == nil {
		forms = append(forms, unquote(string(b)))
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) == nil {
		forms = append(forms, unquote(strings.TrimSuffix(b.String(), "\n")))
	}
	return forms
}

// jsonASCII is v as a JSON string's content with every character outside
// printable ASCII escaped as \uXXXX (lowercase hex, as Python's json and
// others write it; a surrogate pair above U+FFFF).
func jsonASCII(v string) string {
	var b strings.Builder
	for _, r := range v {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		case r > 0xffff:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		case r == utf8.RuneError:
			b.WriteString(`\ufffd`)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// unquote drops the quotes around a quoted string.
func unquote(q string) string { return q[1 : len(q)-1] }

// longestFirst sorts secret forms longest first, without duplicates or
// forms too short to replace, so that no shorter form replaced first
// leaves part of a longer one printed.
func longestFirst(s []string) []string {
	s = slices.DeleteFunc(s, func(v string) bool { return len(v) < minRedacted })
	slices.SortFunc(s, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	return slices.Compact(s)
}

// redactor writes to w with every secret replaced by "[redacted]".
type redactor struct {
	w       io.Writer
	secrets []string
}

func (r *redactor) Write(p []byte) (int, error) {
	s := string(p)
	for _, sec := range r.secrets {
		s = strings.ReplaceAll(s, sec, "[redacted]")
	}
	if _, err := io.WriteString(r.w, s); err != nil {
		return 0, err
	}
	return len(p), nil
}
