package llmstxt_test

import (
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
