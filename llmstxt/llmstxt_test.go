package llmstxt_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/skillcat/skillcat/llmstxt"
	"pgregory.net/rapid"
)

func TestEncode(t *testing.T) {
	f := llmstxt.File{
		Title:   "Acme\nSkills",
		Summary: "All  the skills.",
		Details: "More, in *Markdown*.\n",
		Sections: []llmstxt.Section{
			{Name: "API skills", Links: []llmstxt.Link{{Name: "Weather [beta]", URL: "a b/(x).md", Notes: "Forecasts\nfor anywhere."}, {Name: "Plain", URL: "p.md"}}},
			{Name: "Task skills"},
		},
	}
	want := "# Acme Skills\n\n> All the skills.\n\nMore, in *Markdown*.\n\n## API skills\n\n" +
		"- [Weather \\[beta\\]](a%20b/%28x%29.md): Forecasts for anywhere.\n- [Plain](p.md)\n"
	if got := string(llmstxt.Encode(f)); got != want {
		t.Errorf("Encode:\ngot:\n%s\nwant:\n%s", got, want)
	}
	wantFull := "# Acme Skills\n\n> All the skills.\n\nMore, in *Markdown*.\n\n---\n\n# One\n\nbody\n\n---\n\n# Two\n"
	if got := string(llmstxt.EncodeFull(f, [][]byte{[]byte("# One\n\nbody\n\n"), []byte("# Two")})); got != wantFull {
		t.Errorf("EncodeFull:\ngot:\n%q\nwant:\n%q", got, wantFull)
	}
}

// TestEncodeControls holds llms.txt to printable text: a NUL, ESC or DEL
// in a title, summary, name or note (a text file has no escape for one,
// and a terminal showing the file would obey an ESC) is written U+FFFD,
// as CommonMark writes NUL.
func TestEncodeControls(t *testing.T) {
	f := llmstxt.File{
		Title:    "Acme\x00",
		Summary:  "All\x1b[2J",
		Details:  "Intro\x7f",
		Sections: []llmstxt.Section{{Name: "API\x1b", Links: []llmstxt.Link{{Name: "W\x1b]0;x\x07", URL: "w.md", Notes: "N\x00"}}}},
	}
	want := "# Acme\ufffd\n\n> All\ufffd\\[2J\n\nIntro\ufffd\n\n## API\ufffd\n\n- [W\ufffd\\]0;x\ufffd](w.md): N\ufffd\n"
	if got := string(llmstxt.Encode(f)); got != want {
		t.Errorf("Encode:\ngot:  %q\nwant: %q", got, want)
	}
}

// TestFullWriterIsEncodeFull holds the streamed llms-full.txt to the
// layout written whole: the head, each document after a thematic break
// with its trailing line breaks trimmed, and one line break at the end,
// whatever the documents end with (empty ones included).
func TestFullWriterIsEncodeFull(t *testing.T) {
	f := llmstxt.File{Title: "T", Summary: "S", Details: "D\n\n"}
	cases := [][][]byte{
		nil,
		{[]byte("a")},
		{[]byte("a\n\n\n"), []byte(""), []byte("\n"), []byte("b\nc\n")},
		{[]byte(""), []byte("")},
	}
	for _, docs := range cases {
		var want bytes.Buffer
		want.WriteString("# T\n\n> S\n\nD\n\n")
		for _, d := range docs {
			want.WriteString("---\n\n" + strings.TrimRight(string(d), "\n") + "\n\n")
		}
		wantBytes := append(bytes.TrimRight(want.Bytes(), "\n"), '\n')
		var got bytes.Buffer
		w := llmstxt.NewFullWriter(&got, f)
		for _, d := range docs {
			if err := w.Add(d); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), wantBytes) {
			t.Errorf("docs %q: got %q, want %q", docs, got.Bytes(), wantBytes)
		}
		if enc := llmstxt.EncodeFull(f, docs); !bytes.Equal(enc, wantBytes) {
			t.Errorf("EncodeFull %q: got %q, want %q", docs, enc, wantBytes)
		}
	}
}

// TestFullWriterRuns makes an llms-full.txt again from the blocks of an
// earlier one, as a rebuild does: documents kept are copied from the
// earlier file in runs (AddRun, from the spans AddSpan gave), the others
// made; the bytes must be EncodeFull's of the new documents, and the
// spans of the new file must hold its blocks.
func TestFullWriterRuns(t *testing.T) {
	f := llmstxt.File{Title: "T", Summary: "S"}
	rapid.Check(t, func(t *rapid.T) {
		gen := rapid.SliceOfN(rapid.SampledFrom([]string{"a", "b\n", "c\n\nd\n\n", "", "\n", "---", "e\n---\n"}), 0, 12)
		old := gen.Draw(t, "old")
		var prev bytes.Buffer
		w := llmstxt.NewFullWriter(&prev, f)
		type span struct{ off, n int64 }
		spans := make([]span, len(old))
		for i, d := range old {
			off, n, err := w.AddSpan([]byte(d))
			if err != nil {
				t.Fatal(err)
			}
			spans[i] = span{off, n}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		// The new documents: each an old one kept (by index) or a new one.
		var docs []string
		var from []int // the old document kept, or -1
		for range rapid.IntRange(0, 12).Draw(t, "n") {
			if len(old) > 0 && rapid.Bool().Draw(t, "kept") {
				k := rapid.IntRange(0, len(old)-1).Draw(t, "which")
				// The old file's last block lost its line breaks to the
				// end of the file: only a block that ends in text is whole.
				if k < len(old)-1 || strings.TrimRight(old[k], "\n") != "" {
					docs, from = append(docs, old[k]), append(from, k)
					continue
				}
			}
			d := gen.Draw(t, "new")
			docs, from = append(docs, strings.Join(d, "")), append(from, -1)
		}
		var got bytes.Buffer
		w = llmstxt.NewFullWriter(&got, f)
		r := bytes.NewReader(prev.Bytes())
		for i := 0; i < len(docs); {
			if from[i] < 0 {
				if err := w.Add([]byte(docs[i])); err != nil {
					t.Fatal(err)
				}
				i++
				continue
			}
			// A run of old blocks that follow one another in the old file.
			j := i + 1
			for j < len(docs) && from[j] == from[j-1]+1 {
				j++
			}
			first, last := spans[from[i]], spans[from[j-1]]
			if _, err := w.AddRun(io.NewSectionReader(r, first.off, last.off+last.n-first.off), last.off+last.n-first.off); err != nil {
				t.Fatal(err)
			}
			i = j
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		want := make([][]byte, len(docs))
		for i, d := range docs {
			want[i] = []byte(d)
		}
		if enc := llmstxt.EncodeFull(f, want); !bytes.Equal(got.Bytes(), enc) {
			t.Fatalf("got %q, want %q", got.Bytes(), enc)
		}
	})
}

// TestEncodeMarkdownText holds llms.txt's plain texts to text: a summary,
// name or note holding what Markdown reads as HTML, emphasis or a link is
// written escaped, so that a viewer shows the characters.
func TestEncodeMarkdownText(t *testing.T) {
	f := llmstxt.File{
		Title:    "# Acme_tools",
		Summary:  "Use <script>alert(1)</script> and *x*",
		Sections: []llmstxt.Section{{Name: "API", Links: []llmstxt.Link{{Name: "a [b](c)", URL: "w.md", Notes: "1. `<img src=x>`"}}}},
	}
	want := "# \\# Acme_tools\n\n> Use \\<script>alert(1)\\</script> and \\*x\\*\n\n## API\n\n- [a \\[b\\](c)](w.md): 1\\. \\`\\<img src=x>\\`\n"
	if got := string(llmstxt.Encode(f)); got != want {
		t.Errorf("Encode:\ngot:  %q\nwant: %q", got, want)
	}
}

// TestFullWriterParts checks that a document given to AddSpan in parts
// makes the file, and the spans, that it makes given whole.
func TestFullWriterParts(t *testing.T) {
	f := llmstxt.File{Title: "T", Summary: "S"}
	rapid.Check(t, func(t *rapid.T) {
		docs := rapid.SliceOfN(rapid.SliceOfN(rapid.SampledFrom([]string{"a", "b\n", "\n", "", "\n\n", "c\n\nd", "---\n"}), 0, 4), 0, 8).Draw(t, "docs")
		var whole, parts bytes.Buffer
		ww, wp := llmstxt.NewFullWriter(&whole, f), llmstxt.NewFullWriter(&parts, f)
		for _, d := range docs {
			var ps [][]byte
			for _, p := range d {
				ps = append(ps, []byte(p))
			}
			off1, n1, err1 := ww.AddSpan([]byte(strings.Join(d, "")))
			off2, n2, err2 := wp.AddSpan(ps...)
			if err1 != nil || err2 != nil || off1 != off2 || n1 != n2 {
				t.Fatalf("%q: whole at %d+%d (%v), in parts at %d+%d (%v)", d, off1, n1, err1, off2, n2, err2)
			}
		}
		if err := ww.Close(); err != nil {
			t.Fatal(err)
		}
		if err := wp.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(whole.Bytes(), parts.Bytes()) {
			t.Fatalf("%q: whole\n%q\nin parts\n%q", docs, whole.Bytes(), parts.Bytes())
		}
	})
}
