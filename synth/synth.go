// Package synth generates synthetic skill catalogs: content directories of
// realistic, valid skill sources for benchmarks, load tests and comparisons
// with other site generators.
//
// # Layout
//
// Write(dir, n, seed) writes n sources into Groups subfolders, source i going
// to g<i mod Groups>/skill-<i>.<ext> (for example g042/skill-00042.json), so
// that no folder holds more than n/Groups files. Even-numbered sources are
// JSON SkillDescriptors; odd-numbered ones are Markdown files whose YAML front
// matter, between "---" lines, holds every descriptor member but
// description, and whose body is the description.
//
// # Content
//
// Every source declares protocol 1.0.0 and has a unique id, a name, a SemVer
// version, a provider, an endpoint, an auth object with the members its type
// requires, an inputs object schema with five properties of mixed types (one
// an enum), an output schema, two to five tags and one example whose inputs
// validate against inputs (and whose output, when present, validates against
// output). The description is about 1.5 KB of CommonMark: a summary paragraph
// with some inline markup, a heading, a bullet list, a fenced code block and a
// closing paragraph.
//
// Capability types and auth types cycle with the source number so that every
// combination occurs in both formats within the first 32 sources; sources
// 7 and 14 of every 20 are private (10%), and about a third of the others
// whose auth type is not "none" are restricted.
//
// # Determinism
//
// Source i depends only on (seed, i): it draws from a PCG generator seeded
// with both, so the same seed gives byte-identical files whatever n is, and
// sources can be generated in parallel.
package synth

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Groups is the number of subfolders that Write spreads sources over.
const Groups = 100

// CapabilityTypes, AuthTypes and AccessLevels list the values that generated
// sources cycle through, in the order of the specification.
var (
	CapabilityTypes = []string{"plugin", "api", "knowledge", "task"}
	AuthTypes       = []string{"api_key", "oauth2", "custom", "none"}
	AccessLevels    = []string{"public", "restricted", "private"}
)

// DescriptorSchemaURL is the $schema that some generated sources declare.
const DescriptorSchemaURL = "https://raw.githubusercontent.com/skillcat/skillcat/main/schemas/skill-descriptor.schema.json"

// Name returns the slash-separated path, relative to the content directory,
// of source i: g<i mod Groups>/skill-<i>.json for even i, .md for odd i.
func Name(i int) string {
	ext := "json"
	if i%2 == 1 {
		ext = "md"
	}
	return fmt.Sprintf("g%03d/skill-%05d.%s", i%Groups, i, ext)
}

// Source returns the path (as Name) and the bytes of source i of the catalog
// generated from seed.
func Source(i int, seed int64) (name string, data []byte) {
	return Name(i), appendSource(nil, i, seed)
}

// Write creates dir if needed and writes sources 0 to n-1 generated from seed
// into it, overwriting files of the same names. Files are written in parallel;
// the first error stops the remaining work and is returned.
func Write(dir string, n int, seed int64) error {
	if n < 0 {
		return fmt.Errorf("write catalog: negative count %d", n)
	}
	for g := range min(n, Groups) {
		if err := os.MkdirAll(filepath.Join(dir, fmt.Sprintf("g%03d", g)), 0o755); err != nil {
			return fmt.Errorf("write catalog: %w", err)
		}
	}
	workers := min(runtime.GOMAXPROCS(0)*2, max(n, 1))
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs error
		next = make(chan int, 256)
		stop = make(chan struct{})
		once sync.Once
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for i := range next {
				buf = appendSource(buf[:0], i, seed)
				if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(Name(i))), buf, 0o644); err != nil {
					mu.Lock()
					errs = errors.Join(errs, fmt.Errorf("write catalog: %w", err))
					mu.Unlock()
					once.Do(func() { close(stop) })
					return
				}
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-stop:
			break feed
		}
	}
	close(next)
	wg.Wait()
	return errs
}

// skill is one generated descriptor before it is written in either format.
type skill struct {
	members     object // every member but description, in specification order
	description string
}

func appendSource(b []byte, i int, seed int64) []byte {
	r := rand.New(rand.NewPCG(uint64(seed), uint64(i)))
	s := newSkill(r, i)
	if i%2 == 0 {
		full := make(object, 0, len(s.members)+1)
		for _, m := range s.members {
			full = append(full, m)
			if m.key == "capability_type" {
				full.add("description", s.description)
			}
		}
		b = appendJSON(b, full, 0)
		return append(b, '\n')
	}
	b = append(b, "---\n"...)
	b = appendYAML(b, s.members, 0, false)
	b = append(b, "---\n\n"...)
	b = append(b, s.description...)
	return append(b, '\n')
}

func newSkill(r *rand.Rand, i int) skill {
	// k pairs a JSON source with the Markdown one after it, so both formats
	// see every capability type and auth type combination.
	k := i / 2
	capType := CapabilityTypes[k%4]
	authType := AuthTypes[(k+k/4)%4]
	access := "public"
	switch m := i % 20; {
	case m == 7 || m == 14:
		access = "private"
	case authType != "none" && m%3 == 0:
		access = "restricted"
	}

	domain := pick(r, domains)
	action := pick(r, actions)
	id := fmt.Sprintf("%s.%s-%05d", domain, action, i)
	name := title(domain) + " " + title(action)
	if q := pick(r, qualifiers); q != "" {
		name += " " + q
	}
	prov := pick(r, providers)
	slug := slugify(prov)
	major := r.IntN(5)
	version := fmt.Sprintf("%d.%d.%d", major, r.IntN(20), r.IntN(30))
	switch x := r.IntN(20); {
	case x < 2:
		version += fmt.Sprintf("-beta.%d", r.IntN(5)+1)
	case x < 3:
		version += "-rc.1"
	case x < 4:
		version += fmt.Sprintf("+build.%d", r.IntN(900)+100)
	}

	inputs, props, exampleInputs := inputSchema(r)
	output, exampleOutput := outputSchema(r)

	var m object
	if i%2 == 0 && r.IntN(2) == 0 || i%2 == 1 && r.IntN(5) == 0 {
		m.add("$schema", DescriptorSchemaURL)
	}
	m.add("protocol", object{{"version", "1.0.0"}})
	m.add("id", id)
	m.add("name", name)
	m.add("version", version)
	m.add("capability_type", capType)
	m.add("provider", object{
		{"name", prov},
		{"url", "https://" + slug + ".example.com"},
		{"email", "skills@" + slug + ".example.com"},
	})
	endpoint := object{{"url", fmt.Sprintf("https://api.%s.example.com/v%d/%s/%s", slug, major+1, domain, action)}}
	if x := r.IntN(10); x >= 4 {
		endpoint.add("method", []string{"POST", "POST", "GET", "PUT", "PATCH", "DELETE"}[x-4])
	}
	m.add("endpoint", endpoint)
	m.add("auth", authObject(r, authType, slug))
	m.add("access", access)
	m.add("inputs", inputs)
	m.add("output", output)
	m.add("tags", tags(r, domain, action))
	example := object{{"title", exampleTitle(r, action)}, {"inputs", exampleInputs}}
	if exampleOutput != nil {
		example.add("output", exampleOutput)
	}
	m.add("examples", []any{example})
	if r.IntN(2) == 0 {
		m.add("documentation_url", "https://docs."+slug+".example.com/skills/"+id)
	}
	return skill{members: m, description: description(r, id, name, prov, slug, props, exampleInputs)}
}

func authObject(r *rand.Rand, typ, slug string) object {
	a := object{{"type", typ}}
	switch typ {
	case "api_key":
		if r.IntN(3) == 0 {
			a.add("in", "query")
			a.add("name", pick(r, []string{"api_key", "key", "token"}))
		} else {
			a.add("in", "header")
			a.add("name", pick(r, []string{"X-API-Key", "Authorization", "X-Skill-Token"}))
		}
	case "oauth2":
		a.add("token_url", "https://auth."+slug+".example.com/oauth/token")
		if r.IntN(5) < 3 {
			a.add("authorization_url", "https://auth."+slug+".example.com/oauth/authorize")
		}
		scopes := object{}
		for _, j := range r.Perm(len(scopeNames))[:r.IntN(3)+1] {
			scopes.add(scopeNames[j], "Access to your "+pick(r, adjectives)+" "+pick(r, nouns)+".")
		}
		a.add("scopes", scopes)
	case "custom":
		a.add("instructions", fmt.Sprintf(
			"Request a signed token from https://%s.example.com/console and send it in the X-Signature header. Tokens expire after %d minutes.",
			slug, (r.IntN(12)+1)*5))
	}
	return a
}

// inputSchema returns an object schema with five properties, the property
// names in schema order, and example inputs that validate against it.
func inputSchema(r *rand.Rand) (schema object, names []string, example object) {
	kinds := r.Perm(6)[:5]
	props := object{}
	example = object{}
	var required []string
	nreq := r.IntN(3) + 1
	for n, kind := range kinds {
		name := pick(r, paramNames[kind])
		names = append(names, name)
		p := object{}
		var val any
		switch kind {
		case 0:
			p.add("type", "string")
			p.add("minLength", 1)
			p.add("maxLength", 200)
			val = pick(r, places)
		case 1:
			lo, hi := r.IntN(5), 10*(r.IntN(50)+1)
			p.add("type", "integer")
			p.add("minimum", lo)
			p.add("maximum", hi)
			p.add("default", lo+1)
			val = lo + r.IntN(hi-lo+1)
		case 2:
			p.add("type", "number")
			p.add("minimum", 0)
			p.add("maximum", 1)
			val = float64(r.IntN(101)) / 100
		case 3:
			p.add("type", "boolean")
			p.add("default", false)
			val = r.IntN(2) == 0
		case 4:
			set := enumValues[name]
			p.add("type", "string")
			p.add("enum", set)
			val = pick(r, set)
		case 5:
			p.add("type", "array")
			p.add("items", object{{"type", "string"}, {"pattern", "^[a-z0-9-]+$"}})
			p.add("maxItems", 10)
			var items []string
			for _, t := range r.Perm(len(tagWords))[:r.IntN(3)+1] {
				items = append(items, tagWords[t])
			}
			val = items
		}
		p.add("description", sentence(r, name))
		props.add(name, p)
		if n < nreq || r.IntN(2) == 0 {
			example.add(name, val)
		}
		if n < nreq {
			required = append(required, name)
		}
	}
	schema = object{}
	if r.IntN(3) == 0 {
		schema.add("$schema", "https://json-schema.org/draft/2020-12/schema")
	}
	schema.add("type", "object")
	schema.add("properties", props)
	schema.add("required", required)
	schema.add("additionalProperties", false)
	return schema, names, example
}

// outputSchema returns an output schema and an example output that validates
// against it, or a nil example.
func outputSchema(r *rand.Rand) (schema any, example object) {
	switch x := r.IntN(20); {
	case x == 0:
		return true, nil
	case x < 10:
		schema := object{
			{"type", "object"},
			{"properties", object{
				{"result", object{{"type", "string"}}},
				{"confidence", object{{"type", "number"}, {"minimum", 0}, {"maximum", 1}}},
				{"items", object{
					{"type", "array"},
					{"items", object{
						{"type", "object"},
						{"properties", object{
							{"id", object{{"type", "string"}}},
							{"score", object{{"type", "number"}}},
						}},
						{"required", []string{"id"}},
					}},
				}},
			}},
			{"required", []string{"result"}},
		}
		if r.IntN(3) == 0 {
			return schema, nil
		}
		var items []any
		for range r.IntN(3) {
			items = append(items, object{{"id", fmt.Sprintf("%s-%d", pick(r, nouns), r.IntN(1000))}, {"score", float64(r.IntN(1000)) / 10}})
		}
		if items == nil {
			items = []any{}
		}
		return schema, object{
			{"result", sentence(r, pick(r, nouns))},
			{"confidence", float64(r.IntN(101)) / 100},
			{"items", items},
		}
	default:
		schema := object{
			{"type", "object"},
			{"properties", object{
				{"count", object{{"type", "integer"}, {"minimum", 0}}},
				{"records", object{{"type", "array"}, {"items", object{{"type", "string"}}}}},
				{"next_page", object{{"type", []string{"string", "null"}}}},
			}},
			{"required", []string{"count", "records"}},
		}
		var recs []string
		for range r.IntN(4) {
			recs = append(recs, pick(r, places))
		}
		if recs == nil {
			recs = []string{}
		}
		return schema, object{{"count", len(recs)}, {"records", recs}, {"next_page", nil}}
	}
}

func tags(r *rand.Rand, domain, action string) []string {
	pool := append([]string{domain, action}, tagWords...)
	seen := map[string]bool{}
	var out []string
	for want := r.IntN(4) + 2; len(out) < want; {
		t := pick(r, pool)
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

func exampleTitle(r *rand.Rand, action string) string {
	return title(action) + " " + pick(r, nouns) + " for " + pick(r, places)
}

// description returns about 1.5 KB of CommonMark for one skill.
func description(r *rand.Rand, id, name, prov, slug string, props []string, inputs object) string {
	var b strings.Builder
	b.Grow(2048)

	// Summary: the first paragraph, with inline markup that a summary must
	// strip, wrapped over several lines.
	summary := fmt.Sprintf("%s %s %s %s from *%s* sources, %s.", name, pick(r, verbs), pick(r, adjectives), pick(r, nouns), pick(r, adjectives),
		pick(r, []string{"in one call", "with `" + props[0] + "` filters", "for teams of any size", "with **no** setup", "for " + pick(r, places)}))
	summary += " " + sentence(r, pick(r, nouns))
	if r.IntN(2) == 0 {
		summary += " " + sentence(r, pick(r, nouns))
	}
	wrap(&b, summary)
	b.WriteString("## ")
	b.WriteString(pick(r, headings))
	b.WriteString("\n\n")
	wrap(&b, paragraph(r, 4+r.IntN(2)))

	for _, p := range props[:3+r.IntN(3)] {
		fmt.Fprintf(&b, "- `%s`: %s\n", p, sentence(r, p))
	}

	b.WriteString("\nExample request:\n\n```json\n")
	req := object{{"caller", object{{"id", "agent-42"}, {"type", "agent"}}}, {"skill_id", id}, {"inputs", inputs}}
	b.Write(appendJSON(nil, req, 0))
	b.WriteString("\n```\n\n")

	closing := paragraph(r, 2+r.IntN(2))
	if r.IntN(4) == 0 {
		closing += " Thresholds must satisfy 0 < t & t <= 1; values like <none> are rejected."
	}
	closing += fmt.Sprintf(" Questions go to [%s](https://%s.example.com/support).", prov, slug)
	wrap(&b, closing)
	return strings.TrimSuffix(b.String(), "\n\n")
}

func paragraph(r *rand.Rand, n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = sentence(r, pick(r, nouns))
	}
	return strings.Join(s, " ")
}

// sentence returns one plain sentence about subject.
func sentence(r *rand.Rand, subject string) string {
	subject = strings.ReplaceAll(subject, "_", " ")
	switch r.IntN(6) {
	case 0:
		return fmt.Sprintf("The %s value %s %s %s and keeps them %s.", subject, pick(r, verbs), pick(r, adjectives), pick(r, nouns), pick(r, adjectives))
	case 1:
		return fmt.Sprintf("It %s %s %s from %s within %d seconds.", pick(r, verbs), pick(r, adjectives), subject, pick(r, places), r.IntN(55)+5)
	case 2:
		return fmt.Sprintf("Each request %s up to %d %s, which keeps %s %s.", pick(r, verbs), (r.IntN(9)+1)*50, pick(r, nouns), subject, pick(r, adjectives))
	case 3:
		return fmt.Sprintf("Use it to narrow %s to %s %s before the skill %s them.", subject, pick(r, adjectives), pick(r, nouns), pick(r, verbs))
	case 4:
		return fmt.Sprintf("%s %s are %s by default and %s when cached.", capitalize(pick(r, adjectives)), subject, pick(r, adjectives), pick(r, adjectives))
	default:
		return fmt.Sprintf("When %s is missing, the service %s %s %s instead.", subject, pick(r, verbs), pick(r, adjectives), pick(r, nouns))
	}
}

// wrap writes s as one paragraph wrapped at 80 columns, then a blank line.
func wrap(b *strings.Builder, s string) {
	col, first := 0, true
	for w := range strings.FieldsSeq(s) {
		n := utf8.RuneCountInString(w)
		if !first {
			if col+1+n > 80 {
				b.WriteByte('\n')
				col = 0
			} else {
				b.WriteByte(' ')
				col++
			}
		}
		b.WriteString(w)
		col += n
		first = false
	}
	b.WriteString("\n\n")
}

func pick[T any](r *rand.Rand, s []T) T { return s[r.IntN(len(s))] }

func title(s string) string {
	switch s {
	case "hr", "crm":
		return strings.ToUpper(s)
	}
	return capitalize(s)
}

func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

func slugify(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			b.WriteRune(c)
		case c == ' ' && b.Len() > 0:
			b.WriteByte('-')
		}
	}
	return b.String()
}
