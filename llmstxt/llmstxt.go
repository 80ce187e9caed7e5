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
	"fmt"
	"io"
	"strings"

	"github.com/skillcat/skillcat"
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
		b.WriteString("## " + skillcat.MarkdownText(s.Name) + "\n\n")
		for _, l := range s.Links {
			b.WriteString("- [" + linkText(l.Name) + "](" + destination(l.URL) + ")")
			if n := skillcat.MarkdownText(l.Notes); n != "" {
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
	w := NewFullWriter(&b, f)
	for _, d := range docs {
		w.Add(d)
	}
	w.Close()
	return b.Bytes()
}

// FullWriter writes an llms-full.txt one document at a time, so that a
// large one is never held whole: the same bytes as EncodeFull.
//
// Each document is written as a block, "---\n\n" and the document
// without its trailing line breaks, followed by two line breaks. AddSpan
// says where a block went and AddRun copies blocks an earlier FullWriter
// wrote, so that a file can be made again from the unchanged blocks of the
// previous one without making their documents again.
type FullWriter struct {
	w       io.Writer
	n       int64 // bytes written to w
	pending int   // line breaks held back: the file ends with exactly one
	err     error
}

// NewFullWriter starts an llms-full.txt with the head of f.
func NewFullWriter(w io.Writer, f File) *FullWriter {
	var b bytes.Buffer
	writeHead(&b, File{Title: f.Title, Summary: f.Summary, Details: f.Details})
	fw := &FullWriter{w: w}
	fw.write(b.Bytes())
	return fw
}

// Add writes the next document.
func (fw *FullWriter) Add(doc []byte) error {
	_, _, err := fw.AddSpan(doc)
	return err
}

// blockHead begins each document's block.
const blockHead = "---\n\n"

// AddSpan writes the next document, the parts one after another (as one
// slice, or in pieces that need not be joined first), and returns where
// its block lies in the file: its offset and length.
func (fw *FullWriter) AddSpan(parts ...[]byte) (off, n int64, err error) {
	off = fw.n + int64(fw.pending)
	// The line breaks that end the document, which its block leaves out.
	total, trail := 0, 0
	for _, p := range parts {
		total += len(p)
	}
	for i := len(parts) - 1; i >= 0; i-- {
		k := len(parts[i]) - len(bytes.TrimRight(parts[i], "\n"))
		trail += k
		if k < len(parts[i]) {
			break
		}
	}
	fw.write([]byte(blockHead))
	for _, p := range parts {
		fw.write(p)
	}
	if fw.err == nil {
		fw.pending -= trail // still held back: write holds every trailing line break
	}
	fw.write([]byte("\n\n"))
	return off, int64(len(blockHead) + total - trail), fw.err
}

// AddRun writes the next n bytes of r as the next documents: a run of
// blocks one after another, as an earlier FullWriter wrote them, from the
// offset of the first (AddSpan) to the end of the last. It returns where
// the run lies in this file; an r shorter than n is an error.
func (fw *FullWriter) AddRun(r io.Reader, n int64) (off int64, err error) {
	off = fw.n + int64(fw.pending)
	buf := make([]byte, min(n, 256<<10))
	for left := n; left > 0 && fw.err == nil; {
		k, rerr := io.ReadFull(r, buf[:min(left, int64(len(buf)))])
		fw.write(buf[:k])
		left -= int64(k)
		if rerr != nil && fw.err == nil {
			fw.err = fmt.Errorf("copy %d bytes: %w", n, rerr)
		}
	}
	fw.write([]byte("\n\n"))
	return off, fw.err
}

// Close ends the file with one line break; it returns the first error of
// the underlying writer.
func (fw *FullWriter) Close() error {
	if fw.err == nil {
		_, fw.err = fw.w.Write([]byte{'\n'})
	}
	return fw.err
}

// write writes p but holds back its trailing line breaks until more text
// follows them, as EncodeFull trims them from the end of the file.
func (fw *FullWriter) write(p []byte) {
	if fw.err != nil {
		return
	}
	text := bytes.TrimRight(p, "\n")
	if len(text) > 0 {
		if fw.pending > 0 {
			_, fw.err = fw.w.Write(bytes.Repeat([]byte{'\n'}, fw.pending))
			fw.n += int64(fw.pending)
		}
		if fw.err == nil {
			_, fw.err = fw.w.Write(text)
			fw.n += int64(len(text))
		}
		fw.pending = 0
	}
	fw.pending += len(p) - len(text)
}

func writeHead(b *bytes.Buffer, f File) {
	b.WriteString("# " + skillcat.MarkdownText(f.Title) + "\n\n")
	if s := skillcat.MarkdownText(f.Summary); s != "" {
		b.WriteString("> " + s + "\n\n")
	}
	if d := skillcat.Printable(strings.TrimSpace(f.Details)); d != "" {
		b.WriteString(d + "\n\n")
	}
}

// linkText escapes what would end a link's text early, or make more of it
// than text.
func linkText(s string) string { return skillcat.MarkdownText(s) }

var destEscaper = strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E")

// destination keeps a URL from ending a link's destination early.
func destination(u string) string { return destEscaper.Replace(u) }
