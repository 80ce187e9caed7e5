package llmstxt_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/skillcat/skillcat/llmstxt"
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
