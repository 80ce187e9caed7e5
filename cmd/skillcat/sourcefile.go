package main

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	skillcat "github.com/skillcat/skillcat"
	"go.yaml.in/yaml/v3"
)

// sourceFile returns a descriptor as a source a person would have written:
// JSON as Encode writes it, or Markdown whose YAML front matter holds every
// member but the description, which is the body.
func sourceFile(d *skillcat.SkillDescriptor, format string) ([]byte, error) {
	data, err := d.Encode()
	if err != nil {
		return nil, err
	}
	if format == "json" {
		return data, nil
	}
	root, err := skillcat.ParseJSON(data)
	if err != nil {
		return nil, err
	}
	body := bodySafe(d.Description)
	front := &skillcat.Node{Kind: skillcat.Object}
	for _, m := range root.Members {
		if m.Name != "description" || !body {
			front.Members = append(front.Members, m)
		}
	}
	var y bytes.Buffer
	enc := yaml.NewEncoder(&y)
	enc.SetIndent(2)
	q := &quoter{}
	if err := enc.Encode(q.yamlOf(front)); err != nil {
		return nil, fmt.Errorf("write front matter: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("write front matter: %w", err)
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	b.WriteString(q.replace(y.String()))
	b.WriteString("---\n")
	if body {
		b.WriteString("\n" + d.Description + "\n")
	}
	return b.Bytes(), nil
}

// bodySafe reports whether a description reads back unchanged as a
// Markdown body, which the build reads without blank lines before it and
// white space after it. One that would not stays in the front matter.
func bodySafe(desc string) bool {
	first, _, _ := strings.Cut(desc, "\n")
	return desc != "" && strings.TrimRight(desc, " \t\r\n") == desc && strings.TrimSpace(first) != ""
}

// quoter writes the front matter's strings. A string that is not plain
// safe is written double-quoted by our own rules rather than the YAML
// library's (whose escapes, \L for U+2028 among them, do not all read
// back as written): the library writes a marker, replaced afterwards.
type quoter struct {
	quoted []string
}

// quoteMarker is the plain scalar that stands for the n-th quoted string.
func quoteMarker(n int) string { return fmt.Sprintf("skillcatquoted%08dx", n) }

func (q *quoter) replace(y string) string {
	for i := len(q.quoted) - 1; i >= 0; i-- {
		y = strings.Replace(y, quoteMarker(i), q.quoted[i], 1)
	}
	return y
}

// yamlOf converts a JSON value into a YAML node: numbers exactly as
// written, strings plain only when no YAML reader could take them for
// anything else, short lists of scalars in flow style.
func (q *quoter) yamlOf(n *skillcat.Node) *yaml.Node {
	switch n.Kind {
	case skillcat.Object:
		out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, m := range n.Members {
			out.Content = append(out.Content, q.yamlString(m.Name), q.yamlOf(m.Value))
		}
		if len(n.Members) == 0 {
			out.Style = yaml.FlowStyle
		}
		return out
	case skillcat.Array:
		out := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		flow, width := true, 0
		for _, it := range n.Items {
			if it.Kind == skillcat.Object || it.Kind == skillcat.Array {
				flow = false
			}
			width += len(it.Text) + 4
		}
		if flow && width <= 72 {
			out.Style = yaml.FlowStyle
		}
		for _, it := range n.Items {
			out.Content = append(out.Content, q.yamlOf(it))
		}
		return out
	case skillcat.String:
		return q.yamlString(n.Text)
	case skillcat.Number:
		tag := "!!int"
		if strings.ContainsAny(n.Text, ".eE") {
			tag = "!!float"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: n.Text}
	case skillcat.Bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: n.Text}
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
}

// plainSafe matches the strings written without quotes: words, numbers
// inside words, URLs and paths; never one a YAML reader could take for a
// number, a boolean, null, a date or anything but the string.
var plainSafe = regexp.MustCompile(`^[A-Za-z_/][A-Za-z0-9_./@%+=&?-]*(:[A-Za-z0-9_./@%+=&?~-]+)*( [A-Za-z0-9_./@%+=&?()'-]+)*$`)

var yamlWords = map[string]bool{
	"true": true, "false": true, "yes": true, "no": true, "on": true, "off": true,
	"y": true, "n": true, "null": true, "nan": true, "inf": true,
}

func (q *quoter) yamlString(s string) *yaml.Node {
	if plainSafe.MatchString(s) && !yamlWords[strings.ToLower(s)] && !strings.HasPrefix(s, "skillcatquoted") {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	}
	q.quoted = append(q.quoted, yamlQuote(s))
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: quoteMarker(len(q.quoted) - 1)}
}

// yamlQuote writes s as a YAML double-quoted scalar: printable text as it
// is, and as escapes the quote, the backslash and every rune a YAML reader
// might fold or drop (control characters, NEL, the line and paragraph
// separators, the byte-order mark, other non-printing runes).
func yamlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f || r == 0x85 || r == 0x2028 || r == 0x2029 || r == 0xfeff || (r > 0x7f && !unicode.IsPrint(r) && r != ' '):
			if r > 0xffff {
				fmt.Fprintf(&b, `\U%08X`, r)
			} else {
				fmt.Fprintf(&b, `\u%04X`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
