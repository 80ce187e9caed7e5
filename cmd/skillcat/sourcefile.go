package main

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

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
	front := &skillcat.Node{Kind: skillcat.Object}
	for _, m := range root.Members {
		if m.Name != "description" {
			front.Members = append(front.Members, m)
		}
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(yamlOf(front, false)); err != nil {
		return nil, fmt.Errorf("write front matter: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("write front matter: %w", err)
	}
	b.WriteString("---\n\n")
	b.WriteString(d.Description)
	b.WriteString("\n")
	return b.Bytes(), nil
}

// yamlOf converts a JSON value into a YAML node: numbers exactly as
// written, strings plain only when no YAML reader could take them for
// anything else, short lists of scalars in flow style.
func yamlOf(n *skillcat.Node, inFlow bool) *yaml.Node {
	switch n.Kind {
	case skillcat.Object:
		out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		for _, m := range n.Members {
			out.Content = append(out.Content, yamlString(m.Name, false), yamlOf(m.Value, false))
		}
		if len(n.Members) == 0 {
			out.Style = yaml.FlowStyle
		}
		return out
	case skillcat.Array:
		out := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		flow, width := true, 0
		for _, it := range n.Items {
			if it.Kind == skillcat.Object || it.Kind == skillcat.Array || strings.Contains(it.Text, "\n") {
				flow = false
			}
			width += len(it.Text) + 2
		}
		if flow && width <= 72 {
			out.Style = yaml.FlowStyle
		}
		for _, it := range n.Items {
			out.Content = append(out.Content, yamlOf(it, flow))
		}
		return out
	case skillcat.String:
		return yamlString(n.Text, inFlow)
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

func yamlString(s string, inFlow bool) *yaml.Node {
	out := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	switch {
	case plainSafe.MatchString(s) && !yamlWords[strings.ToLower(s)]:
	case strings.Contains(s, "\n") && !inFlow && strings.TrimSpace(s) == s && !strings.Contains(s, "\r"):
		out.Style = yaml.LiteralStyle
	default:
		out.Style = yaml.DoubleQuotedStyle
	}
	return out
}
