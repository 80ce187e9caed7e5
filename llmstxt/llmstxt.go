// Package llmstxt writes /llms.txt as the llms.txt proposal
// (https://llmstxt.org/) lays it out, and /llms-full.txt beside it:
//
//	# Title
//
//	> Summary
//
//	Details, as Markdown.
//
//	## Section
//
//	- [Name](url): notes
//
// It knows nothing of how a site is laid out: the caller gives every URL.
package llmstxt

import (
	"bytes"
	"strings"
)

// File is the content of an llms.txt.
type File struct {
	Title    string
	Summary  string // one paragraph of plain text
	Details  string // Markdown, may be empty
	Sections []Section
}

// Section is one "## " section: a list of links.
type Section struct {
	Name  string
	Links []Link
}

// Link is one list item.
type Link struct {
	Name, URL, Notes string
}

// Encode writes f. Sections without links are left out.
func Encode(f File) []byte {
	var b bytes.Buffer
	writeHead(&b, f)
	for _, s := range f.Sections {
		if len(s.Links) == 0 {
			continue
		}
		b.WriteString("## " + oneLine(s.Name) + "\n\n")
		for _, l := range s.Links {
			b.WriteString("- [" + linkText(l.Name) + "](" + destination(l.URL) + ")")
			if n := oneLine(l.Notes); n != "" {
				b.WriteString(": " + n)
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	return append(bytes.TrimRight(b.Bytes(), "\n"), '\n')
}

// EncodeFull writes an llms-full.txt: the head of f, then each document
// whole, separated by a thematic break.
func EncodeFull(f File, docs [][]byte) []byte {
	var b bytes.Buffer
	writeHead(&b, File{Title: f.Title, Summary: f.Summary, Details: f.Details})
	for _, d := range docs {
		b.WriteString("---\n\n")
		b.Write(bytes.TrimRight(d, "\n"))
		b.WriteString("\n\n")
	}
	return append(bytes.TrimRight(b.Bytes(), "\n"), '\n')
}

func writeHead(b *bytes.Buffer, f File) {
	b.WriteString("# " + oneLine(f.Title) + "\n\n")
	if s := oneLine(f.Summary); s != "" {
		b.WriteString("> " + s + "\n\n")
	}
	if d := strings.TrimSpace(f.Details); d != "" {
		b.WriteString(d + "\n\n")
	}
}

// oneLine collapses white space, line breaks included, into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

var textEscaper = strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`)

// linkText escapes what would end a link's text early.
func linkText(s string) string { return textEscaper.Replace(oneLine(s)) }

var destEscaper = strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E")

// destination keeps a URL from ending a link's destination early.
func destination(u string) string { return destEscaper.Replace(u) }
