package build

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/skillcat/skillcat/synth"
)

// fatalT is what checkFast needs of a *testing.T or a *rapid.T.
type fatalT interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// goldmarkOf is src rendered by goldmark alone.
func goldmarkOf(t fatalT, src string) string {
	t.Helper()
	m := markdownOuts.New().(*markdownOut)
	h, err := goldmarkHTML(m, src)
	if err != nil {
		t.Fatal(err)
	}
	return string(h)
}

// checkFast reports whether markdownFast reads src, and fails t if what
// it gives is not goldmark's bytes.
func checkFast(t fatalT, src string) bool {
	t.Helper()
	var b bytes.Buffer
	if !markdownFast(src, &b) {
		return false
	}
	if want := goldmarkOf(t, src); b.String() != want {
		t.Fatalf("markdownFast(%q)\n= %q\nwant %q", src, b.String(), want)
	}
	return true
}

// fastInlinePieces are pieces of inline text: what markdownFast reads
// and what is next to it, or what it must leave to goldmark.
var fastInlinePieces = []string{
	"word", "Word", "é", "字", "42", "1990s", " ", "  ", "\t", "\u00a0", "\u3000", "\u2028", "\u0301", "\u200b", "\ufeff",
	"“", "”", "’", "—", "…", "©", "😀", "\x7f", "\x00", "\xff", "\r", "\f",
	"snake_case", "a_b_c", "_x", "x_", "a_*b*", "x__y", "1_2", "é_é", "*", "**", "***", "*em*", "**strong**", "**a.**", "*\"q\"*", "**(x)**", "*.*", "*;a*", "a.*", "**`c`**", "*[l](/x)*", "**a*", "*a**", "*a b*", "**a b**", "(*", "*)", "a*", "*a", "_u_", "a_b", "__",
	"`", "``", "`code`", "` sp `", "`a*b`", "`<x>`", "`&amp;`", "`\\`", "`\"q\"`", "x`y", "```", "x`ya@b.example`y", "`a@b.example`",
	"[link](https://x.example/a)", "[a b](/rel/path?q=1#f)", "[js](javascript:alert(1))", "[x](JaVaScRiPt:x)", "[m](mailto:a)",
	"[e](%6Aavascript:x)", "[s](a%20b)", "[t](/u \"title\")", "[a](<b>)", "[a]()", "[](b)", "[a](b", "[a] (b)", "[a]", "[a][b]",
	"[a]: /u", "]", "[", "![i](/x.png)", "!", "[**b**](/x)", "[a\nb](/x)", "[a](b)c", "[1](/a(b))",
	"<none>", "</none>", "<b c>", "<b/>", "<x:y>", "<a@b.c>", "<http://x.example>", "<!-- c -->", "<?p?>", "<", "< t", "<=", "<1>",
	"<div>", "<pre>", "<h1>", "<script>", "<foo-bar>", "<Foo>",
	"&", "& x", "&amp;", "&#35;", "&#x41;", "&copy;", "&nbsp", "&;", "&&",
	"\"", "'", ">", ">=", "\\*", "\\", "~", "~~s~~", "|", "@", "a@b.example", "www.", "WWW.x", "http://x.example",
	"https:", "HTTP:", "ftp:", "ftp", ":", ".", ",", ";", "?", "#", "##", "(", ")", "-", "--", "+", "=", "$", "%", "/", "{", "}",
}

// fastLineStarts are what may begin a line: block markers and their
// near misses.
var fastLineStarts = []string{
	"", "", "", "", "# ", "## ", "### ", "###### ", "####### ", "#", "#x ", "- ", "-", "-- ", "* ", "+ ", "1. ", "2) ", "1.5 ",
	"> ", ">", "    ", "   ", " ", "\t", "```", "```json\n", "```go\n", "````\n", "~~~\n", "---", "***", "===", "| a |",
	"| ", "|", "| a | b |\n|---|---|\n| ", "|---|\n", "[x]: /u ", ":-", ":-:", ": - |", "- [ ] ", "- [x] ", "<div>", "<pre>", "<none>", "<x ", "&", "(", "0 ", "10 ", "`", "**", "*",
}

// fastBlocksSample are whole blocks, in the form the synthetic catalog
// writes them and near it.
var fastBlocksSample = []string{
	"```json\n{\n  \"a\": 1,\n  \"b\": [true, null, \"x<y>&\"]\n}\n```",
	"```\nplain <code> & more\n\n  indented\n```",
	"```json\nnot json {\n```", "```yaml\na: 1\n```", "```\n```", "```json\n````\n```", "```\n  ```\n```",
	"```\nunclosed", "```\n\tTab\n```", "```js\nx\n```\n", "- `a`: one\n- `b`: two", "- a\n\n- b", "- a\n  b", "- a\nb", "- a\n  b\n- c", "- a\n  b\n\nPara", "- a\n  - b", "- a\n   b", "- a\n  <b>c", "a\n:-", "a\n:-:", "a b\n:- | -:", "- a\n  :-", "a\n: -", "a\n:",
	"| a | b |\n|---|:-:|\n| 1 | `x` |\n| | 3 |", "| a |\n|--:|", "| a | b |\n|:--|---|\n| 1 |\n| 1 | 2 | 3 |",
	"x\n| a |\n|---|\n| 1 |", "| a |\n|---|\n| 1 |\nlazy", "| `a|b` |\n|---|\n| `c|d` |", "|a|b|\n|-|-|\n|1|2|", "| a \\| b |\n|---|",
	"| *a* | [l](/x) |\n| :---: | --- |\n| <b> & | **s** |", "| a |\n| - |\n\n- x", "## T\n| a |\n|---|", "| a |\n|---|\n## H",
	"| a |\n|---|\n| 1 |\n\n| b |\n|---|", "|a|\n|:|", "| a |\n|---|\n|", "| a | b |\n|---|---|\n| x |y|", "| - a |\n|---|", "| # a |\n|---|",
	"1. a\n2. b", "1. a\n   b\n3. c", "2. a\n3. b", "1. a\n- b", "- a\n1. b", "x\n1. a", "x\n2. a", "1. a\n\n2. b", "1. a\n  b",
	"1. a\n    b", "10. a\n11. b", "1. a\n10. b\n    c", "1) a", "1.a", "1. 2. a", "1. - a", "1. a\n\n- b", "0. a", "01. a", "1234567890. a",
	"- a\n  # b", "- a\n  ```\n  x\n  ```", "- a\n  1. b", "- a\n  b\n  c *d*", "- a\n  b\nc", "- a\n  b\n\n  c", "- a\n    b",
	"## Getting started", "# A\n# A", "## inputs", "## example-1", "### `code` head", "## [l](/x) head", "## x <b>",
	"Para one\nline two.", "Thresholds must satisfy 0 < t & t <= 1; values like <none> are rejected.",
	"Questions go to\n[Acme Corp](https://acme.example.com/support).", "[Acme\nCorp](https://acme.example.com/support).",
}

// fastCleanPieces are inline pieces in markdownFast's subset, or at its
// edges, drawn more often than the others so that most drawn documents
// are read.
var fastCleanPieces = []string{
	"word", "Word", "é", "字", "42", " ", "*em*", "**strong**", "`code`", "`a*b`", "`<x>`", "[link](https://x.example/a)",
	"[a b](/rel?q=1#f)", "[js](javascript:x)", "<none>", "</x>", "< t", "<=", "& x", "\"", "'", ">", ":", ".", ",", ";", "(", ")",
	"#", "!", "-", "+", "=", "$", "%", "/", "snake_case", "\n  ", "\n   ", " | ", "“", "—", "😀", "\u00a0", "1.", "2)", "**a.**", "*\"q\"*", "**(x)**", "*.*", "**`c`**", "*[l](/x)*", "**Beta.**",
}

// drawFastDoc draws a document from the grammar of the pieces above.
func drawFastDoc(t *rapid.T) string {
	var b strings.Builder
	noise := rapid.SampledFrom([]int{0, 0, 0, 1, 2, 5, 10, 30}).Draw(t, "noise") // in 100
	piece := func(clean, all []string, label string) string {
		if rapid.IntRange(0, 99).Draw(t, label+"-noisy") < noise {
			return rapid.SampledFrom(all).Draw(t, label)
		}
		return rapid.SampledFrom(clean).Draw(t, label)
	}
	n := rapid.IntRange(1, 8).Draw(t, "lines")
	for i := 0; i < n; i++ {
		switch kind := rapid.IntRange(0, 6).Draw(t, "kind"); {
		case kind == 0:
			b.WriteString(rapid.SampledFrom(fastBlocksSample).Draw(t, "block"))
		case kind == 1:
			// A table: a header, a delimiter row, rows; cells of pieces.
			cols := rapid.IntRange(1, 4).Draw(t, "cols")
			rows := rapid.IntRange(0, 3).Draw(t, "rows")
			for r := -1; r <= rows; r++ {
				b.WriteString(piece([]string{"|"}, []string{"|", "", " |", "\\|"}, "lead"))
				n := cols
				if rapid.IntRange(0, 99).Draw(t, "ragged") < noise {
					n = rapid.IntRange(1, 5).Draw(t, "cells")
				}
				for c := 0; c < n; c++ {
					if r == 0 {
						b.WriteString(piece([]string{"---", " --- ", ":--", "--:", " :-: ", "-"}, []string{"", ":", "::", " - - ", "-x-", "==="}, "delim"))
					} else {
						b.WriteString(piece([]string{" ", ""}, []string{" ", "", "  "}, "pad"))
						for range rapid.IntRange(0, 3).Draw(t, "cell") {
							b.WriteString(piece(fastCleanPieces, fastInlinePieces, "inline"))
						}
						b.WriteString(piece([]string{" ", ""}, []string{" ", "", "  "}, "pad"))
					}
					b.WriteString("|")
				}
				if r < rows {
					b.WriteString("\n")
				}
			}
		default:
			b.WriteString(piece([]string{"", "", "", "# ", "## ", "### ", "- ", "- ", "1. ", "2. ", "(", "0 ", "`", "*", "<"}, fastLineStarts, "start"))
			b.WriteString(piece([]string{"word", "Word", "é"}, fastInlinePieces, "first"))
			for range rapid.IntRange(0, 8).Draw(t, "inline") {
				b.WriteString(piece([]string{" ", " ", ""}, []string{" ", "", "\n"}, "space"))
				b.WriteString(piece(fastCleanPieces, fastInlinePieces, "inline"))
			}
		}
		b.WriteString(piece([]string{"\n", "\n", "\n\n", "\n\n\n", ""},
			[]string{"\n", "\n\n", " \n", "  \n", "\r\n", "\n\n\n", "\n \n", "\\\n", "\t\n", ""}, "sep"))
	}
	return b.String()
}

// TestMarkdownFastProperty holds markdownFast to goldmark on documents
// drawn from a grammar of block markers, inline pieces and whole blocks:
// whatever it reads, it renders as goldmark does, byte for byte.
func TestMarkdownFastProperty(t *testing.T) {
	read, left := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		if checkFast(t, drawFastDoc(t)) {
			read++
		} else {
			left++
		}
	})
	t.Logf("generated: %d read, %d left to goldmark", read, left)
	if read == 0 {
		t.Error("markdownFast read no generated document")
	}
}

// TestMarkdownFastCases holds markdownFast to goldmark on each piece and
// block alone and in a paragraph.
func TestMarkdownFastCases(t *testing.T) {
	for _, p := range append(append(fastInlinePieces, fastBlocksSample...), fastLineStarts...) {
		for _, d := range []string{p, p + "\n", "Some *em* and `code` " + p + " more\nline two\n\n## Next", "# H " + p, "- a " + p + "\n- b",
			"x\n" + p + " y", "*" + p + "*", "**a " + p + "**", "[" + p + "](/x)", "[x](" + p + ")"} {
			checkFast(t, d)
		}
	}
}

// TestMarkdownFastCorpus checks that markdownFast renders as goldmark
// does every description of the synthetic catalog, the sample content
// and the test data that it reads, and that it reads most of them.
func TestMarkdownFastCorpus(t *testing.T) {
	read, all := 0, 0
	for i := 0; i < 500; i++ {
		_, data := synth.Source(i, 1)
		d, err := sourceDescription(data)
		if err != nil {
			t.Fatal(err)
		}
		all++
		if checkFast(t, d) {
			read++
		}
	}
	t.Logf("synthetic: %d of %d read", read, all)
	if read < all*9/10 {
		t.Errorf("markdownFast read %d of %d synthetic descriptions", read, all)
	}
	sread, sall := 0, 0
	for _, dir := range []string{"../content", "testdata", "../testdata"} {
		_ = filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !(strings.HasSuffix(path, ".json") || strings.HasSuffix(path, ".md")) {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return nil
			}
			d, _ := sourceDescription(data)
			if d == "" {
				return nil
			}
			sall++
			if checkFast(t, d) {
				sread++
			}
			return nil
		})
	}
	t.Logf("content and test data: %d of %d read", sread, sall)
}

// FuzzMarkdownFast holds markdownFast to goldmark on any input: what it
// reads it renders as goldmark does, byte for byte (go test -run XXX
// -fuzz FuzzMarkdownFast ./build/).
func FuzzMarkdownFast(f *testing.F) {
	for _, p := range fastInlinePieces {
		f.Add("Some *em* and `code` " + p + " more\nline two\n\n## Next")
	}
	for _, p := range fastBlocksSample {
		f.Add(p)
	}
	for i := 0; i < 10; i++ {
		_, data := synth.Source(i, 1)
		if d, err := sourceDescription(data); err == nil {
			f.Add(d)
		}
	}
	f.Fuzz(func(t *testing.T, d string) {
		checkFast(t, d)
	})
}
