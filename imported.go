package skillcat

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ImportOptions are a provider's choices when a foreign document (an
// OpenAPI document, an MCP server.json, an A2A agent card) is turned into
// skill descriptors.
type ImportOptions struct {
	// Prefix is the first segment of every id; "" derives one from the
	// document. It must be a valid id when set.
	Prefix string
	// Access is every skill's access level; "" means public, or restricted
	// for a skill whose auth is required.
	Access Access
	// Location is the URL the document was fetched from, against which
	// relative URLs in it resolve; "" for a local file.
	Location string
	// Server, when set, is the absolute base URL of the service, used
	// instead of the one the document names (or fails to name).
	Server string
}

// Imported is what an importer made of one foreign document.
type Imported struct {
	// Format is the importer's name: "openapi", "mcp" or "a2a".
	Format string
	// Document names the imported document in its own words (the API's
	// title, the server's name, the agent's name).
	Document string
	// Prefix is the id prefix every skill's id starts with (for a list of
	// MCP servers, the first server's).
	Prefix string
	// Folder is the subfolder of the content directory its sources belong
	// in, a valid id.
	Folder string
	// Skills are the descriptors, in the document's order.
	Skills []*SkillDescriptor
	// Warnings name every piece of the document that was dropped or
	// changed on the way, each with severity warning, each once.
	Warnings Violations

	warned map[warnKey]bool // the Warnings, to say each once
}

// Warn records a warning about the piece of the imported document at
// pointer (a JSON Pointer into it, "" for the whole document).
func (im *Imported) Warn(file string, line, col int, pointer, reason string) {
	im.warn(importViolation(file, line, col, pointer, reason, SeverityWarning))
}

// warn records v unless the same warning is already there: a piece of
// the document that every operation inherits (a document-wide security
// requirement) is dropped once per skill, and said once.
func (im *Imported) warn(v Violation) {
	k := warnKey{v.File, v.Pointer, v.Reason, v.Line, v.Column}
	if im.warned[k] {
		return
	}
	if im.warned == nil {
		im.warned = map[warnKey]bool{}
	}
	im.warned[k] = true
	im.Warnings = append(im.Warnings, v)
}

// warnKey is what makes two warnings the same.
type warnKey struct {
	file, pointer, reason string
	line, col             int
}

// WarnAt is Warn for an importer that knows the place as a Path, having
// read its pointer against the document, so that a member named "200" is
// not taken for an index.
func (im *Imported) WarnAt(file string, line, col int, at Path, reason string) {
	v := Violation{File: file, Line: line, Column: col, Field: FileField, Reason: reason, Severity: SeverityWarning}
	if len(at) > 0 {
		v.Pointer, v.Field = at.Pointer(), at.Field()
	}
	im.warn(v)
}

// ImportError is the error of an importer that cannot import the piece of
// the document at pointer (a JSON Pointer into it, "" for the whole
// document); a line without a column reads as its column 1.
func ImportError(file string, line, col int, pointer, reason string) Violation {
	if line > 0 && col == 0 {
		col = 1
	}
	return importViolation(file, line, col, pointer, reason, SeverityError)
}

func importViolation(file string, line, col int, pointer, reason string, sev Severity) Violation {
	field := FileField
	if pointer != "" {
		field = PointerField(pointer)
	}
	return Violation{File: file, Line: line, Column: col, Pointer: pointer, Field: field, Reason: reason, Severity: sev}
}

// Slug turns text into lowercase ASCII words joined by "-", at most max
// bytes long, cut at a word boundary when it can be: "listPets" becomes
// "list-pets", "GET /pets/{id}" "get-pets-id", "Café Öl" "cafe-ol". It
// returns "" when text has no letter or digit it can keep.
func Slug(text string, max int) string {
	var b strings.Builder
	sep := false
	var prev rune
	for _, r := range text {
		r = fold(r)
		orig := r
		lower := (prev >= 'a' && prev <= 'z') || (prev >= '0' && prev <= '9')
		switch {
		case r >= 'A' && r <= 'Z':
			if lower {
				sep = true // a camelCase boundary
			}
			r += 'a' - 'A'
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
		default:
			sep, prev = true, r
			continue
		}
		if sep && b.Len() > 0 {
			b.WriteByte('-')
		}
		sep = false
		b.WriteRune(r)
		prev = orig
	}
	s := b.String()
	if len(s) > max {
		s = s[:max]
		if i := strings.LastIndexByte(s, '-'); i > max/2 {
			s = s[:i]
		}
		s = strings.TrimRight(s, "-")
	}
	return s
}

// fold maps a Latin letter with a diacritic to its base letter ("é" → "e",
// "Ö" → "O") and leaves every other rune alone.
func fold(r rune) rune {
	if r < utf8.RuneSelf {
		return r
	}
	const from = "àáâãäåçèéêëìíîïñòóôõöøùúûüýÿÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÑÒÓÔÕÖØÙÚÛÜÝ"
	const to = "aaaaaaceeeeiiiinoooooouuuuyyAAAAAACEEEEIIIINOOOOOOUUUUY"
	if i := strings.IndexRune(from, r); i >= 0 {
		return rune(to[utf8.RuneCountInString(from[:i])])
	}
	return r
}

// IDGroups turns text into an id fragment: Slug's words, with the "."
// of dotted names (a host, a reverse-DNS namespace) kept between them.
// "io.github.User/weather" becomes "io.github.user.weather".
func IDGroups(text string, max int) string {
	var parts []string
	for _, p := range strings.FieldsFunc(text, func(r rune) bool { return r == '.' || r == '/' }) {
		if s := Slug(p, max); s != "" {
			parts = append(parts, s)
		}
	}
	s := strings.Join(parts, ".")
	if len(s) > max {
		s = strings.TrimRight(s[:max], ".-")
	}
	return s
}

// TagOf returns text as a tag (lowercase letters, digits and "-", at most
// 32 characters, starting with a letter or digit), or "" when nothing of it
// can be kept.
func TagOf(text string) string {
	return Slug(text, 32)
}

// TagDropped is an importer's warning for a tag of text of which TagOf
// keeps nothing ("日本", "!!!").
func TagDropped(text string) string {
	return "tag " + strconv.Quote(text) + ` dropped: a tag keeps only the letters a-z, digits and "-", and it has none`
}

// UniqueIDs hands out ids that are unique among those it has handed out:
// the second "a.b" is "a.b-2", the third "a.b-3".
type UniqueIDs map[string]int

// Make returns id, or id with the smallest "-N" suffix not yet used, cut so
// that the result is at most 128 characters.
func (u UniqueIDs) Make(id string) string {
	if len(id) > 128 {
		id = strings.TrimRight(id[:128], "._-")
	}
	if u[id] == 0 {
		u[id] = 1
		return id
	}
	for n := u[id] + 1; ; n++ {
		suffix := "-" + strconv.Itoa(n)
		base := id
		if len(base)+len(suffix) > 128 {
			base = strings.TrimRight(base[:128-len(suffix)], "._-")
		}
		if cand := base + suffix; u[cand] == 0 {
			u[id] = n
			u[cand] = 1
			return cand
		}
	}
}

// SemVerOf returns version as a SemVer 2.0.0 version, and whether it had
// to change it: "v1.2" becomes "1.2.0", "2" "2.0.0", "1.0 beta" "1.0.0+beta",
// "2021-06-01" "2021.6.1", and text with no number "0.0.0+" and its words.
// An empty version is "0.1.0".
func SemVerOf(version string) (string, bool) {
	v := strings.TrimSpace(version)
	if semverPattern(v) {
		return v, false
	}
	if v == "" {
		return "0.1.0", true
	}
	rest := strings.TrimLeft(v, "vV")
	var nums []string
	for len(nums) < 3 {
		i := 0
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 {
			break
		}
		n := strings.TrimLeft(rest[:i], "0")
		if n == "" {
			n = "0"
		}
		if len(n) > 18 {
			break
		}
		nums = append(nums, n)
		rest = rest[i:]
		if len(rest) == 0 || (rest[0] != '.' && rest[0] != '-') || len(rest) < 2 || rest[1] < '0' || rest[1] > '9' {
			break
		}
		rest = rest[1:]
	}
	if len(nums) == 0 {
		rest = v
	}
	for len(nums) < 3 {
		nums = append(nums, "0")
	}
	out := strings.Join(nums, ".")
	var meta []string
	for _, w := range strings.FieldsFunc(rest, func(r rune) bool {
		return !(r < utf8.RuneSelf && (r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r)))
	}) {
		if w = strings.Trim(w, "-"); w != "" {
			meta = append(meta, w)
		}
	}
	if len(meta) > 0 {
		out += "+" + strings.Join(meta, ".")
	}
	if !semverPattern(out) || out == "0.0.0" {
		return "0.1.0", true
	}
	return out, true
}

// semverPattern reports whether v is a SemVer 2.0.0 version.
func semverPattern(v string) bool {
	core, meta, hasMeta := strings.Cut(v, "+")
	core, pre, hasPre := strings.Cut(core, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return false
	}
	for _, p := range parts {
		if !numeric(p) {
			return false
		}
	}
	if hasPre && !identifiers(pre, true) {
		return false
	}
	return !hasMeta || identifiers(meta, false)
}

func numeric(p string) bool {
	if p == "" || (len(p) > 1 && p[0] == '0') {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] < '0' || p[i] > '9' {
			return false
		}
	}
	return true
}

// identifiers checks dot-separated SemVer identifiers; numeric ones may
// not have leading zeros in a pre-release.
func identifiers(s string, pre bool) bool {
	for _, id := range strings.Split(s, ".") {
		if id == "" {
			return false
		}
		digits := true
		for i := 0; i < len(id); i++ {
			c := id[i]
			switch {
			case c >= '0' && c <= '9':
			case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '-':
				digits = false
			default:
				return false
			}
		}
		if pre && digits && len(id) > 1 && id[0] == '0' {
			return false
		}
	}
	return true
}

// Label returns text as a name or label: white space collapsed, at most
// max characters, cut at a word boundary with "…" when longer; "" when
// text is blank.
func Label(text string, max int) string {
	s := strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)[:max-1]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,.;:") + "…"
}

// PointerField phrases a JSON Pointer into a foreign document as a field
// path, as Path.Field does: paths["/pets"].get.parameters[2]. The document
// is not at hand, so a token that reads as an index is taken for one
// (PointerPath); an importer that has the document reads the pointer
// against it and warns with Imported.WarnAt.
func PointerField(pointer string) string {
	if pointer == "" {
		return ""
	}
	return PointerPath(pointer).Field()
}

// PointerPath returns the Path of a JSON Pointer into a document that is
// not at hand: a token that reads as an index (IndexToken) is taken for
// one, any other token for a member name.
func PointerPath(pointer string) Path {
	toks := ParsePointer(pointer)
	p := make(Path, len(toks))
	for i, tok := range toks {
		if k, ok := IndexToken(tok); ok {
			p[i] = Step{Index: k, IsIndex: true}
		} else {
			p[i] = Step{Name: tok}
		}
	}
	return p
}

// IndexToken reports whether a JSON Pointer reference token can name an
// array item (RFC 6901: "0", or digits without a leading zero), and which.
func IndexToken(tok string) (int, bool) {
	k, err := strconv.Atoi(tok)
	return k, err == nil && k >= 0 && strconv.Itoa(k) == tok
}
