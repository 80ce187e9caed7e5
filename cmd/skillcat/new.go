package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/build"
)

func init() {
	commands["new"] = command{summary: "write a new skill source with a placeholder for every member", run: runNew}
}

// runNew writes <content>/<id>.json or .md: a source that validates as it
// stands and shows every member with a short placeholder. Every refusal
// (a bad id, type, format, access or name; a file that exists; an id
// another source already uses) is a usage error, exit 2, and writes
// nothing.
func runNew(_ context.Context, e *env, args []string) int {
	flags := newFlags(e, "new", "ID [--type plugin|api|knowledge|task] [--format json|md] [--access public|restricted|private] [--name NAME] [--in FOLDER] [--content DIR]")
	typ := flags.String("type", "api", "the capability `type`: plugin, api, knowledge or task")
	format := flags.String("format", "json", "the source `format`: json, or md (YAML front matter and a Markdown description)")
	access := flags.String("access", "public", "the `access` level, who may see and call the skill: public, restricted or private")
	name := flags.String("name", "", "the skill's display `name`; derived from the id when empty")
	content := flags.String("content", "content", "the catalog's content `directory`")
	in := flags.String("in", "", "the `folder` inside the content directory to write into, such as weather (made if missing)")
	// Flags may come before or after the id.
	var ids []string
	for rest := args; ; {
		if code := parseFlags(e, flags, rest); code >= 0 {
			return code
		}
		if flags.NArg() == 0 {
			break
		}
		ids = append(ids, flags.Arg(0))
		rest = flags.Args()[1:]
	}
	switch {
	case len(ids) == 0:
		fmt.Fprintln(e.stderr, "skillcat new: give the new skill's id, such as: skillcat new weather.forecast")
		return exitUsage
	case len(ids) > 1:
		fmt.Fprintf(e.stderr, "skillcat new: unexpected argument %q; give one id\n", ids[1])
		return exitUsage
	}
	id := ids[0]
	if !skillcat.ValidID(id) {
		fmt.Fprintf(e.stderr, "skillcat new: invalid id %q: use up to 128 lowercase letters and digits, with single \".\", \"_\" or \"-\" between them, such as weather.forecast\n", id)
		return exitUsage
	}
	if !isCapabilityType(*typ) {
		fmt.Fprintf(e.stderr, "skillcat new: --type must be one of plugin, api, knowledge, task; got %q\n", *typ)
		return exitUsage
	}
	if *format != "json" && *format != "md" {
		fmt.Fprintf(e.stderr, "skillcat new: --format must be json or md; got %q\n", *format)
		return exitUsage
	}
	switch skillcat.Access(*access) {
	case skillcat.Public, skillcat.Restricted, skillcat.Private:
	default:
		fmt.Fprintf(e.stderr, "skillcat new: --access must be one of public, restricted, private; got %q\n", *access)
		return exitUsage
	}
	if *name == "" {
		*name = nameFromID(id)
	}
	if n := utf8.RuneCountInString(*name); n > 120 || strings.TrimFunc(*name, unicode.IsSpace) == "" {
		fmt.Fprintf(e.stderr, "skillcat new: --name must be 1 to 120 characters and not blank; got %q\n", *name)
		return exitUsage
	}
	if _, code := contentDir(e, *content); code >= 0 {
		return code
	}
	root, sub, code := newTarget(e, *content, *in)
	if code >= 0 {
		return code
	}
	*content = root
	if err := os.MkdirAll(filepath.Join(root, sub), 0o755); err != nil {
		fmt.Fprintf(e.stderr, "skillcat new: %v\n", err)
		return exitInternal
	}
	file := filepath.Join(root, sub, id+"."+*format)
	if _, err := os.Lstat(file); err == nil {
		fmt.Fprintf(e.stderr, "skillcat new: %s already exists; edit it, or pick another id\n", file)
		return exitUsage
	}
	if other := findID(*content, id); other != "" {
		fmt.Fprintf(e.stderr, "skillcat new: id %q is already used by %s; pick another id\n", id, other)
		return exitUsage
	}
	if other, file := collidingID(*content, id); other != "" {
		fmt.Fprintf(e.stderr, "skillcat new: id %q cannot be published beside %q (%s): a file of one would be a folder of the other; pick another id\n", id, other, file)
		return exitUsage
	}

	sk := newSkill(id, *name, skillcat.CapabilityType(*typ), skillcat.Access(*access))
	data := sk.json()
	if *format == "md" {
		data = sk.markdown()
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		fmt.Fprintf(e.stderr, "skillcat new: %s already exists; edit it, or pick another id\n", file)
		return exitUsage
	}
	if err == nil {
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(file)
		}
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "skillcat new: write %s: %v\n", file, err)
		return exitInternal
	}
	next := "skillcat validate"
	if *content != "content" {
		next += " --content " + shellQuote(*content)
	}
	fmt.Fprintf(e.stdout, "Wrote %s (%s, %s).\nEvery member has a placeholder. Edit it, then run: %s\n", file, *typ, *access, next)
	return exitOK
}

func isCapabilityType(s string) bool {
	for _, t := range skillcat.CapabilityTypes {
		if string(t) == s {
			return true
		}
	}
	return false
}

// nameFromID makes a display name of an id: "weather.hourly-forecast"
// becomes "Weather Hourly Forecast".
func nameFromID(id string) string {
	words := strings.FieldsFunc(id, func(r rune) bool { return r == '.' || r == '_' || r == '-' })
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return strings.Join(words, " ")
}

// newTarget returns the content root to check ids in and the folder inside
// it to write into, from --content and --in. A --content inside a catalog's
// content folder (below a folder holding the site file _index.md, or below
// ./content) is resolved to that folder, with a note saying so, so that ids
// are checked across the whole catalog. A folder outside the root, or one
// the build would skip (a name starting with "_" or "."), is refused.
func newTarget(e *env, content, in string) (root, sub string, code int) {
	root = filepath.Clean(content)
	if r, rel := enclosingContent(root); r != "" {
		fmt.Fprintf(e.stderr, "skillcat new: %s is inside the catalog's content folder %s; writing into it and checking ids across all of %s (next time: --in %s)\n",
			content, r, r, shellQuote(filepath.ToSlash(filepath.Join(rel, in))))
		root, in = r, filepath.Join(rel, in)
	}
	sub = filepath.Clean(filepath.FromSlash(in))
	if sub == "." {
		return root, "", -1
	}
	if filepath.IsAbs(sub) || sub == ".." || strings.HasPrefix(sub, ".."+string(filepath.Separator)) {
		fmt.Fprintf(e.stderr, "skillcat new: --in %q must be a folder inside the content directory %s, such as weather\n", in, root)
		return "", "", exitUsage
	}
	for _, seg := range strings.Split(sub, string(filepath.Separator)) {
		if strings.HasPrefix(seg, "_") || strings.HasPrefix(seg, ".") {
			fmt.Fprintf(e.stderr, "skillcat new: the build skips names starting with \"_\" or \".\", so a skill in %s would never be published; pick another folder\n", filepath.Join(root, sub))
			return "", "", exitUsage
		}
	}
	return root, sub, -1
}

// enclosingContent returns the content folder that dir lies strictly
// inside, as a path relative to the working directory when dir is one, and
// dir's path inside it; or "". The content folder is the nearest folder
// above dir that holds the site file _index.md, else ./content.
func enclosingContent(dir string) (root, rel string) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", ""
	}
	found := ""
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "_index.md")); err == nil {
			found = d
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	if found == "" {
		if c, err := filepath.Abs("content"); err == nil && strings.HasPrefix(abs, c+string(filepath.Separator)) {
			found = c
		}
	}
	if found == "" {
		return "", ""
	}
	rel, _ = filepath.Rel(found, abs)
	root = found
	if !filepath.IsAbs(dir) {
		if wd, err := os.Getwd(); err == nil {
			if r, err := filepath.Rel(wd, found); err == nil {
				root = r
			}
		}
	}
	return root, rel
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r < utf8.RuneSelf && (r == '/' || r == '.' || r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r)))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// findID returns the path of a source under dir whose id is id, or "". It
// finds the sources and reads their ids as the build does
// (build.SourceIDs); a source it cannot read is left to validate.
func findID(dir, id string) string {
	ids := build.SourceIDs(context.Background(), os.DirFS(dir))
	found := ""
	for p, got := range ids {
		if got == id && (found == "" || p < found) {
			found = p
		}
	}
	if found == "" {
		return ""
	}
	return filepath.Join(dir, filepath.FromSlash(found))
}

// collidingID returns an id of a source in dir that cannot be published
// beside id (build.IDsCollide), and that source's path, or "".
func collidingID(dir, id string) (other, file string) {
	for p, got := range build.SourceIDs(context.Background(), os.DirFS(dir)) {
		if got != id && build.IDsCollide(id, got) && (file == "" || p < file) {
			other, file = got, p
		}
	}
	if file == "" {
		return "", ""
	}
	return other, filepath.Join(dir, filepath.FromSlash(file))
}

// scaffold is what a new source says: the placeholders for one skill.
type scaffold struct {
	id, name string
	typ      skillcat.CapabilityType
	access   skillcat.Access

	// One example input property and one output property, with the
	// values of the example call.
	in, inDesc, inExample    string
	out, outDesc, outExample string
}

// scaffolds holds each capability type's example input and output.
var scaffolds = map[skillcat.CapabilityType]scaffold{
	skillcat.API: {
		in: "query", inDesc: "What to look up.", inExample: "example",
		out: "result", outDesc: "What the API found.", outExample: "An example result",
	},
	skillcat.Plugin: {
		in: "text", inDesc: "The text the plugin works on.", inExample: "Some text",
		out: "text", outDesc: "The text after the plugin's work.", outExample: "Some changed text",
	},
	skillcat.Knowledge: {
		in: "question", inDesc: "A question in plain words.", inExample: "How do I get started?",
		out: "answer", outDesc: "The answer, in Markdown.", outExample: "Start with the first chapter.",
	},
	skillcat.Task: {
		in: "goal", inDesc: "What the task should achieve.", inExample: "Summarise last week's tickets",
		out: "summary", outDesc: "What the task did.", outExample: "Summarised 42 tickets.",
	},
}

func newSkill(id, name string, typ skillcat.CapabilityType, access skillcat.Access) scaffold {
	sk := scaffolds[typ]
	sk.id, sk.name, sk.typ, sk.access = id, name, typ, access
	return sk
}

// summary is the description's first paragraph; body is the rest.
func (s scaffold) summary() string {
	return skillcat.PlaceholderSummary + s.name +
		" does: this first paragraph is the summary shown in the catalog and the skill index."
}

func (s scaffold) body() string {
	return "## Usage\n\nCall the endpoint with `" + s.in + "` in the inputs; on success the output holds `" +
		s.out + "`. Say here what a caller should know: limits, costs, errors, and how to get access."
}

// auth is the placeholder auth: none, unless the access is restricted,
// which needs a credential.
func (s scaffold) auth() (typ, in, name string) {
	if s.access == skillcat.Restricted {
		return "api_key", "header", "X-Api-Key"
	}
	return "none", "", ""
}

// quoteJSON quotes s as a JSON string, which is also a YAML double-quoted scalar.
func quoteJSON(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

func (s scaffold) json() []byte {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("{\n")
	p("  \"$schema\": %s,\n", quoteJSON(skillcat.SchemaBaseURL+skillcat.DescriptorSchemaFile))
	p("  \"protocol\": {\"version\": %s},\n", quoteJSON(skillcat.CurrentVersion))
	p("  \"id\": %s,\n", quoteJSON(s.id))
	p("  \"name\": %s,\n", quoteJSON(s.name))
	p("  \"version\": \"0.1.0\",\n")
	p("  \"capability_type\": %s,\n", quoteJSON(string(s.typ)))
	p("  \"access\": %s,\n", quoteJSON(string(s.access)))
	p("  \"description\": %s,\n", quoteJSON(s.summary()+"\n\n"+s.body()))
	p("  \"provider\": {\"name\": %s, \"url\": %s, \"email\": %s},\n", quoteJSON(skillcat.PlaceholderProviderName), quoteJSON(skillcat.PlaceholderProviderURL), quoteJSON(skillcat.PlaceholderProviderEmail))
	p("  \"endpoint\": {\"url\": %s, \"method\": \"POST\"},\n", quoteJSON(skillcat.PlaceholderEndpointURL+s.id))
	if typ, in, name := s.auth(); in != "" {
		p("  \"auth\": {\"type\": %s, \"in\": %s, \"name\": %s},\n", quoteJSON(typ), quoteJSON(in), quoteJSON(name))
	} else {
		p("  \"auth\": {\"type\": %s},\n", quoteJSON(typ))
	}
	p("  \"tags\": [\"example\"],\n")
	p("  \"documentation_url\": %s,\n", quoteJSON(skillcat.PlaceholderDocumentationURL+s.id))
	p("  \"inputs\": {\n")
	p("    \"type\": \"object\",\n")
	p("    \"properties\": {\n")
	p("      %s: {\"type\": \"string\", \"minLength\": 1, \"description\": %s}\n", quoteJSON(s.in), quoteJSON(s.inDesc))
	p("    },\n")
	p("    \"required\": [%s],\n", quoteJSON(s.in))
	p("    \"additionalProperties\": false\n")
	p("  },\n")
	p("  \"output\": {\n")
	p("    \"type\": \"object\",\n")
	p("    \"properties\": {\n")
	p("      %s: {\"type\": \"string\", \"description\": %s}\n", quoteJSON(s.out), quoteJSON(s.outDesc))
	p("    },\n")
	p("    \"required\": [%s]\n", quoteJSON(s.out))
	p("  },\n")
	p("  \"examples\": [\n")
	p("    {\n")
	p("      \"title\": \"A first example\",\n")
	p("      \"inputs\": {%s: %s},\n", quoteJSON(s.in), quoteJSON(s.inExample))
	p("      \"output\": {%s: %s}\n", quoteJSON(s.out), quoteJSON(s.outExample))
	p("    }\n")
	p("  ]\n")
	p("}\n")
	return []byte(b.String())
}

func (s scaffold) markdown() []byte {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("---\n")
	p("protocol:\n  version: %s\n", quoteJSON(skillcat.CurrentVersion))
	p("id: %s\n", quoteJSON(s.id))
	p("name: %s\n", quoteJSON(s.name))
	p("version: \"0.1.0\"\n")
	p("capability_type: %s\n", s.typ)
	p("access: %s\n", s.access)
	p("provider:\n  name: %s\n  url: %s\n  email: %s\n", skillcat.PlaceholderProviderName, skillcat.PlaceholderProviderURL, skillcat.PlaceholderProviderEmail)
	p("endpoint:\n  url: %s\n  method: POST\n", quoteJSON(skillcat.PlaceholderEndpointURL+s.id))
	typ, in, name := s.auth()
	p("auth:\n  type: %s\n", typ)
	if in != "" {
		p("  in: %s\n  name: %s\n", in, name)
	}
	p("tags: [example]\n")
	p("documentation_url: %s\n", quoteJSON(skillcat.PlaceholderDocumentationURL+s.id))
	p("inputs:\n  type: object\n  properties:\n")
	p("    %s:\n      type: string\n      minLength: 1\n      description: %s\n", s.in, quoteJSON(s.inDesc))
	p("  required: [%s]\n  additionalProperties: false\n", s.in)
	p("output:\n  type: object\n  properties:\n")
	p("    %s:\n      type: string\n      description: %s\n", s.out, quoteJSON(s.outDesc))
	p("  required: [%s]\n", s.out)
	p("examples:\n  - title: A first example\n")
	p("    inputs:\n      %s: %s\n", s.in, quoteJSON(s.inExample))
	p("    output:\n      %s: %s\n", s.out, quoteJSON(s.outExample))
	p("---\n\n")
	p("%s\n\n%s\n", s.summary(), s.body())
	return []byte(b.String())
}
