package build

import (
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"
)

// hostileTargets returns every encoding of each dangerous scheme's URL
// that Markdown or a browser decodes: character references (decimal, hex,
// padded, named), backslash escapes, percent-encoding, case, and the tabs,
// newlines and leading controls a browser ignores.
func hostileTargets() []string {
	var out []string
	for _, u := range []string{"javascript:alert(1)", "data:text/html,<script>alert(1)</script>", "vbscript:msgbox(1)"} {
		scheme, rest, _ := strings.Cut(u, ":")
		first, tail := scheme[:1], scheme[1:]
		entities := func(f string) string {
			var b strings.Builder
			for _, c := range scheme {
				fmt.Fprintf(&b, f, c)
			}
			return b.String()
		}
		out = append(out,
			u,
			strings.ToUpper(scheme)+":"+rest,
			fmt.Sprintf("&#%d;%s:%s", first[0], tail, rest),
			fmt.Sprintf("&#x%X;%s:%s", first[0], tail, rest),
			fmt.Sprintf("&#X%x;%s:%s", first[0], tail, rest),
			fmt.Sprintf("&#0000%d;%s:%s", first[0], tail, rest),
			entities("&#%d;")+":"+rest,
			entities("&#x%x;")+"&#58;"+rest,
			scheme+"&colon;"+rest,
			scheme+"&#x3A;"+rest,
			scheme[:2]+"&Tab;"+scheme[2:]+":"+rest,
			scheme[:2]+"&NewLine;"+scheme[2:]+":"+rest,
			"&#x01;"+u,
			"&#32;"+u,
			scheme+`\:`+rest,
			fmt.Sprintf("%%%02X%s:%s", first[0], tail, rest),
			scheme+"%3A"+rest,
			scheme+"%3a"+rest,
		)
	}
	return out
}

// liveHref reports whether an href attribute's value, as a browser reads
// it (entities decoded, tabs and newlines dropped, leading controls and
// spaces trimmed), has a scheme other than http, https and mailto.
func liveHref(attr string) bool {
	v := html.UnescapeString(attr)
	v = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(v)
	v = strings.TrimLeftFunc(v, func(r rune) bool { return r <= ' ' })
	m := regexp.MustCompile(`^([a-zA-Z][a-zA-Z0-9+.-]*):`).FindStringSubmatch(v)
	if m == nil {
		return false
	}
	s := strings.ToLower(m[1])
	return s != "http" && s != "https" && s != "mailto"
}

var hrefRE = regexp.MustCompile(`(?i)\b(?:href|src)="([^"]*)"`)

// TestMarkdownHostileLinks renders every encoded form of javascript:,
// data: and vbscript: as a link, an image and a reference definition: none
// may become a live link, and the link's text must stay.
func TestMarkdownHostileLinks(t *testing.T) {
	forms := map[string]string{
		"Link":          "[click TEXT](DEST)",
		"AngleLink":     "[click TEXT](<DEST>)",
		"LinkWithTitle": `[click TEXT](DEST "a title")`,
		"Image":         "![click TEXT](DEST)",
		"Reference":     "[click TEXT][r]\n\n[r]: DEST",
		"ImageRef":      "![click TEXT][r]\n\n[r]: <DEST> 'title'",
		"Collapsed":     "[click TEXT][]\n\n[click TEXT]: DEST",
	}
	for i, dest := range hostileTargets() {
		for name, form := range forms {
			text := fmt.Sprintf("case%d", i)
			src := strings.NewReplacer("TEXT", text, "DEST", dest).Replace(form)
			out, err := renderMarkdown(src)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range hrefRE.FindAllStringSubmatch(string(out), -1) {
				if liveHref(m[1]) {
					t.Errorf("%s %q renders a live link %q:\n%s", name, dest, m[1], out)
				}
			}
			if !strings.Contains(string(out), "click "+text) {
				t.Errorf("%s %q loses its text:\n%s", name, dest, out)
			}
		}
	}
	// Safe targets, encoded or not, stay links.
	for _, dest := range []string{"https://example.com/a?b=1&c=2", "&#104;ttps://example.com/", "mailto:a@example.com", "../other/", "#inputs"} {
		out, _ := renderMarkdown("[ok](" + dest + ")")
		if !strings.Contains(string(out), "<a href=") {
			t.Errorf("%q is not a link: %s", dest, out)
		}
	}
}
