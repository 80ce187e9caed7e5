package skillcat

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Severity says whether a Violation fails validation.
type Severity string

// The severities of a Violation.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// FileField is the Field of a violation that concerns the whole file rather
// than one member: empty, not UTF-8, not a JSON object, a syntax error, and
// so on.
const FileField = "(file)"

// Violation is one problem found in a source document: where it is (file,
// 1-based line and column counted in Unicode code points), which member (as a
// JSON Pointer and as a dotted field path such as examples[0].inputs), and
// why, in plain words with the offending value.
type Violation struct {
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Column   int      `json:"column"`
	Pointer  string   `json:"pointer"`
	Field    string   `json:"field"`
	Reason   string   `json:"reason"`
	Severity Severity `json:"severity"`

	// Err is a sentinel the violation stands for, such as
	// ErrIncompatibleVersion, or nil.
	Err error `json:"-"`
}

// Error formats the violation as "file:line:col: field: reason", adding
// "warning: " before the field for warnings.
func (v Violation) Error() string {
	var b strings.Builder
	b.WriteString(EscapeName(v.File))
	if v.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", v.Line, v.Column)
	}
	b.WriteString(": ")
	if v.Severity == SeverityWarning {
		b.WriteString("warning: ")
	}
	b.WriteString(EscapeName(v.Field))
	b.WriteString(": ")
	b.WriteString(v.Reason)
	return b.String()
}

// EscapeName returns a file or member name fit for one line of text
// output: unchanged when every character of it prints, and otherwise
// double-quoted with Go escapes ("a\nb.json", "\x1b[31m"), so that a name
// can neither forge a line (a violation, a GitHub Actions "::error"
// command) nor drive a terminal, nor hide behind bidirectional controls.
func EscapeName(s string) string {
	for _, r := range s {
		if !unicode.IsPrint(r) || r == utf8.RuneError {
			return strconv.Quote(s)
		}
	}
	return s
}

// Unwrap returns the sentinel error the violation stands for, if any.
func (v Violation) Unwrap() error { return v.Err }

// Violations is every problem found in one or more documents.
type Violations []Violation

// HasErrors reports whether any violation has error severity.
func (vs Violations) HasErrors() bool {
	for _, v := range vs {
		if v.Severity != SeverityWarning {
			return true
		}
	}
	return false
}

// Err returns the violations as an error when any of them is an error, and
// nil otherwise. The error unwraps to each violation, so errors.Is finds a
// sentinel such as ErrIncompatibleVersion.
func (vs Violations) Err() error {
	if !vs.HasErrors() {
		return nil
	}
	return vs
}

// Error lists the violations one per line.
func (vs Violations) Error() string {
	lines := make([]string, len(vs))
	for i, v := range vs {
		lines[i] = v.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns each violation as an error.
func (vs Violations) Unwrap() []error {
	errs := make([]error, len(vs))
	for i, v := range vs {
		errs[i] = v
	}
	return errs
}

// Sort orders violations by file, line, column, field and reason.
func (vs Violations) Sort() {
	sort.SliceStable(vs, func(i, j int) bool {
		a, b := vs[i], vs[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		if a.Field != b.Field {
			return a.Field < b.Field
		}
		return a.Reason < b.Reason
	})
}

// AsViolations returns the violations inside err, if it holds any.
func AsViolations(err error) (Violations, bool) {
	var vs Violations
	if errors.As(err, &vs) {
		return vs, true
	}
	return nil, false
}

// Path is a location inside a document: the steps from its root, each
// into a member of an object or an item of an array. A step knows which it
// is, so a member named "0" prints ["0"] and an array's first item [0].
type Path []Step

// Step is one step of a Path: into the member Name of an object or, when
// IsIndex is set, into the item Index of an array.
type Step struct {
	Name    string
	Index   int
	IsIndex bool
}

// Members returns the path of nested members names, such as
// Members("provider", "name").
func Members(names ...string) Path {
	p := make(Path, len(names))
	for i, name := range names {
		p[i] = Step{Name: name}
	}
	return p
}

// Member returns p followed by the member name; p itself is unchanged.
func (p Path) Member(name string) Path { return p[:len(p):len(p)].stepMember(name) }

// walkPath is an empty Path with room for a walk's steps: a walk that
// reads its paths only to phrase a violation while it is at a node, and
// never keeps one, appends each step in place (stepMember, stepItem:
// siblings overwrite one another's), so that it allocates no path of its
// own up to this depth.
func walkPath() Path { return make(Path, 0, 16) }

// stepMember and stepItem return p followed by the member name or the
// array index i, written in p's own room when it has some: a walk's step
// (walkPath), which p's other children overwrite.
func (p Path) stepMember(name string) Path { return append(p, Step{Name: name}) }
func (p Path) stepItem(i int) Path         { return append(p, Step{Index: i, IsIndex: true}) }

// Item returns p followed by the array index i; p itself is unchanged.
func (p Path) Item(i int) Path {
	return p[:len(p):len(p)].stepItem(i)
}

// Token returns the step as a JSON Pointer reference token, unescaped.
func (s Step) Token() string {
	if s.IsIndex {
		return strconv.Itoa(s.Index)
	}
	return s.Name
}

var (
	pointerEscaper   = strings.NewReplacer("~", "~0", "/", "~1")
	pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

// Pointer returns the path as a JSON Pointer (RFC 6901), "" for the root.
func (p Path) Pointer() string {
	var b strings.Builder
	for _, s := range p {
		b.WriteByte('/')
		b.WriteString(pointerEscaper.Replace(s.Token()))
	}
	return b.String()
}

// ParsePointer splits a JSON Pointer (RFC 6901) into its unescaped
// reference tokens; "" is the root. Whether a token indexes an array is
// the document's to say (Node.PathOf).
func ParsePointer(ptr string) []string {
	if ptr == "" {
		return nil
	}
	toks := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i, t := range toks {
		toks[i] = pointerUnescaper.Replace(t)
	}
	return toks
}

// Field returns the path as a dotted field path, with array indexes in
// brackets (examples[0].inputs) and member names that are not plain
// identifiers quoted (inputs.properties["a b"], a member named "0" as
// ["0"]); "(file)" stands for the root itself.
func (p Path) Field() string {
	if len(p) == 0 {
		return FileField
	}
	var b strings.Builder
	for _, s := range p {
		switch {
		case s.IsIndex:
			b.WriteString("[" + strconv.Itoa(s.Index) + "]")
		case plainName(s.Name):
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Name)
		default:
			b.WriteString("[" + strconv.Quote(s.Name) + "]")
		}
	}
	return b.String()
}

// plainName reports whether a member name can stand in a dotted path as is.
func plainName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r == '$' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z'):
		case i > 0 && (r == '-' || (r >= '0' && r <= '9')):
		default:
			return false
		}
	}
	return true
}

// Source is a document's name and bytes, which turn node offsets into lines
// and columns.
type Source struct {
	Name string
	Data []byte

	lineStarts []int
	positions  int // OffsetPosition's calls
}

// Position returns the 1-based line and column of n in the source. A node
// that carries its own line and column (from YAML front matter) keeps them.
func (s *Source) Position(n *Node) (line, col int) {
	if n == nil {
		return 0, 0
	}
	if n.Line > 0 {
		return n.Line, n.Column
	}
	return s.OffsetPosition(n.Offset)
}

// OffsetPosition returns the 1-based line and column of a byte offset, the
// column counted in Unicode code points. The first position of a source
// (often its only one: a valid source's id) is counted directly; from the
// second on, the starts of its lines are kept.
func (s *Source) OffsetPosition(off int) (line, col int) {
	off = min(max(off, 0), len(s.Data))
	if s.positions++; s.positions == 1 {
		start := bytes.LastIndexByte(s.Data[:off], '\n') + 1
		return bytes.Count(s.Data[:start], []byte("\n")) + 1, utf8.RuneCount(s.Data[start:off]) + 1
	}
	if s.lineStarts == nil {
		s.lineStarts = []int{0}
		for i, c := range s.Data {
			if c == '\n' {
				s.lineStarts = append(s.lineStarts, i+1)
			}
		}
	}
	l := sort.Search(len(s.lineStarts), func(i int) bool { return s.lineStarts[i] > off }) - 1
	return l + 1, utf8.RuneCount(s.Data[s.lineStarts[l]:off]) + 1
}

// violation builds an error Violation at node n of the source.
func (s *Source) violation(n *Node, path Path, reason string) Violation {
	line, col := s.Position(n)
	return Violation{
		File: s.Name, Line: line, Column: col,
		Pointer: path.Pointer(), Field: path.Field(),
		Reason: reason, Severity: SeverityError,
	}
}

// fileViolation builds a file-level error Violation.
func (s *Source) fileViolation(line, col int, reason string) Violation {
	return Violation{File: s.Name, Line: line, Column: col, Field: FileField, Reason: reason, Severity: SeverityError}
}

// quoteValue renders a JSON value for a reason, shortened when long.
func quoteValue(n *Node) string {
	if n == nil {
		return "nothing"
	}
	var s string
	switch n.Kind {
	case String:
		s = string(appendString(nil, n.Text))
	case Object:
		return "an object"
	case Array:
		return "an array"
	case Null:
		return "null"
	default:
		s = n.Text
	}
	if utf8.RuneCountInString(s) > 80 {
		r := []rune(s)
		s = string(r[:77]) + "…"
	}
	return s
}
