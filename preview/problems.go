package preview

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/build"
)

// ProblemsPath is the page that lists the last build's warnings while the
// content builds; while it is broken, every page shows the same report of
// its errors and warnings.
const ProblemsPath = "/_skillcat/problems"

// StatusPath answers {"warnings": N} for the last good build, for the
// banner livereload.js shows on the pages.
const StatusPath = "/_skillcat/status"

// maxExcerptSource bounds the size of a source the report quotes from.
const maxExcerptSource = 1 << 20

// excerptContext is how many lines before and after the failing one the
// report shows.
const excerptContext = 2

// problem is one violation as the report shows it: where, what, and the
// lines of its source around it.
type problem struct {
	ID, Prev, Next string // anchors: its own, the one before and after ("" at the ends)
	Class          string // "error" or "warning"
	Where          string // file:line:col
	Field, Reason  string
	Lines          []excerptLine
}

// excerptLine is one numbered line of a source; the failing line is split
// around the character at the violation's column.
type excerptLine struct {
	Num             int
	Text            string // a line other than the failing one
	Failing         bool
	Before, At, End string // the failing line: before the column, the character there, after it
}

// sourceReader returns the bytes of the source a violation names, or nil.
type sourceReader func(file string) []byte

// contentSource reads sources from the build's content directory, mapping
// a violation's file (the source path joined to ContentLabel) back to it.
func contentSource(cfg build.Config) sourceReader {
	return func(file string) []byte {
		if cfg.Content == nil {
			return nil
		}
		name := file
		if dir := path.Clean(filepath.ToSlash(cfg.ContentLabel)); cfg.ContentLabel != "" && dir != "." {
			var ok bool
			if name, ok = strings.CutPrefix(file, dir+"/"); !ok {
				return nil
			}
		}
		if !fs.ValidPath(name) {
			return nil
		}
		info, err := fs.Stat(cfg.Content, name)
		if err != nil || !info.Mode().IsRegular() || info.Size() > maxExcerptSource {
			return nil
		}
		data, err := fs.ReadFile(cfg.Content, name)
		if err != nil {
			return nil
		}
		return data
	}
}

// problems turns violations into the report's entries, quoting each
// source once.
func problems(vs skillcat.Violations, read sourceReader) []problem {
	cache := map[string][]string{}
	out := make([]problem, len(vs))
	for i, v := range vs {
		p := problem{ID: "p" + strconv.Itoa(i+1), Class: "error", Field: v.Field, Reason: v.Reason, Where: v.File}
		if v.Severity == skillcat.SeverityWarning {
			p.Class = "warning"
		}
		if i > 0 {
			p.Prev = out[i-1].ID
			out[i-1].Next = p.ID
		}
		if v.Line > 0 {
			p.Where += fmt.Sprintf(":%d:%d", v.Line, v.Column)
			lines, ok := cache[v.File]
			if !ok && read != nil {
				if data := read(v.File); data != nil && utf8.Valid(data) {
					lines = strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
				}
				cache[v.File] = lines
			}
			p.Lines = excerpt(lines, v.Line, v.Column)
		}
		out[i] = p
	}
	return out
}

// excerpt returns the lines around line, the failing one split at col;
// nothing when the source has no such line.
func excerpt(lines []string, line, col int) []excerptLine {
	if line < 1 || line > len(lines) {
		return nil
	}
	var out []excerptLine
	for n := max(1, line-excerptContext); n <= min(len(lines), line+excerptContext); n++ {
		text := strings.ReplaceAll(lines[n-1], "\t", "    ")
		if n != line {
			out = append(out, excerptLine{Num: n, Text: text})
			continue
		}
		runes := []rune(lines[n-1])
		at := min(max(col, 1), len(runes)+1) - 1
		before := strings.ReplaceAll(string(runes[:at]), "\t", "    ")
		el := excerptLine{Num: n, Failing: true, Before: before}
		if at < len(runes) {
			el.At = strings.ReplaceAll(string(runes[at]), "\t", "    ")
			el.End = strings.ReplaceAll(string(runes[at+1:]), "\t", "    ")
		} else {
			el.At = " " // the end of the line
		}
		out = append(out, el)
	}
	return out
}

// reportPage is the report of a build's problems: a list of every error
// and warning, each as the terminal prints it and linking to its entry below, which quotes the source
// with the column marked and links back to the list and to its
// neighbours. Everything in it is escaped by html/template.
var reportPage = template.Must(template.New("report").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} · skillcat serve</title>
<style nonce="{{.Nonce}}">
body{margin:0;font:16px/1.5 system-ui,sans-serif;background:{{if .Failed}}#fff4f4{{else}}#fffbea{{end}};color:#1b1b1b}
main{max-width:64rem;margin:2rem auto;padding:0 1rem}
h1{color:{{if .Failed}}#a50e0e{{else}}#6b5000{{end}};margin:0 0 .5rem}
h2{font-size:1rem;margin:1.5rem 0 .25rem;font-family:ui-monospace,monospace;overflow-wrap:anywhere}
ol.list{padding-left:1.5rem;font:14px/1.5 ui-monospace,monospace}
ol.list li{margin:.25rem 0;overflow-wrap:anywhere}
.error .sev{color:#a50e0e;font-weight:600}
.warning .sev{color:#6b5000;font-weight:600}
pre{background:#fff;border:1px solid #e8b4b4;border-radius:6px;padding:.75rem 0;overflow:auto;font:14px/1.5 ui-monospace,monospace;margin:.25rem 0}
pre span.line{display:block;padding:0 1rem;white-space:pre}
pre span.failing{background:#ffe3e3}
pre .num{display:inline-block;min-width:3.5em;color:#6a6a6a;user-select:none}
pre mark{background:#a50e0e;color:#fff;border-radius:2px}
pre .caret{color:#a50e0e;font-weight:700}
.reason{margin:.25rem 0;overflow-wrap:anywhere}
nav.step{font-size:.9rem}
nav.step a{margin-right:1rem}
section:target h2{background:#ffe3a3}
</style>
<script nonce="{{.Nonce}}">new EventSource("/_skillcat/events").addEventListener("reload", function () { location.reload(); });</script>
</head>
<body>
<main>
<h1 id="problems">{{.Title}}</h1>
<p>{{.Summary}}</p>
{{if .Problems}}<ol class="list">
{{range .Problems}}<li class="{{.Class}}"><a href="#{{.ID}}">{{.Where}}</a>: {{if eq .Class "warning"}}<span class="sev">warning:</span> {{end}}{{.Field}}: {{.Reason}}</li>
{{end}}</ol>
{{range .Problems}}<section id="{{.ID}}" class="{{.Class}}">
<h2><a href="#{{.ID}}">{{.Where}}</a> <span class="sev">{{.Class}}</span></h2>
<p class="reason"><code>{{.Field}}</code>: {{.Reason}}</p>
{{if .Lines}}<pre>{{range .Lines}}{{if .Failing}}<span class="line failing"><span class="num">{{.Num}}</span>{{.Before}}<mark>{{.At}}</mark>{{.End}}</span>{{else}}<span class="line"><span class="num">{{.Num}}</span>{{.Text}}</span>{{end}}{{if .Failing}}<span class="line caret"><span class="num"></span>{{$.Caret .}}^</span>{{end}}{{end}}</pre>
{{end}}<nav class="step">{{if .Prev}}<a href="#{{.Prev}}">← previous</a>{{end}}<a href="#problems">↑ all problems</a>{{if .Next}}<a href="#{{.Next}}">next →</a>{{end}}</nav>
</section>
{{end}}{{else}}{{range .Messages}}<pre>{{.}}</pre>{{end}}{{end}}
<p>{{.Footer}}</p>
</main>
</body>
</html>
`))

// reportData is what reportPage shows.
type reportData struct {
	Nonce, Title, Summary, Footer string
	Failed                        bool
	Problems                      []problem
	Messages                      []string
}

// Caret returns the spaces that put a caret under the failing character
// of line l.
func (reportData) Caret(l excerptLine) string {
	return strings.Repeat(" ", utf8.RuneCountInString(l.Before))
}

// writeReport writes the report page with status code and a policy that
// lets only its own nonced style and script run.
func writeReport(w http.ResponseWriter, code int, data reportData) {
	var nonce [16]byte
	rand.Read(nonce[:])
	data.Nonce = base64.StdEncoding.EncodeToString(nonce[:])
	var b bytes.Buffer
	if err := reportPage.Execute(&b, data); err != nil {
		http.Error(w, data.Title+": "+err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", fmt.Sprintf("default-src 'self'; style-src 'nonce-%s'; script-src 'nonce-%[1]s'; connect-src 'self'; base-uri 'none'; form-action 'none'", data.Nonce))
	h.Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(code)
	w.Write(b.Bytes())
}

// overlay writes the error page for a failed build, with status 500:
// every error and warning with the source lines around it.
func overlay(w http.ResponseWriter, fail *Report, read sourceReader) {
	data := reportData{Title: "Build failed", Failed: true,
		Footer: "The JSON documents are still those of the last good build. Fix the sources and this page reloads by itself."}
	var invalid *build.InvalidError
	if errors.As(fail.Err, &invalid) {
		errs, warns := 0, 0
		for _, v := range invalid.Violations {
			if v.Severity == skillcat.SeverityWarning {
				warns++
			} else {
				errs++
			}
		}
		data.Problems = problems(invalid.Violations, read)
		data.Summary = fmt.Sprintf("%s and %s in %s:", plural(errs, "error"), plural(warns, "warning"), plural(fail.Result.Sources, "source"))
	} else {
		data.Summary = "The site could not be built:"
		data.Messages = []string{fail.Err.Error()}
	}
	writeReport(w, http.StatusInternalServerError, data)
}

// warningsPage writes the warnings of the last good build.
func warningsPage(w http.ResponseWriter, vs skillcat.Violations, read sourceReader) {
	data := reportData{Title: "Warnings", Problems: problems(vs, read),
		Summary: plural(len(vs), "warning") + " in the last build (it succeeded; build --strict would fail):",
		Footer:  "Fix the sources and this page reloads by itself."}
	if len(vs) == 0 {
		data.Summary = "The last build had no warnings."
	}
	writeReport(w, http.StatusOK, data)
}
