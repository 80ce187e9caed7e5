package build

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// yaml.v3 reports a syntax error as "yaml: line N: <problem>" in the words
// of libyaml, with no column, and for some problems the line of where the
// construct began rather than of the mistake. yamlProblem turns it into
// our words at the line and column of the mistake, read from the text.

var (
	yamlLineRE   = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)
	yamlAnchorRE = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)
)

// yamlParserErrors are the problems yaml.v3's parser (as opposed to its
// scanner) reports. It numbers their lines from 0, the scanner's from 1
// (decode.go, parser.fail), so these need one added.
var yamlParserErrors = map[string]bool{
	"did not find expected <stream-start>":   true,
	"did not find expected <document start>": true,
	"found undefined tag handle":             true,
	"did not find expected node content":     true,
	"did not find expected '-' indicator":    true,
	"did not find expected key":              true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found duplicate %TAG directive":         true,
}

// yamlProblem explains a yaml.v3 error about the YAML text yml, whose
// first line is line first of its file: the line (1-based, within yml) and
// column (in code points) of the mistake, and the reason in plain words.
func yamlProblem(yml []byte, first int, err error) (line, col int, reason string) {
	lines := strings.Split(string(yml), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	at := func(n int) string {
		if n >= 1 && n <= len(lines) {
			return lines[n-1]
		}
		return ""
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line = 1
	if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
		msg = m[2]
		if m[1] != "" {
			line, _ = strconv.Atoi(m[1])
			if yamlParserErrors[msg] {
				line++
			}
		}
	}
	line = min(max(line, 1), max(len(lines), 1))
	col = firstColumn(at(line))

	// A tab in the indentation, on this line or the next one (the scanner
	// reports some at the line before).
	if strings.Contains(msg, "tab character") || msg == "found character that cannot start any token" {
		for n := line; n <= line+1 && n <= len(lines); n++ {
			l := at(n)
			indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
			if i := strings.IndexByte(indent, '\t'); i >= 0 {
				return n, utf8.RuneCountInString(l[:i]) + 1, "a tab indents this line; YAML indents with spaces only"
			}
		}
	}
	if msg == "did not find expected key" || strings.HasPrefix(msg, "found unexpected end of stream") {
		// A quoted value may span lines, so one left open reads on until
		// the next quote of its kind and the error comes later.
		if n, c, q := unclosedQuote(lines, line); n > 0 {
			return n, c, fmt.Sprintf("the quoted value that starts here is never closed; end it with %c on this line", q)
		}
	}
	if msg == "did not find expected key" || msg == "mapping values are not allowed in this context" {
		if p := previousContent(lines, line); p > 0 && indentOf(at(line)) > indentOf(at(p)) {
			if v, _ := valueStart(at(p)); v != "" {
				return line, firstColumn(at(line)), fmt.Sprintf("this line is indented deeper than line %d, whose member already has a value; align it with line %d, or nest it under a member that has no value of its own", p+first-1, p+first-1)
			}
		}
	}
	switch {
	case msg == "found character that cannot start any token":
		l := at(line)
		if v, c := valueStart(l); v != "" && strings.ContainsAny(v[:1], "@`%") {
			return line, c, fmt.Sprintf("a plain YAML value cannot start with %q; quote it: %q", v[:1], strings.TrimSpace(v))
		}
	case msg == "mapping values are not allowed in this context":
		if v, c := valueStart(at(line)); v != "" {
			if i := strings.Index(v, ": "); i >= 0 || strings.HasSuffix(v, ":") {
				if i < 0 {
					i = len(v) - 1
				}
				return line, c + utf8.RuneCountInString(v[:i]), fmt.Sprintf("a colon followed by a space cannot stand in an unquoted value; quote the value: %q", strings.TrimSpace(v))
			}
		}
	case strings.HasPrefix(msg, "found unexpected end of stream"):
		return line, col, "a quoted value is never closed"
	case msg == "did not find expected key":
		return line, col, "this line is indented differently from the members before it; the members of one mapping must start in the same column"
	case msg == "did not find expected '-' indicator":
		// Reported at the list's first item; the mistake is the first line
		// at that indentation that is not an item.
		ind := indentOf(at(line))
		for n := line + 1; n <= len(lines); n++ {
			if l := at(n); strings.TrimSpace(l) != "" && indentOf(l) == ind && !strings.HasPrefix(strings.TrimSpace(l), "- ") && strings.TrimSpace(l) != "-" {
				return n, firstColumn(l), `this line stands among the items of a list, which all start with "- "; make it an item, or indent it under one`
			}
		}
		return line, col, `a list item must start with "- " here`
	case msg == "did not find expected ',' or ']'", msg == "did not find expected ',' or '}'":
		open, close := "[", "]"
		if strings.HasSuffix(msg, "'}'") {
			open, close = "{", "}"
		}
		// yaml.v3 gives the line where the flow was opened, but for one
		// opened on the first line (its mark at line 0 reads as none) the
		// line where it found the problem: the nearest line above that
		// holds the opening is it.
		for n := line; n >= 1; n-- {
			if i := strings.LastIndex(at(n), open); i >= 0 {
				line, col = n, utf8.RuneCountInString(at(n)[:i])+1
				break
			}
		}
		return line, col, fmt.Sprintf("the %q opened here is never closed with %q on this line; close it, or quote a value that holds a comma, bracket or brace", open, close)
	case msg == "found unknown escape character":
		l := at(line)
		for i := 0; i+1 < len(l); i++ {
			if l[i] == '\\' {
				if !strings.ContainsRune(`0abt	ntvfre "/\N_LPxuU`, rune(l[i+1])) {
					return line, utf8.RuneCountInString(l[:i]) + 1, fmt.Sprintf(`"%s" is not an escape a double-quoted YAML string knows; write \\ for a backslash, or use single quotes`, l[i:i+2])
				}
				i++
			}
		}
	}
	if m := yamlAnchorRE.FindStringSubmatch(msg); m != nil {
		// yaml.v3 gives no position; the first use of the alias is it.
		if i := bytes.Index(yml, []byte("*"+m[1])); i >= 0 {
			nl := bytes.LastIndexByte(yml[:i], '\n')
			return bytes.Count(yml[:i], []byte("\n")) + 1, utf8.RuneCount(yml[nl+1:i]) + 1,
				fmt.Sprintf("the alias *%s names no anchor; mark the value it repeats with &%s first", m[1], m[1])
		}
	}
	return line, col, msg
}

// firstColumn is the column of a line's first character that is not a
// space or tab, 1 for a blank line.
func firstColumn(l string) int {
	return utf8.RuneCountInString(l[:len(l)-len(strings.TrimLeft(l, " \t"))]) + 1
}

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

// previousContent returns the number of the last line before n that holds
// something other than white space or a comment, or 0.
func previousContent(lines []string, n int) int {
	for p := n - 1; p >= 1; p-- {
		if t := strings.TrimSpace(lines[p-1]); t != "" && !strings.HasPrefix(t, "#") {
			return p
		}
	}
	return 0
}

// unclosedQuote finds the first line up to upto whose value opens a
// quote that the line does not close: its number, the quote's column and
// the quote character, or 0.
func unclosedQuote(lines []string, upto int) (int, int, byte) {
	for n := 1; n <= upto && n <= len(lines); n++ {
		v, c := valueStart(lines[n-1])
		if v == "" || (v[0] != '"' && v[0] != '\'') {
			continue
		}
		q, closed := v[0], false
		for i := 1; i < len(v); i++ {
			switch {
			case q == '"' && v[i] == '\\':
				i++
			case v[i] == q && q == '\'' && i+1 < len(v) && v[i+1] == '\'':
				i++ // '' is a quote inside single quotes
			case v[i] == q:
				closed = true
			}
			if closed {
				break
			}
		}
		if !closed {
			return n, c, q
		}
	}
	return 0, 0, 0
}

// valueStart returns the value of a "key: value" or "- value" line and the
// column it starts at, or "" when the line holds no value after its key.
func valueStart(l string) (string, int) {
	rest := strings.TrimLeft(l, " \t")
	for strings.HasPrefix(rest, "- ") {
		rest = strings.TrimLeft(rest[2:], " ")
	}
	if i := strings.Index(rest, ": "); i >= 0 && !strings.ContainsAny(rest[:1], `"'`) {
		rest = strings.TrimLeft(rest[i+2:], " ")
	} else if rest == strings.TrimLeft(l, " \t") {
		return "", 0
	}
	if rest == "" || rest[0] == '#' {
		return "", 0
	}
	return rest, utf8.RuneCountInString(l[:len(l)-len(rest)]) + 1
}

// droppedLine finds what yaml.v3 parses without a word and drops: when
// the front matter's top-level mapping starts indented, a later line
// indented less ends it, and yaml.v3 ignores that line and the rest. It
// returns the first such line (1-based, within yml) and its column, or 0.
func droppedLine(yml []byte, doc *yaml.Node) (line, col int) {
	if len(doc.Content) == 0 || doc.Content[0].Column <= 1 {
		return 0, 0
	}
	root := doc.Content[0]
	for n, l := range strings.Split(string(yml), "\n") {
		t := strings.TrimSpace(l)
		if n+1 <= root.Line || t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if c := firstColumn(l); c < root.Column {
			return n + 1, c
		}
	}
	return 0, 0
}
