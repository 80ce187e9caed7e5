package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/a2a"
	"github.com/skillcat/skillcat/build"
	"github.com/skillcat/skillcat/client"
	"github.com/skillcat/skillcat/mcp"
	"github.com/skillcat/skillcat/openapi"
	"go.yaml.in/yaml/v3"
)

func init() {
	commands["import"] = command{summary: "write skill sources from an OpenAPI document, MCP server.json or A2A agent card", run: runImport}
}

// importers maps each kind of input to its importer.
var importers = map[string]func(file string, data []byte, opts skillcat.ImportOptions) (*skillcat.Imported, error){
	"openapi": openapi.Import,
	"mcp":     mcp.Import,
	"a2a":     a2a.Import,
}

// importMaxBytes bounds an input document, read from a file or fetched.
const importMaxBytes = openapi.MaxBytes

// importTimeout bounds the mapping of one document.
var importTimeout = 2 * time.Minute

// importMarker is the member an imported source carries so that --force
// knows which files an earlier import of the same document wrote.
const importMarker = "x-skillcat-import"

// marker is the value of importMarker.
type marker struct {
	Format   string `json:"format" yaml:"format"`
	Document string `json:"document" yaml:"document"`
}

// planned is one source an import would write.
type planned struct {
	path    string // under the content directory, slash-separated
	data    []byte
	id      string
	input   string
	replace bool   // an earlier import of the same document wrote the file
	want    []byte // the descriptor as Encode writes it
}

const importSynopsis = "openapi|mcp|a2a FILE|URL... [--content DIR] [--format md|json] [--prefix ID] [--access public|restricted|private] [--server URL] [--dry-run] [--force]"

// runImport writes skill sources made from foreign documents. It writes
// every file or none: any input that is not what it claims, cannot be
// mapped, or would write a source that does not validate stops it before
// anything is written.
func runImport(ctx context.Context, e *env, args []string) int {
	flags := newFlags(e, "import", importSynopsis)
	content := flags.String("content", "content", "the content `directory` to write into (created when missing)")
	format := flags.String("format", "md", "the source `format`: md (YAML front matter, the description as the body) or json")
	prefix := flags.String("prefix", "", "the first `segment` of every id; derived from each document when empty")
	access := flags.String("access", "", "every skill's `access`: public, restricted or private; by default public, or restricted when the skill needs auth")
	server := flags.String("server", "", "the service's base `URL`, instead of the server the document names")
	dryRun := flags.Bool("dry-run", false, "list and validate what would be written, and write nothing")
	force := flags.Bool("force", false, "replace files that an earlier import of the same document wrote")
	var pos []string
	for rest := args; ; {
		if code := parseFlags(e, flags, rest); code >= 0 {
			return code
		}
		if flags.NArg() == 0 {
			break
		}
		pos = append(pos, flags.Arg(0))
		rest = flags.Args()[1:]
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(e.stderr, "skillcat import: "+format+"\n", a...)
		return exitUsage
	}
	if len(pos) == 0 {
		return usage("give the kind of document and at least one file or URL, such as: skillcat import openapi openapi.yaml")
	}
	kind := pos[0]
	imp, ok := importers[kind]
	if !ok {
		return usage("the kind of document must be openapi, mcp or a2a; got %q", kind)
	}
	inputs := pos[1:]
	if len(inputs) == 0 {
		return usage("give at least one %s file or URL to import", kind)
	}
	if *format != "md" && *format != "json" {
		return usage("--format must be md or json; got %q", *format)
	}
	if *prefix != "" && !skillcat.ValidID(*prefix) {
		return usage("invalid --prefix %q: use lowercase letters and digits, with single \".\", \"_\" or \"-\" between them, such as acme", *prefix)
	}
	switch skillcat.Access(*access) {
	case "", skillcat.Public, skillcat.Restricted, skillcat.Private:
	default:
		return usage("--access must be one of public, restricted, private; got %q", *access)
	}
	if *server != "" && !strings.HasPrefix(*server, "https://") && !strings.HasPrefix(*server, "http://") {
		return usage("--server must be an absolute http(s) URL; got %q", *server)
	}
	if info, err := os.Stat(*content); err == nil && !info.IsDir() {
		return usage("--content %q is not a directory", *content)
	}

	// Read and map every input before anything is written.
	var docs []*skillcat.Imported
	var names []string
	failed := false
	for _, raw := range inputs {
		data, location, code := readInput(ctx, e, raw)
		if code >= 0 {
			return code
		}
		in := redactURL(raw) // the input's name in every message and marker
		opts := skillcat.ImportOptions{Prefix: *prefix, Access: skillcat.Access(*access), Location: withoutUser(location), Server: *server}
		im, err := importBounded(ctx, imp, in, data, opts)
		if err != nil {
			printImportError(e, in, err)
			failed = true
			continue
		}
		docs = append(docs, im)
		names = append(names, in)
	}
	if failed {
		fmt.Fprintln(e.stderr, "skillcat import: nothing written")
		return exitInvalid
	}
	for _, im := range docs {
		for _, w := range im.Warnings {
			fmt.Fprintln(e.stderr, w.Error())
		}
	}

	plan, code := planImport(e, *content, *format, docs, names, *force)
	if code >= 0 {
		return code
	}
	if code := validateImport(ctx, e, *content, plan); code >= 0 {
		return code
	}
	if *dryRun {
		for _, p := range plan {
			verb := "write"
			if p.replace {
				verb = "replace"
			}
			fmt.Fprintf(e.stdout, "would %s %s (%s)\n", verb, filepath.Join(*content, filepath.FromSlash(p.path)), p.id)
		}
		fmt.Fprintf(e.stderr, "skillcat import: dry run: %s valid; nothing written\n", plural(len(plan), "source"))
		return exitOK
	}
	if err := writePlan(*content, plan); err != nil {
		fmt.Fprintf(e.stderr, "skillcat import: %v; nothing written\n", err)
		return exitInternal
	}
	for _, p := range plan {
		fmt.Fprintf(e.stdout, "wrote %s (%s)\n", filepath.Join(*content, filepath.FromSlash(p.path)), p.id)
	}
	next := "skillcat validate"
	if *content != "content" {
		next += " --content " + shellQuote(*content)
	}
	fmt.Fprintf(e.stderr, "skillcat import: %s written, each valid as it stands; review them, then run: %s\n", plural(len(plan), "source"), next)
	return exitOK
}

// readInput reads one input: a URL (https, or http on a loopback host) is
// fetched with the careful client; anything else is a file path, which
// never causes a network request. It returns the bytes, the URL they came
// from ("" for a file) and an exit code, -1 to go on.
func readInput(ctx context.Context, e *env, raw string) ([]byte, string, int) {
	if strings.HasPrefix(raw, "https://") || strings.HasPrefix(raw, "http://") {
		in := redactURL(raw)
		c := &client.Client{MaxBytes: importMaxBytes}
		data, u, err := c.FetchDocument(ctx, raw)
		switch {
		case err == nil:
			return data, u.String(), -1
		case errors.Is(err, client.ErrHTTPSRequired):
			fmt.Fprintf(e.stderr, "skillcat import: %s: %v\n", in, err)
			return nil, "", exitUsage
		case errors.Is(err, client.ErrContentType), errors.Is(err, client.ErrTooLarge):
			fmt.Fprintf(e.stderr, "%s: (file): %v\nskillcat import: nothing written\n", in, err)
			return nil, "", exitInvalid
		}
		fmt.Fprintf(e.stderr, "skillcat import: fetch %s: %v; nothing written\n", in, err)
		return nil, "", exitInternal
	}
	in := raw
	// Stat before opening: opening a FIFO would wait for a writer.
	if info, err := os.Stat(in); err == nil && !info.Mode().IsRegular() {
		fmt.Fprintf(e.stderr, "skillcat import: %s is not a regular file; nothing written\n", in)
		return nil, "", exitUsage
	}
	f, err := os.OpenFile(in, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		fmt.Fprintf(e.stderr, "skillcat import: %v; nothing written\n", err)
		return nil, "", exitInternal
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		fmt.Fprintf(e.stderr, "skillcat import: %v; nothing written\n", err)
		return nil, "", exitInternal
	}
	if !info.Mode().IsRegular() {
		fmt.Fprintf(e.stderr, "skillcat import: %s is not a regular file; nothing written\n", in)
		return nil, "", exitUsage
	}
	if info.Size() > importMaxBytes {
		fmt.Fprintf(e.stderr, "%s: (file): document is larger than %d MiB\nskillcat import: nothing written\n", in, importMaxBytes>>20)
		return nil, "", exitInvalid
	}
	data, err := io.ReadAll(io.LimitReader(f, importMaxBytes+1))
	if err != nil {
		fmt.Fprintf(e.stderr, "skillcat import: read %s: %v; nothing written\n", in, err)
		return nil, "", exitInternal
	}
	if len(data) > importMaxBytes {
		fmt.Fprintf(e.stderr, "%s: (file): document is larger than %d MiB\nskillcat import: nothing written\n", in, importMaxBytes>>20)
		return nil, "", exitInvalid
	}
	return data, "", -1
}

// importBounded runs an importer with a time bound and turns a panic into
// an error, so that no document makes import hang or crash.
func importBounded(ctx context.Context, imp func(string, []byte, skillcat.ImportOptions) (*skillcat.Imported, error), file string, data []byte, opts skillcat.ImportOptions) (*skillcat.Imported, error) {
	type result struct {
		im  *skillcat.Imported
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- result{nil, fmt.Errorf("cannot import this document (importer failure: %v)", r)}
			}
		}()
		im, err := imp(file, data, opts)
		done <- result{im, err}
	}()
	timer := time.NewTimer(importTimeout)
	defer timer.Stop()
	select {
	case r := <-done:
		return r.im, r.err
	case <-timer.C:
		return nil, fmt.Errorf("gave up after %s: the document is too large or too tangled to map", importTimeout)
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

func printImportError(e *env, in string, err error) {
	if vs, ok := skillcat.AsViolations(err); ok {
		for _, v := range vs {
			fmt.Fprintln(e.stderr, v.Error())
		}
		return
	}
	fmt.Fprintf(e.stderr, "%s: (file): %v\n", in, err)
}

// planImport decides each source's path and bytes, and refuses a file
// that exists (unless --force and an earlier import of the same document
// wrote it) and an id another source uses, naming both.
func planImport(e *env, content, format string, docs []*skillcat.Imported, names []string, force bool) ([]planned, int) {
	existing := contentIDs(content)
	var plan []planned
	byID := map[string]string{}
	byPath := map[string]string{}
	refused := false
	for i, im := range docs {
		mark := markerJSON(marker{Format: im.Format, Document: im.Document})
		for _, d := range im.Skills {
			if d.Extra == nil {
				d.Extra = skillcat.Extra{}
			}
			d.Extra[importMarker] = mark
			data, err := sourceFile(d, format)
			for step := 0; err == nil && len(data) > build.MaxSourceSize && step < 2; step++ {
				// A skill of a huge API can carry more schema than a source
				// may hold: give up the output schema (and examples), then the
				// inputs schema, and say so.
				what := "output schema and examples"
				if step == 0 {
					d.Output, d.Examples = json.RawMessage(`{}`), nil
				} else {
					d.Inputs, what = json.RawMessage(`{"type":"object"}`), "inputs schema"
				}
				fmt.Fprintf(e.stderr, "%s: warning: %s: %s replaced by open ones: the source would be larger than %d KiB\n", names[i], d.ID, what, build.MaxSourceSize>>10)
				data, err = sourceFile(d, format)
			}
			want, werr := d.Encode()
			if err == nil {
				err = werr
			}
			if err != nil {
				fmt.Fprintf(e.stderr, "skillcat import: %s: write %s: %v\n", names[i], d.ID, err)
				return nil, exitInternal
			}
			p := planned{path: im.Folder + "/" + d.ID + "." + format, data: data, id: d.ID, input: names[i], want: want}
			full := filepath.Join(content, filepath.FromSlash(p.path))
			if other, ok := byID[d.ID]; ok {
				fmt.Fprintf(e.stderr, "%s: (file): id %q is made twice, also from %s; pass --prefix to tell them apart\n", names[i], d.ID, other)
				refused = true
				continue
			}
			byID[d.ID] = names[i]
			if other, ok := byPath[p.path]; ok {
				fmt.Fprintf(e.stderr, "%s: (file): %s would be written twice, also from %s\n", names[i], full, other)
				refused = true
				continue
			}
			byPath[p.path] = names[i]
			if _, err := os.Lstat(full); err == nil {
				if !force || !importedBy(full, im.Format, im.Document) {
					why := "pass --force to replace files an earlier import of this document wrote"
					if force {
						why = "an earlier import of this document did not write it, so --force does not replace it"
					}
					fmt.Fprintf(e.stderr, "%s: (file): %s already exists (%s)\n", names[i], full, why)
					refused = true
					continue
				}
				p.replace = true
			}
			if other, ok := existing[d.ID]; ok && other != full {
				fmt.Fprintf(e.stderr, "%s: (file): id %q is already used by %s\n", names[i], d.ID, other)
				refused = true
				continue
			}
			plan = append(plan, p)
		}
	}
	if refused {
		fmt.Fprintln(e.stderr, "skillcat import: nothing written")
		return nil, exitInvalid
	}
	return plan, -1
}

// contentIDs returns the path of the source that declares each id under
// dir, as the build finds and reads them (build.SourceIDs).
func contentIDs(dir string) map[string]string {
	ids := map[string]string{}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return ids
	}
	for p, id := range build.SourceIDs(context.Background(), os.DirFS(dir)) {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if other, ok := ids[id]; !ok || full < other {
			ids[id] = full
		}
	}
	return ids
}

// markerJSON writes the marker as the protocol writes JSON (no HTML
// escaping), so that the source reads back byte for byte.
func markerJSON(m marker) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(m)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// importedBy reports whether the source at path carries the marker of an
// import of document in format.
func importedBy(path, format, document string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	want, _ := json.Marshal(marker{Format: format, Document: document})
	var got []byte
	if strings.HasSuffix(path, ".json") {
		var doc map[string]json.RawMessage
		if json.Unmarshal(data, &doc) != nil {
			return false
		}
		var m marker
		if json.Unmarshal(doc[importMarker], &m) != nil {
			return false
		}
		got, _ = json.Marshal(m)
	} else {
		m, ok := frontMatterMarker(data)
		if !ok {
			return false
		}
		got, _ = json.Marshal(m)
	}
	return string(got) == string(want)
}

// validateImport runs the build's own validation over the content
// directory as it would be after the import, and fails when any planned
// source has a problem, printing every one. Problems of other sources are
// not the import's to report.
func validateImport(ctx context.Context, e *env, content string, plan []planned) int {
	over := overlayFS{files: map[string][]byte{}}
	if info, err := os.Stat(content); err == nil && info.IsDir() {
		over.base = os.DirFS(content)
	}
	for _, p := range plan {
		over.files[p.path] = p.data
	}
	res, err := build.Validate(ctx, build.Config{Content: over, ContentLabel: content, ContentPath: content})
	ours := map[string]bool{}
	for _, p := range plan {
		ours[filepath.Join(content, filepath.FromSlash(p.path))] = true
		ours[content+"/"+p.path] = true
	}
	var vs skillcat.Violations
	var invalid *build.InvalidError
	switch {
	case errors.As(err, &invalid):
		vs = invalid.Violations
	case err != nil:
		fmt.Fprintf(e.stderr, "skillcat import: validate: %v; nothing written\n", err)
		return exitInternal
	default:
		vs = res.Warnings
	}
	bad := false
	for _, v := range vs {
		if !ours[v.File] && !ours[filepath.Clean(v.File)] {
			continue
		}
		fmt.Fprintln(e.stderr, v.Error())
		if v.Severity != skillcat.SeverityWarning {
			bad = true
		}
	}
	if bad {
		fmt.Fprintln(e.stderr, "skillcat import: the sources above would not validate; nothing written")
		return exitInvalid
	}
	return readBack(ctx, e, plan)
}

// readBack reads the planned sources alone as the build reads sources,
// and checks that each says exactly the descriptor the importer made.
func readBack(ctx context.Context, e *env, plan []planned) int {
	over := overlayFS{files: map[string][]byte{}}
	for _, p := range plan {
		over.files[p.path] = p.data
	}
	skills, _, err := build.Skills(ctx, build.Config{Content: over})
	if err != nil {
		fmt.Fprintf(e.stderr, "skillcat import: read back the new sources: %v; nothing written\n", err)
		return exitInvalid
	}
	got := map[string][]byte{}
	for _, s := range skills {
		data, err := s.Descriptor.Encode()
		if err == nil {
			got[s.Descriptor.ID] = data
		}
	}
	for _, p := range plan {
		if !bytes.Equal(got[p.id], p.want) {
			fmt.Fprintf(e.stderr, "skillcat import: %s does not read back as the descriptor it was written from; nothing written\n", p.path)
			return exitInternal
		}
	}
	return -1
}

// writePlan writes every planned file or none: each is written to a
// temporary file beside its place first, then all are renamed into place;
// if anything fails, what was done is undone.
func writePlan(content string, plan []planned) error {
	var created []string // directories made, deepest last
	var temps []string
	var renamed []string
	var backups [][2]string // [backup, original]
	undo := func() {
		for _, p := range renamed {
			os.Remove(p)
		}
		for _, b := range backups {
			os.Rename(b[0], b[1])
		}
		for _, t := range temps {
			os.Remove(t)
		}
		for i := len(created) - 1; i >= 0; i-- {
			os.Remove(created[i])
		}
	}
	mkdir := func(dir string) error {
		var missing []string
		for d := dir; ; d = filepath.Dir(d) {
			if _, err := os.Stat(d); err == nil {
				break
			}
			missing = append(missing, d)
			if filepath.Dir(d) == d {
				break
			}
		}
		for i := len(missing) - 1; i >= 0; i-- {
			if err := os.Mkdir(missing[i], 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				return err
			}
			created = append(created, missing[i])
		}
		return nil
	}
	sorted := append([]planned(nil), plan...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].path < sorted[j].path })
	for _, p := range sorted {
		full := filepath.Join(content, filepath.FromSlash(p.path))
		if err := mkdir(filepath.Dir(full)); err != nil {
			undo()
			return err
		}
		f, err := os.CreateTemp(filepath.Dir(full), ".import-*.tmp")
		if err != nil {
			undo()
			return err
		}
		temps = append(temps, f.Name())
		_, err = f.Write(p.data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Chmod(f.Name(), 0o644)
		}
		if err != nil {
			undo()
			return fmt.Errorf("write %s: %w", full, err)
		}
	}
	for i, p := range sorted {
		full := filepath.Join(content, filepath.FromSlash(p.path))
		if p.replace {
			backup := filepath.Join(filepath.Dir(full), ".import-backup-"+filepath.Base(full))
			if err := os.Rename(full, backup); err != nil {
				undo()
				return fmt.Errorf("replace %s: %w", full, err)
			}
			backups = append(backups, [2]string{backup, full})
		} else if _, err := os.Lstat(full); err == nil {
			undo()
			return fmt.Errorf("%s appeared while importing", full)
		}
		if err := os.Rename(temps[i], full); err != nil {
			undo()
			return fmt.Errorf("write %s: %w", full, err)
		}
		renamed = append(renamed, full)
	}
	for _, b := range backups {
		os.Remove(b[0])
	}
	return nil
}

// frontMatterMarker reads the import marker from a Markdown source's front
// matter.
func frontMatterMarker(data []byte) (marker, bool) {
	first, rest, _ := strings.Cut(string(data), "\n")
	if strings.TrimRight(strings.TrimPrefix(first, "\ufeff"), " \t\r") != "---" {
		return marker{}, false
	}
	var yml strings.Builder
	for _, line := range strings.Split(rest, "\n") {
		if t := strings.TrimRight(line, " \t\r"); t == "---" || t == "..." {
			var doc struct {
				Mark marker `yaml:"x-skillcat-import"`
			}
			if yaml.Unmarshal([]byte(yml.String()), &doc) != nil {
				return marker{}, false
			}
			return doc.Mark, true
		}
		yml.WriteString(line)
		yml.WriteByte('\n')
	}
	return marker{}, false
}
