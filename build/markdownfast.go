package build

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/util"
)

// markdownFast renders src as markdown (goldmark with this package's
// extensions, transformer and safeRenderer) does, without parsing it into
// a tree, when src lies in the plain subset nearly every description is
// written in; ok is false for anything else, and the caller parses. out
// may then hold part of a rendering, which the caller discards.
//
// The subset, by blocks, each line without a tab, a control character,
// leading white space or (outside code) a trailing space:
//   - paragraphs, whose every line begins as no other block can (a letter,
//     digits not followed by "." or ")", a single backtick, a star before a
//     word, one of `([&.,;:!?')/$%"`, a "<" that opens no HTML block);
//   - ATX headings ("# " to "###### " and text not ending in "#"), shifted
//     and given ids as pageTransformer does;
//   - tight bullet lists of "- " items and ordered lists of "1. ", "2. "
//     … items starting at 1, each item of one line or continued on lines
//     indented as its text is that begin as a paragraph's later lines
//     may, followed by a blank line or the end, and no item after that
//     blank line;
//   - tables (GitHub's) whose every row begins and ends with "|", of as
//     many cells as the delimiter row, holding no backslash, after a
//     blank line, a heading or a code block and before a blank line or
//     the end;
//   - fenced code blocks opened by exactly "```" and an info string of
//     letters, digits and "+-._", closed by exactly "```", no line inside
//     beginning with three backticks.
//
// Inline: text, code spans of one backtick (no space at either end, on
// one line), star emphasis and strong emphasis whose runs only open or
// only close and match (plainParagraph's rule), inline links
// "[text](dest)" of plain text and a plain destination, raw tags "<name>"
// and "</name>" (shown as text), and "<", "&" (but before a letter, a digit
// or "#"), ">", '"' and an underscore between two ASCII letters or digits
// as text. Never an escape, an entity, an image, any other underscore,
// tildes, pipes, "@" (in code spans too: Linkify reads an email across
// their backticks), "www." or "http:", "https:", "ftp:" (where Linkify
// would find a link).
//
// FuzzMarkdownFast and TestMarkdownFastProperty hold it to goldmark byte
// for byte.
func markdownFast(src string, out *bytes.Buffer) bool {
	var store [24]fastBlock
	blocks, ok := fastBlocks(src, store[:0])
	if !ok {
		return false
	}
	top := 7
	for _, b := range blocks {
		if b.kind == blockHeading && b.level < top {
			top = b.level
		}
	}
	r := fastInline{out: out}
	var ids *headingIDs
	for i, b := range blocks {
		switch b.kind {
		case blockParagraph:
			out.WriteString("<p>")
			if !r.inline(b.text) {
				return false
			}
			out.WriteString("</p>\n")
		case blockItem:
			tag := "ul>\n"
			if b.ordered {
				tag = "ol>\n"
			}
			if i == 0 || blocks[i-1].kind != blockItem || blocks[i-1].last {
				out.WriteString("<" + tag)
			}
			out.WriteString("<li>")
			if !r.inline(b.text) {
				return false
			}
			out.WriteString("</li>\n")
			if b.last {
				out.WriteString("</" + tag)
			}
		case blockHeading:
			// The heading's text is rendered first, to know its id (from
			// its plain text) and whether it holds a link.
			start := out.Len()
			r.plain, r.link, r.wantPlain = r.plain[:0], false, true
			ok := r.inline(b.text)
			r.wantPlain = false
			if !ok {
				return false
			}
			// Only the heading's text is copied (out.String() would copy
			// the whole page written so far, the page's buffer being out's).
			body := string(out.Bytes()[start:])
			out.Truncate(start)
			if ids == nil {
				ids = newHeadingIDs()
			}
			id := ids.Generate(r.plain, ast.KindHeading)
			level := min(b.level-top+2, 6)
			writeHeadingStart(out, level, id, r.link)
			out.WriteString(body)
			writeHeadingEnd(out, level, id, r.link)
		case blockCode:
			writeFencedCode(out, b.lang, b.text)
		case blockTable:
			if !r.table(b.text) {
				return false
			}
		}
	}
	return true
}

// The kinds of fastBlock.
const (
	blockParagraph = iota
	blockHeading
	blockItem
	blockCode
	blockTable
)

// fastBlock is one block of markdownFast's subset: its kind, its inline
// text (a paragraph's lines joined by "\n") or its code, a heading's level
// as written (a list item's: its text's indentation), a code block's
// language, whether a list item is its list's last and whether its list
// is ordered.
type fastBlock struct {
	kind    int
	level   int
	text    string
	lang    string
	last    bool
	ordered bool
}

// fastBlocks splits src into the blocks of markdownFast's subset, or
// reports false.
func fastBlocks(src string, blocks []fastBlock) ([]fastBlock, bool) {
	if !utf8.ValidString(src) {
		return nil, false
	}
	const (
		none = iota
		para
		list
	)
	state := none
	paraStart, paraEnd := 0, 0
	listGap := false // blank lines after a list, and nothing else since
	closeBlock := func() {
		switch state {
		case para:
			blocks = append(blocks, fastBlock{kind: blockParagraph, text: src[paraStart:paraEnd]})
		case list:
			blocks[len(blocks)-1].last = true
			listGap = true
		}
		state = none
	}
	for i := 0; i < len(src); {
		line, next := nextLine(src, i)
		start := i
		i = next
		if line == "" {
			closeBlock()
			continue
		}
		if hasControl(line) || line[len(line)-1] == ' ' {
			return nil, false
		}
		if line[0] == ' ' {
			// Only a list item's continuation line, indented as the
			// item's text is, may begin with a space.
			if state != list {
				return nil, false
			}
			last := &blocks[len(blocks)-1]
			t := strings.TrimLeft(line, " ")
			if len(line)-len(t) != last.level || !paraStartOK(t, true) {
				return nil, false
			}
			last.text = last.text + "\n" + t
			continue
		}
		switch {
		case line[0] == '|':
			// A table: a header row, a delimiter row of as many cells,
			// rows of as many, then a blank line or the end.
			head, next2 := nextLine(src, i)
			cells := tableCells(line)
			if state != none || cells < 0 || i == len(src) || tableCells(head) != cells || !isDelimiterRow(head) {
				return nil, false
			}
			i = next2
			for i < len(src) {
				l, n := nextLine(src, i)
				if l == "" {
					break
				}
				if hasControl(l) || l[len(l)-1] == ' ' || tableCells(l) != cells {
					return nil, false
				}
				i = n
			}
			end := i
			if end > start && src[end-1] == '\n' {
				end--
			}
			blocks = append(blocks, fastBlock{kind: blockTable, text: src[start:end]})
			listGap = false
		case strings.HasPrefix(line, "```"):
			lang := line[3:]
			if state == list || !isFenceInfo(lang) {
				return nil, false
			}
			closeBlock()
			listGap = false
			codeStart, closed := i, false
			for i < len(src) {
				l, n := nextLine(src, i)
				if l == "```" {
					blocks = append(blocks, fastBlock{kind: blockCode, text: src[codeStart:i], lang: lang})
					i, closed = n, true
					break
				}
				if hasControl(l) || strings.HasPrefix(strings.TrimLeft(l, " "), "```") || n == len(src) && !strings.HasSuffix(src, "\n") {
					return nil, false
				}
				i = n
			}
			if !closed {
				return nil, false
			}
		case line[0] == '#':
			n := len(line) - len(strings.TrimLeft(line, "#"))
			if state == list || n > 6 || len(line) < n+2 || line[n] != ' ' || line[n+1] == ' ' || line[len(line)-1] == '#' {
				return nil, false
			}
			closeBlock()
			listGap = false
			blocks = append(blocks, fastBlock{kind: blockHeading, level: n, text: line[n+1:]})
		case strings.HasPrefix(line, "- ") || orderedItem(line) > 0:
			// An item: of a bullet list ("- "), or of an ordered one
			// ("1. ", then any number) that starts with 1.
			ordered, offset := false, 2
			if n := orderedItem(line); n > 0 {
				ordered, offset = true, n
			}
			if listGap || !plainStart(line[offset:]) {
				return nil, false
			}
			switch {
			case state == list && blocks[len(blocks)-1].ordered != ordered:
				return nil, false // another kind of list
			case state != list && ordered && !strings.HasPrefix(line, "1. "):
				return nil, false // a paragraph's line, or a list starting at another number
			case state == para:
				closeBlock()
			}
			state = list
			blocks = append(blocks, fastBlock{kind: blockItem, text: line[offset:], level: offset, ordered: ordered})
		default:
			switch state {
			case list:
				return nil, false // a lazy continuation line
			case para:
				if !paraStartOK(line, true) {
					return nil, false
				}
			default:
				if !paraStartOK(line, false) {
					return nil, false
				}
				state, paraStart, listGap = para, start, false
			}
			paraEnd = start + len(line)
		}
	}
	closeBlock()
	return blocks, true
}

// orderedItem returns the indentation of an ordered list item's text
// when line begins as one ("12. "), else 0.
func orderedItem(line string) int {
	n := 0
	for n < len(line) && n < 9 && '0' <= line[n] && line[n] <= '9' {
		n++
	}
	if n == 0 || !strings.HasPrefix(line[n:], ". ") {
		return 0
	}
	return n + 2
}

// tableCells returns the number of cells of a table row that begins
// and ends with "|" and holds no backslash and no cell of nothing at all
// ("||", which goldmark reads otherwise), or -1 for any other line.
func tableCells(line string) int {
	if len(line) < 3 || line[0] != '|' || line[len(line)-1] != '|' || strings.IndexByte(line, '\\') >= 0 || strings.Contains(line, "||") {
		return -1
	}
	return strings.Count(line, "|") - 1
}

// isDelimiterRow reports whether a table row is a delimiter row: each
// cell dashes, a colon at either end or both, spaces around.
func isDelimiterRow(line string) bool {
	for _, c := range strings.Split(line[1:len(line)-1], "|") {
		c = strings.Trim(c, " ")
		c = strings.TrimPrefix(strings.TrimSuffix(c, ":"), ":")
		if c == "" || strings.Trim(c, "-") != "" {
			return false
		}
	}
	return true
}

// cellAlign returns the class attribute pageTransformer gives the cells
// of a column by its delimiter cell.
func cellAlign(delim string) string {
	delim = strings.Trim(delim, " ")
	left, right := strings.HasPrefix(delim, ":"), strings.HasSuffix(delim, ":")
	switch {
	case left && right:
		return ` class="align-center"`
	case left:
		return ` class="align-left"`
	case right:
		return ` class="align-right"`
	}
	return ""
}

// table writes a table block of markdownFast's subset as goldmark's
// table extension does, or reports false.
func (r *fastInline) table(text string) bool {
	lines := strings.Split(text, "\n")
	delims := strings.Split(lines[1][1:len(lines[1])-1], "|")
	row := func(line, tag string) bool {
		r.out.WriteString("<tr>\n")
		for i, c := range strings.Split(line[1:len(line)-1], "|") {
			r.out.WriteString("<" + tag)
			r.out.WriteString(cellAlign(delims[i]))
			r.out.WriteByte('>')
			if !r.inline(strings.Trim(c, " ")) {
				return false
			}
			r.out.WriteString("</" + tag + ">\n")
		}
		r.out.WriteString("</tr>\n")
		return true
	}
	r.out.WriteString("<table>\n<thead>\n")
	if !row(lines[0], "th") {
		return false
	}
	r.out.WriteString("</thead>\n")
	if len(lines) > 2 {
		r.out.WriteString("<tbody>\n")
		for _, l := range lines[2:] {
			if !row(l, "td") {
				return false
			}
		}
		r.out.WriteString("</tbody>\n")
	}
	r.out.WriteString("</table>\n")
	return true
}

// nextLine returns the line of src at i, without its "\n", and the index
// of the next line.
func nextLine(src string, i int) (string, int) {
	if j := strings.IndexByte(src[i:], '\n'); j >= 0 {
		return src[i : i+j], i + j + 1
	}
	return src[i:], len(src)
}

// hasControl reports whether s holds a control character (a tab
// included).
func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' {
			return true
		}
	}
	return false
}

// isFenceInfo reports whether s is an info string of markdownFast's
// subset: letters, digits and "+-._", possibly none.
func isFenceInfo(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isASCIIAlnum(c) && c != '+' && c != '-' && c != '.' && c != '_' {
			return false
		}
	}
	return true
}

// plainStart reports whether a line (or a list item's text) beginning as
// t can start no block but a paragraph, and its first character is one
// markdownFast reads: a letter, digits not followed by "." or ")", a
// single backtick, or one or two stars before a character that is
// neither a space nor a star.
func plainStart(t string) bool {
	if t == "" {
		return false
	}
	switch t[0] {
	case '`':
		return len(t) > 1 && t[1] != '`'
	case '*':
		s := strings.TrimPrefix(strings.TrimPrefix(t, "*"), "*")
		return s != "" && s[0] != ' ' && s[0] != '*'
	case '(', '"':
		return true
	}
	return plainLineStart(t)
}

// paraStartOK reports whether a paragraph's line may begin as line does:
// plainStart, a link's "[", punctuation that starts no block, or a "<"
// that starts no HTML block (in a paragraph's later lines, a tag that
// is not of the kinds that interrupt one). A later line that goldmark's
// table extension could take for a delimiter row (":-") is not.
func paraStartOK(line string, later bool) bool {
	if later && strings.Trim(line, " \t-:|") == "" {
		return false
	}
	if plainStart(line) || strings.IndexByte("[&.,;:!?')/$%", line[0]) >= 0 {
		return true
	}
	if line[0] != '<' {
		return false
	}
	if len(line) == 1 {
		return true
	}
	c := line[1]
	if c == '!' || c == '?' {
		return false
	}
	if c != '/' && !isASCIILetter(c) {
		return true
	}
	if !later {
		return false
	}
	name := strings.TrimPrefix(line[1:], "/")
	end := 0
	for end < len(name) && (isASCIIAlnum(name[end]) || name[end] == '-') {
		end++
	}
	return end > 0 && !htmlBlockTags[strings.ToLower(name[:end])]
}

// htmlBlockTags are the tag names that open an HTML block which can
// interrupt a paragraph (CommonMark's kinds 1 and 6, as goldmark lists
// them).
var htmlBlockTags = func() map[string]bool {
	m := map[string]bool{}
	for _, t := range strings.Fields(`script pre style textarea
		address article aside base basefont blockquote body caption center col colgroup dd details dialog
		dir div dl dt fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 head header
		hr html iframe legend li link main menu menuitem meta nav noframes ol optgroup option p param
		search section summary table tbody td tfoot th thead title tr track ul`) {
		m[t] = true
	}
	return m
}()

func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }
func isASCIIAlnum(c byte) bool  { return isASCIILetter(c) || '0' <= c && c <= '9' }

// fastInline renders inline text of markdownFast's subset into out; with
// wantPlain it collects the text as plainText would (for a heading's id)
// and whether a link was seen.
type fastInline struct {
	out       *bytes.Buffer
	wantPlain bool
	plain     []byte
	link      bool
}

// inline writes s's HTML, or reports false.
func (r *fastInline) inline(s string) bool {
	open := 0 // the length of the star run that opened an emphasis
	for j := 0; j < len(s); {
		c := s[j]
		switch c {
		case '`':
			k := strings.IndexByte(s[j+1:], '`')
			if k <= 0 {
				return false
			}
			code := s[j+1 : j+1+k]
			// Linkify reads an email across a code span's backticks
			// ("x`ya@b.example`"): an "@" in code is left to goldmark.
			if code[0] == ' ' || code[k-1] == ' ' || strings.IndexByte(code, '\n') >= 0 || strings.IndexByte(code, '@') >= 0 ||
				(j+2+k < len(s) && s[j+2+k] == '`') {
				return false
			}
			r.out.WriteString("<code>")
			r.out.Write(util.EscapeHTML([]byte(code)))
			r.out.WriteString("</code>")
			r.addPlain(code)
			j += 2 + k
		case '*':
			n := len(s[j:]) - len(strings.TrimLeft(s[j:], "*"))
			if n > 2 {
				return false
			}
			before, after := rune(' '), rune(' ')
			if j > 0 {
				before, _ = utf8.DecodeLastRuneInString(s[:j])
			}
			if j+n < len(s) {
				after, _ = utf8.DecodeRuneInString(s[j+n:])
			}
			if open > 0 {
				if n != open || !closesOnly(before, after) {
					return false
				}
				open = 0
				r.out.WriteString([...]string{"", "</em>", "</strong>"}[n])
			} else {
				if !closesOnly(after, before) {
					return false
				}
				open = n
				r.out.WriteString([...]string{"", "<em>", "<strong>"}[n])
			}
			j += n
		case '[':
			n, ok := r.linkAt(s[j:])
			if !ok {
				return false
			}
			j += n
		case '<':
			n, ok := r.tagAt(s[j:])
			if !ok {
				return false
			}
			j += n
		default:
			n, ok := r.text(s, j)
			if !ok {
				return false
			}
			j += n
		}
	}
	return open == 0
}

// text writes the run of plain text of s at j and returns its length,
// or reports false for a character that could start markup.
func (r *fastInline) text(s string, j int) (int, bool) {
	k := j
	for ; k < len(s); k++ {
		c := s[k]
		if !textMark[c] {
			continue
		}
		switch c { // each case is marked in textMark
		case '`', '*', '[', '<':
			r.write(s[j:k])
			return k - j, k > j
		case '_':
			// Between two letters or digits an underscore can neither
			// open nor close emphasis.
			if k == 0 || k+1 == len(s) || !isASCIIAlnum(s[k-1]) || !isASCIIAlnum(s[k+1]) {
				return 0, false
			}
		case '\\', '~', '|', '@', ']':
			return 0, false
		case '&':
			if k+1 < len(s) && (isASCIIAlnum(s[k+1]) || s[k+1] == '#') {
				return 0, false
			}
		case '!':
			if k+1 < len(s) && s[k+1] == '[' {
				return 0, false
			}
		case ':':
			if linkifyScheme(s[:k]) {
				return 0, false
			}
		case '.':
			if k >= 3 && strings.EqualFold(s[k-3:k], "www") {
				return 0, false
			}
		}
	}
	r.write(s[j:k])
	return k - j, true
}

// textMark marks the bytes text looks at: every other byte is plain text.
var textMark = [256]bool{'`': true, '*': true, '[': true, '<': true, '_': true, '\\': true, '~': true, '|': true,
	'@': true, ']': true, '&': true, '!': true, ':': true, '.': true}

// write writes plain text, escaped, and keeps it for the heading's id.
func (r *fastInline) write(t string) {
	for {
		i := strings.IndexAny(t, `&<>"`)
		if i < 0 {
			break
		}
		r.out.WriteString(t[:i])
		switch t[i] {
		case '&':
			r.out.WriteString("&amp;")
		case '<':
			r.out.WriteString("&lt;")
		case '>':
			r.out.WriteString("&gt;")
		default:
			r.out.WriteString("&quot;")
		}
		r.addPlain(t[:i+1])
		t = t[i+1:]
	}
	r.out.WriteString(t)
	r.addPlain(t)
}

func (r *fastInline) addPlain(t string) {
	if r.wantPlain {
		r.plain = append(r.plain, t...)
	}
}

// linkifyScheme reports whether s ends with a scheme Linkify links
// (http, https, ftp), in any case.
func linkifyScheme(s string) bool {
	for _, p := range []string{"http", "https", "ftp"} {
		if len(s) >= len(p) && strings.EqualFold(s[len(s)-len(p):], p) {
			return true
		}
	}
	return false
}

// linkAt writes the inline link "[text](dest)" at the start of s (the
// text alone when safeRenderer drops its target) and returns its length.
func (r *fastInline) linkAt(s string) (int, bool) {
	end := strings.IndexByte(s, ']')
	if end <= 1 || !strings.HasPrefix(s[end:], "](") {
		return 0, false
	}
	label := s[1:end]
	if strings.ContainsAny(label, "[`*\\<>&!_~|@") {
		return 0, false
	}
	close := strings.IndexByte(s[end+2:], ')')
	if close <= 0 {
		return 0, false
	}
	dest := s[end+2 : end+2+close]
	for i := 0; i < len(dest); i++ {
		if c := dest[i]; !isASCIIAlnum(c) && strings.IndexByte("-._~:/?#=%+,;!$", c) < 0 {
			return 0, false
		}
	}
	r.link = true
	target, ok := linkTarget([]byte(dest))
	if ok {
		r.out.WriteString(`<a href="`)
		r.out.Write(util.EscapeHTML(util.URLEscape(target, false)))
		r.out.WriteString(`">`)
	}
	// The label must be plain text: a link's label is parsed as inline
	// text, which text checks.
	if n, ok := r.text(label, 0); !ok || n != len(label) {
		return 0, false
	}
	if ok {
		r.out.WriteString("</a>")
	}
	return end + 3 + close, true
}

// tagAt writes "<" at the start of s as text, or the raw tag "<name>" or
// "</name>" it starts (shown as text, and no part of a heading's id), and
// returns its length; any other tag, comment or autolink is not
// markdownFast's.
func (r *fastInline) tagAt(s string) (int, bool) {
	if len(s) == 1 {
		r.write(s)
		return 1, true
	}
	c := s[1]
	if c == '!' || c == '?' {
		return 0, false
	}
	if c != '/' && !isASCIILetter(c) {
		r.write("<")
		return 1, true
	}
	name := 1
	if c == '/' {
		name = 2
	}
	end := name
	for end < len(s) && (isASCIIAlnum(s[end]) || s[end] == '-') {
		end++
	}
	if end == name || !isASCIILetter(s[name]) || end == len(s) || s[end] != '>' {
		return 0, false
	}
	r.out.WriteString("&lt;")
	r.out.WriteString(s[1:end])
	r.out.WriteString("&gt;")
	return end + 1, true
}

// closesOnly reports whether a run of stars between before and after is
// right-flanking and not left-flanking (with the two swapped: left and
// not right), CommonMark's rule read narrowly: a word rune before it and
// white space or ASCII punctuation after, or ASCII punctuation before and
// white space after.
func closesOnly(before, after rune) bool {
	space := after == ' ' || after == '\n'
	return isWordRune(before) && isSpaceOrPunctNL(after) || before != '*' && before < utf8.RuneSelf && before != ' ' && before != '\n' && isSpaceOrPunct(before) && space
}

// isSpaceOrPunctNL is isSpaceOrPunct with a line break as white space.
func isSpaceOrPunctNL(r rune) bool { return r == '\n' || isSpaceOrPunct(r) }
