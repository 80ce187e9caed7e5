package build

import (
	"bytes"
	"fmt"
	"math/big"
	"slices"
	"strings"

	skillcat "github.com/skillcat/skillcat"
	"go.yaml.in/yaml/v3"
)

// A Markdown source holds the descriptor's members as YAML front matter
// between a first line "---" and the next line "---", and the description as
// the Markdown body after it:
//
//	---
//	id: weather.forecast
//	name: Weather Forecast
//	…
//	---
//	Hourly and daily forecasts for any coordinates.
//
// Lines count from the file's first line, the opening "---" included.

// maxYAMLNodes bounds the nodes a front matter may expand to through
// aliases (a "billion laughs" document would otherwise exhaust memory).
const maxYAMLNodes = 100000

// splitFrontMatter returns the YAML between the fences, the line the YAML
// starts on, the body after the closing fence and the line it starts on.
func splitFrontMatter(data []byte) (yml []byte, ymlLine int, body []byte, bodyLine int, err error) {
	first, _, _ := bytes.Cut(data, []byte("\n"))
	if strings.TrimRight(strings.TrimPrefix(string(first), "\ufeff"), " \t\r") != "---" {
		return nil, 0, nil, 0, fmt.Errorf(`a Markdown source must start with a "---" line opening its YAML front matter`)
	}
	line := 2
	start := len(first) + 1
	for off := start; off <= len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		var ln []byte
		next := len(data) + 1
		if end < 0 {
			ln = data[off:]
		} else {
			ln = data[off : off+end]
			next = off + end + 1
		}
		if t := strings.TrimRight(string(ln), " \t\r"); t == "---" || t == "..." {
			yml = data[start:off]
			if next <= len(data) {
				body = data[next:]
			}
			return yml, 2, body, line + 1, nil
		}
		if end < 0 {
			break
		}
		off = next
		line++
	}
	return nil, 0, nil, 0, fmt.Errorf(`front matter is never closed: add a "---" line after the YAML members`)
}

// markdownNode converts a Markdown source into a descriptor Node tree: the
// front matter's members with their YAML positions, and the body as the
// description positioned at its first line.
func markdownNode(src *skillcat.Source) (*skillcat.Node, skillcat.Violations) {
	root, body, line, vs := parseFrontMatter(src)
	if vs != nil {
		return nil, vs
	}
	if body != "" {
		if dn := root.Get("description"); dn != nil {
			return nil, skillcat.Violations{{File: src.Name, Line: dn.Line, Column: dn.Column, Pointer: "/description", Field: "description",
				Reason: "is given both in the front matter and as the Markdown body; keep one", Severity: skillcat.SeverityError}}
		}
		key := &skillcat.Node{Kind: skillcat.String, Text: "description", Line: line, Column: 1}
		root.Members = append(root.Members, skillcat.Member{Name: "description", Key: key,
			Value: &skillcat.Node{Kind: skillcat.String, Text: body, Line: line, Column: 1}})
	}
	return root, nil
}

// parseFrontMatter splits a Markdown source and converts its front matter
// into a Node tree positioned in the file. It returns the trimmed body and
// the line it starts on.
func parseFrontMatter(src *skillcat.Source) (root *skillcat.Node, body string, bodyLine int, vs skillcat.Violations) {
	fileErr := func(line, col int, reason string) skillcat.Violations {
		return skillcat.Violations{{File: src.Name, Line: line, Column: col, Field: skillcat.FileField, Reason: reason, Severity: skillcat.SeverityError}}
	}
	data := src.Data
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, "", 0, fileErr(1, 1, "file is empty: expected YAML front matter between --- lines, then the Markdown description")
	}
	yml, ymlLine, rest, restLine, err := splitFrontMatter(data)
	if err != nil {
		return nil, "", 0, fileErr(1, 1, err.Error())
	}
	if quickYAMLOn {
		if root, ok := quickNode(yml, ymlLine-1); ok {
			root.Line, root.Column = 1, 1 // members missing are reported at the first line
			body, bodyLine = trimBody(rest, restLine)
			return root, body, bodyLine, nil
		}
	}
	doc := new(yaml.Node)
	if err := yaml.Unmarshal(yml, doc); err != nil {
		if line, col, n := longKey(yml); n > 0 { // yaml.v3 reports it elsewhere, misleadingly
			return nil, "", 0, fileErr(ymlLine+line-1, col, fmt.Sprintf("member name is %d characters long; YAML allows at most %d in a key (write it shorter)", n, maxYAMLKey))
		}
		line, col, msg := yamlProblem(yml, ymlLine, err)
		line += ymlLine - 1
		return nil, "", 0, fileErr(line, col, "invalid YAML front matter: "+msg)
	}
	if line, col := droppedLine(yml, doc); line > 0 {
		return nil, "", 0, fileErr(ymlLine+line-1, col, "invalid YAML front matter: this line is indented less than the first member, so YAML ends the front matter before it and would drop it and every line after; start every top-level member in one column")
	}
	c := converter{lineOffset: ymlLine - 1, src: src}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		root = &skillcat.Node{Kind: skillcat.Object}
	} else {
		root, err = c.node(doc.Content[0], 0)
		if err != nil {
			return nil, "", 0, append(c.problems, c.failure(err))
		}
		if c.problems != nil {
			return nil, "", 0, c.problems
		}
		if root.Kind != skillcat.Object {
			return nil, "", 0, fileErr(root.Line, root.Column, "front matter must be a YAML mapping of descriptor members; got "+root.Kind.String())
		}
	}
	// Members missing from the front matter are reported at its first line.
	root.Line, root.Column = 1, 1
	body, bodyLine = trimBody(rest, restLine)
	return root, body, bodyLine, nil
}

// quickYAMLOn lets tests compare quickNode with yaml.v3 and the converter.
var quickYAMLOn = true

// trimBody drops blank lines before the body and white space after it, and
// returns the line the body text starts on.
func trimBody(body []byte, line int) (string, int) {
	for {
		nl := bytes.IndexByte(body, '\n')
		if nl < 0 || len(bytes.TrimSpace(body[:nl])) != 0 {
			break
		}
		body = body[nl+1:]
		line++
	}
	return strings.TrimRight(string(body), " \t\r\n"), line
}

type converter struct {
	lineOffset      int
	nodes           int
	path            skillcat.Path // where the conversion is
	errLine, errCol int
	errPath         skillcat.Path
	src             *skillcat.Source
	problems        skillcat.Violations // conversion problems that do not stop it
	block           []skillcat.Node     // nodes are allocated 32 at a time
}

// newNode returns a pointer to a copy of n, allocated in the current block.
func (c *converter) newNode(n skillcat.Node) *skillcat.Node {
	if len(c.block) == cap(c.block) {
		c.block = make([]skillcat.Node, 0, 32)
	}
	c.block = append(c.block, n)
	return &c.block[len(c.block)-1]
}

func (c *converter) fail(n *yaml.Node, format string, args ...any) error {
	c.errLine, c.errCol = n.Line+c.lineOffset, n.Column
	c.errPath = slices.Clone(c.path)
	return fmt.Errorf(format, args...)
}

func (c *converter) push(s skillcat.Step) {
	c.path = append(c.path, s)
}

func (c *converter) pop() {
	c.path = c.path[:len(c.path)-1]
}

// failure is the violation of a failed conversion, at the member where it
// failed.
func (c *converter) failure(err error) skillcat.Violation {
	return c.at(c.errLine, c.errCol, c.errPath, err.Error())
}

// violation is a problem at YAML node n, at the member being converted.
func (c *converter) violation(n *yaml.Node, reason string) skillcat.Violation {
	return c.at(n.Line+c.lineOffset, n.Column, c.path, reason)
}

func (c *converter) at(line, col int, path skillcat.Path, reason string) skillcat.Violation {
	v := skillcat.Violation{File: c.src.Name, Line: line, Column: col, Field: skillcat.FileField,
		Reason: reason, Severity: skillcat.SeverityError}
	if len(path) > 0 {
		v.Pointer, v.Field = path.Pointer(), path.Field()
	}
	return v
}

// node converts one YAML node into a positioned JSON Node.
func (c *converter) node(n *yaml.Node, depth int) (*skillcat.Node, error) {
	c.nodes++
	if c.nodes > maxYAMLNodes {
		return nil, c.fail(n, "front matter expands to more than %d values (aliases?)", maxYAMLNodes)
	}
	if depth > skillcat.MaxDepth {
		return nil, c.fail(n, "front matter is nested more than %d levels deep", skillcat.MaxDepth)
	}
	out := c.newNode(skillcat.Node{Line: n.Line + c.lineOffset, Column: n.Column})
	switch n.Kind {
	case yaml.AliasNode:
		v, err := c.node(n.Alias, depth+1)
		if err != nil {
			return nil, err
		}
		cp := *v
		cp.Line, cp.Column = out.Line, out.Column
		return &cp, nil
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			out.Kind = skillcat.Null
			return out, nil
		}
		return c.node(n.Content[0], depth)
	case yaml.MappingNode:
		out.Kind = skillcat.Object
		if len(n.Content) >= 2 {
			out.Members = make([]skillcat.Member, 0, len(n.Content)/2)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				return nil, c.fail(k, "member names must be plain strings, not a YAML %s", kindName(k))
			}
			if k.Tag == "!!merge" {
				return nil, c.fail(k, "YAML merge keys (<<) are not supported; write the members out")
			}
			c.push(skillcat.Step{Name: k.Value})
			val, err := c.node(v, depth+1)
			c.pop()
			if err != nil {
				return nil, err
			}
			key := c.newNode(skillcat.Node{Kind: skillcat.String, Text: k.Value, Line: k.Line + c.lineOffset, Column: k.Column})
			out.Members = append(out.Members, skillcat.Member{Name: k.Value, Key: key, Value: val})
		}
	case yaml.SequenceNode:
		out.Kind = skillcat.Array
		if len(n.Content) > 0 {
			out.Items = make([]*skillcat.Node, 0, len(n.Content))
		}
		for i, it := range n.Content {
			c.push(skillcat.Step{Index: i, IsIndex: true})
			v, err := c.node(it, depth+1)
			c.pop()
			if err != nil {
				return nil, err
			}
			out.Items = append(out.Items, v)
		}
	case yaml.ScalarNode:
		return c.scalar(n, out)
	default:
		return nil, c.fail(n, "unsupported YAML node")
	}
	return out, nil
}

// YAML 1.2 core schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution):
// the plain scalars that resolve to null, booleans, integers and floats.
// Everything else is a string. Each matcher is the regular expression in
// its comment, written out (TestCoreMatchersAreTheRegexps holds them to it):
// every plain scalar of a front matter goes through them.

// coreNull matches ^(null|Null|NULL|~|)$.
func coreNull(v string) bool {
	switch v {
	case "null", "Null", "NULL", "~", "":
		return true
	}
	return false
}

// coreBool matches ^(true|True|TRUE|false|False|FALSE)$.
func coreBool(v string) bool {
	switch v {
	case "true", "True", "TRUE", "false", "False", "FALSE":
		return true
	}
	return false
}

// coreInt matches ^[-+]?[0-9]+$.
func coreInt(v string) bool {
	if v != "" && (v[0] == '-' || v[0] == '+') {
		v = v[1:]
	}
	return v != "" && onlyDigits(v, 10)
}

// coreOct matches ^0o[0-7]+$.
func coreOct(v string) bool {
	d, ok := strings.CutPrefix(v, "0o")
	return ok && d != "" && onlyDigits(d, 8)
}

// coreHex matches ^0x[0-9a-fA-F]+$.
func coreHex(v string) bool {
	d, ok := strings.CutPrefix(v, "0x")
	return ok && d != "" && onlyDigits(d, 16)
}

// onlyDigits reports whether every byte of s is a digit of base 8, 10 or
// 16 (either case): strings.TrimLeft with the digits as its cutset, which
// made a set of them at each call, for every scalar of a front matter.
func onlyDigits(s string, base int) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '7':
		case c == '8' || c == '9':
			if base < 10 {
				return false
			}
		case base == 16 && (c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'):
		default:
			return false
		}
	}
	return true
}

// coreFloat matches ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$.
func coreFloat(v string) bool {
	if v != "" && (v[0] == '-' || v[0] == '+') {
		v = v[1:]
	}
	mant, exp := v, ""
	if i := strings.IndexAny(v, "eE"); i >= 0 {
		mant, exp = v[:i], v[i+1:]
		if exp != "" && (exp[0] == '-' || exp[0] == '+') {
			exp = exp[1:]
		}
		if exp == "" || !onlyDigits(exp, 10) {
			return false
		}
	}
	whole, frac, dot := strings.Cut(mant, ".")
	if !onlyDigits(whole, 10) || !onlyDigits(frac, 10) {
		return false
	}
	return whole != "" || dot && frac != ""
}

// coreInf matches ^([-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))$.
func coreInf(v string) bool {
	switch v {
	case ".nan", ".NaN", ".NAN":
		return true
	}
	if v != "" && (v[0] == '-' || v[0] == '+') {
		v = v[1:]
	}
	return v == ".inf" || v == ".Inf" || v == ".INF"
}

// scalar converts a YAML scalar by the YAML 1.2 core schema. A plain scalar
// is resolved by its text alone (010 is ten, 1e400 a number, 2001-12-14 a
// string); a quoted or block scalar is a string; an explicit tag !!str,
// !!null, !!bool, !!int or !!float is honoured, and any other tag
// (!!timestamp, !!binary, local tags) leaves the text as written.
func (c *converter) scalar(n *yaml.Node, out *skillcat.Node) (*skillcat.Node, error) {
	out.Kind, out.Text = skillcat.String, n.Value
	tag := ""
	switch {
	case n.Style&yaml.TaggedStyle != 0:
		tag = n.ShortTag()
	case n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return out, nil
	}
	v := n.Value
	switch {
	case tag == "!!null" || tag == "" && coreNull(v):
		if !coreNull(v) {
			return c.problem(n, out, "%q tagged !!null is not a YAML null; write null or ~", v)
		}
		out.Kind, out.Text = skillcat.Null, ""
	case tag == "!!bool" || tag == "" && coreBool(v):
		if !coreBool(v) {
			return c.problem(n, out, "%q is not a boolean JSON knows; write true or false", v)
		}
		out.Kind, out.Text = skillcat.Bool, strings.ToLower(v)
	case tag == "!!int" || tag == "!!float" || tag == "" && isCoreNumber(v):
		text, err := jsonNumber(v)
		if err != nil {
			return c.problem(n, out, "%v", err)
		}
		out.Kind, out.Text = skillcat.Number, text
	}
	return out, nil
}

// problem records a conversion problem at n and goes on converting, so that
// every problem of a file is reported; out stays a string.
func (c *converter) problem(n *yaml.Node, out *skillcat.Node, format string, args ...any) (*skillcat.Node, error) {
	c.problems = append(c.problems, c.violation(n, fmt.Sprintf(format, args...)))
	return out, nil
}

func isCoreNumber(v string) bool {
	return coreInt(v) || coreOct(v) || coreHex(v) || coreFloat(v) || coreInf(v)
}

// jsonNumber converts a YAML 1.2 core number into JSON number text: a sign
// "+" and leading zeros are dropped (010 is 10), octal 0o and hex 0x become
// decimal, ".5" becomes 0.5 and "5." 5.0; the digits are otherwise kept as
// written, and the result is held to skillcat.CheckNumber's bounds.
func jsonNumber(v string) (string, error) {
	switch {
	case coreInf(v):
		return "", fmt.Errorf("YAML number %s has no JSON equivalent; write a plain decimal number, or quote it to make it a string", v)
	case coreOct(v) || coreHex(v):
		if len(v) > skillcat.MaxNumberLength {
			return "", skillcat.CheckNumber(v)
		}
		i, _ := new(big.Int).SetString(v, 0)
		return i.String(), skillcat.CheckNumber(i.String())
	case !coreFloat(v): // coreInt is a subset of it
		return "", fmt.Errorf("%q is not a YAML 1.2 number (digits, 0o octal, 0x hex, or a decimal with an exponent); remove the tag to make it a string", v)
	}
	neg := strings.HasPrefix(v, "-")
	v = strings.TrimLeft(v, "+-")
	mant, exp := v, ""
	if i := strings.IndexAny(v, "eE"); i >= 0 {
		mant, exp = v[:i], v[i:]
	}
	whole, frac, dot := strings.Cut(mant, ".")
	whole = strings.TrimLeft(whole, "0")
	if whole == "" {
		whole = "0"
	}
	if dot && frac == "" {
		frac = "0"
	}
	text := whole
	if dot {
		text += "." + frac
	}
	if neg {
		text = "-" + text
	}
	text += exp
	return text, skillcat.CheckNumber(text)
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "sequence"
	}
	return "value"
}
