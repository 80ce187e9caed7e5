package skillcat_test

// The correctness properties of SPEC section 5, one rapid property each.
// Generators are in gen_test.go.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/skillcat/skillcat"
	"pgregory.net/rapid"
)

// minChecks is how many cases every property must check; rapid's default
// (-rapid.checks=100) gives exactly that.
const minChecks = 100

// property runs prop as the rapid property "Feature: skill-sharing-protocol,
// Property n: desc" and fails when it checked fewer than minChecks cases.
func property(t *testing.T, n int, desc string, prop func(*rapid.T)) {
	t.Helper()
	name := fmt.Sprintf("Feature: skill-sharing-protocol, Property %d: %s", n, desc)
	t.Run(name, func(t *testing.T) {
		t.Log(name)
		var runs atomic.Int64
		rapid.Check(t, func(rt *rapid.T) {
			runs.Add(1)
			prop(rt)
		})
		if got := runs.Load(); !t.Failed() && !testing.Short() && got < minChecks {
			t.Errorf("checked %d cases, want at least %d", got, minChecks)
		}
	})
}

// mustParseDescriptor parses a descriptor that must be valid, warnings
// included.
func mustParseDescriptor(t *rapid.T, data []byte) *skillcat.SkillDescriptor {
	t.Helper()
	d, vs := skillcat.ParseDescriptor("gen.json", data)
	if len(vs) > 0 || d == nil {
		t.Fatalf("ParseDescriptor: got violations\n%v\nwant none; document:\n%s", vs, short(data))
	}
	return d
}

func mustEncode(t tb, enc func() ([]byte, error)) []byte {
	t.Helper()
	b, err := enc()
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	return b
}

// pointerOf returns the JSON Pointer of a path of unescaped tokens.
func pointerOf(path ...string) string {
	var b strings.Builder
	for _, tok := range path {
		b.WriteString("/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(tok))
	}
	return b.String()
}

// fieldOf returns the dotted field path of a path whose numeric tokens are
// array indexes and whose names are plain.
func fieldOf(path ...string) string {
	var b strings.Builder
	for _, tok := range path {
		if _, err := strconv.Atoi(tok); err == nil {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

// at returns the value at path in a generated document, and its parent.
func at(doc any, path []string) (parent, v any) {
	v = doc
	for _, tok := range path {
		parent = v
		switch p := v.(type) {
		case map[string]any:
			v = p[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(p) {
				return nil, nil
			}
			v = p[i]
		default:
			return nil, nil
		}
	}
	return parent, v
}

// remove deletes the member at path of a generated document.
func remove(doc any, path []string) {
	parent, _ := at(doc, path)
	delete(parent.(map[string]any), path[len(path)-1])
}

// set replaces or adds the member at path of a generated document.
func set(doc any, path []string, v any) {
	parent, _ := at(doc, path)
	parent.(map[string]any)[path[len(path)-1]] = v
}

// onlyViolation fails unless vs is exactly one error at pointer and field
// with the given reason (any reason when reason is "").
func onlyViolation(t *rapid.T, vs skillcat.Violations, pointer, field, reason string, doc []byte) skillcat.Violation {
	t.Helper()
	if len(vs) != 1 {
		t.Fatalf("got %d violations\n%v\nwant exactly one at %s; document:\n%s", len(vs), vs, pointer, short(doc))
	}
	v := vs[0]
	if v.Pointer != pointer || v.Field != field || v.Severity != skillcat.SeverityError || (reason != "" && v.Reason != reason) {
		t.Fatalf("got violation {pointer %q, field %q, reason %q, severity %s}, want {pointer %q, field %q, reason %q, severity error}; document:\n%s",
			v.Pointer, v.Field, v.Reason, v.Severity, pointer, field, reason, short(doc))
	}
	if v.Line < 1 || v.Column < 1 || v.File == "" {
		t.Fatalf("got position %s:%d:%d, want a file and a line and column of at least 1", v.File, v.Line, v.Column)
	}
	return v
}

// requiredPaths lists every member a generated descriptor must have: the
// twelve top-level ones, the nested ones and those its auth type requires.
func requiredPaths(doc map[string]any) [][]string {
	paths := [][]string{
		{"protocol"}, {"id"}, {"name"}, {"version"}, {"capability_type"}, {"description"},
		{"provider"}, {"endpoint"}, {"inputs"}, {"output"}, {"auth"}, {"access"},
		{"protocol", "version"}, {"provider", "name"}, {"endpoint", "url"}, {"auth", "type"}, {"inputs", "type"},
	}
	switch doc["auth"].(map[string]any)["type"] {
	case "api_key":
		paths = append(paths, []string{"auth", "in"}, []string{"auth", "name"})
	case "oauth2":
		paths = append(paths, []string{"auth", "token_url"})
	case "custom":
		paths = append(paths, []string{"auth", "instructions"})
	}
	if examples, ok := doc["examples"].([]any); ok {
		for i := range examples {
			paths = append(paths, []string{"examples", strconv.Itoa(i), "title"}, []string{"examples", strconv.Itoa(i), "inputs"})
		}
	}
	return paths
}

func TestProperty01StructureCompleteness(t *testing.T) {
	property(t, 1, "structure completeness", func(t *rapid.T) {
		g := drawDescriptorDoc(t)
		path := rapid.SampledFrom(requiredPaths(g.doc)).Draw(t, "removed")
		doc := clone(g.doc)
		remove(doc, path)
		data := drawBytes(t, doc)

		d, vs := skillcat.ParseDescriptor("gen.json", data)
		if d != nil || vs.Err() == nil {
			t.Fatalf("ParseDescriptor without %s: got a descriptor and no error, want an error", pointerOf(path...))
		}
		v := onlyViolation(t, errorsOf(vs), pointerOf(path...), fieldOf(path...), "", data)
		if !strings.HasPrefix(v.Reason, "required ") {
			t.Fatalf("got reason %q, want one saying the member is required", v.Reason)
		}
	})
}

// enumMembers are the enumerated members of Property 2 with their values
// and near misses.
var enumMembers = []struct {
	path       []string
	listed     []string
	nearMisses []string
}{
	{[]string{"capability_type"}, capabilityTypes,
		[]string{"API", "Api", "Plugin ", "plugin ", " api", "plugins", "tasks", "knowlege", "", "api\u200b", "ａｐｉ", "\u0430pi", "apı", "PLUGIN", "task\n"}},
	{[]string{"access"}, accessLevels,
		[]string{"Public", "PRIVATE", "restricted ", "protected", "internal", "", "publіc", "private\u0000"}},
	{[]string{"auth", "type"}, authTypes,
		[]string{"oauth", "OAuth2", "oauth2 ", "apikey", "api-key", "API_KEY", "basic", "bearer", "None", "null", "", "custom\t"}},
}

func enumReason(listed []string, got string) string {
	q := make([]string, len(listed))
	for i, s := range listed {
		q[i] = quoteJSON(s)
	}
	return "must be one of " + strings.Join(q, ", ") + "; got " + got
}

// enumSuggestion is the hint an enum error ends with: the listed value that
// s equals but for case or surrounding space, else the first nearest one
// within edit distance 2 of its lower case (1 for up to three characters).
func enumSuggestion(listed []string, s string) string {
	for _, l := range listed {
		if strings.EqualFold(l, strings.TrimSpace(s)) {
			return "; did you mean " + quoteJSON(l) + "?"
		}
	}
	limit := 2
	if len([]rune(s)) <= 3 {
		limit = 1
	}
	best, bestD := "", limit+1
	for _, l := range listed {
		if d := levenshtein(strings.ToLower(s), strings.ToLower(l)); d < bestD {
			best, bestD = l, d
		}
	}
	if best == "" {
		return ""
	}
	return "; did you mean " + quoteJSON(best) + "?"
}

// levenshtein is the edit distance of a and b in code points.
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
		}
	}
	return d[len(ra)][len(rb)]
}

func TestProperty02Enumerations(t *testing.T) {
	property(t, 2, "enumerations accept exactly their listed values", func(t *rapid.T) {
		g := drawDescriptorDoc(t)
		m := enumMembers[rapid.IntRange(0, len(enumMembers)-1).Draw(t, "member")]
		type candidate struct {
			value any
			shown string // as a reason shows it
		}
		str := func(s string) candidate { return candidate{s, quoteJSON(s)} }
		c := rapid.OneOf(
			rapid.Map(rapid.SampledFrom(m.listed), str),
			rapid.Map(rapid.SampledFrom(m.nearMisses), str),
			rapid.Map(richString(0, 30), str),
			rapid.Map(rapid.StringMatching(`[a-zA-Z_ ]{1,10}`), str),
			rapid.SampledFrom([]candidate{{json.Number("1"), "1"}, {nil, "null"}, {true, "true"}, {[]any{m.listed[0]}, "an array"}, {map[string]any{}, "an object"}}),
		).Draw(t, "candidate")

		doc := clone(g.doc).(map[string]any)
		auth := doc["auth"].(map[string]any)
		s, isString := c.value.(string)
		listed := isString && slices.Contains(m.listed, s)
		switch {
		case m.path[0] == "access" && s == "restricted" && auth["type"] == "none":
			doc["auth"] = drawAuth(t, "api_key")
		case m.path[0] == "auth" && listed:
			// Another auth type needs its own members.
			doc["auth"] = drawAuth(t, s)
			if s == "none" && doc["access"] == "restricted" {
				doc["access"] = "public"
			}
		}
		set(doc, m.path, c.value)
		data := drawBytes(t, doc)

		d, vs := skillcat.ParseDescriptor("gen.json", data)
		if listed {
			if d == nil || len(vs) > 0 {
				t.Fatalf("%s %s: got violations\n%v\nwant none; document:\n%s", fieldOf(m.path...), c.shown, vs, short(data))
			}
			return
		}
		if d != nil {
			t.Fatalf("%s %s: got a descriptor, want an error", fieldOf(m.path...), c.shown)
		}
		want := enumReason(m.listed, c.shown)
		if isString {
			want += enumSuggestion(m.listed, s)
		}
		onlyViolation(t, vs, pointerOf(m.path...), fieldOf(m.path...), want, data)
	})
}

func TestProperty03RoundTrip(t *testing.T) {
	property(t, 3, "round trip parse(serialize(d)) equals d, unknown members included", func(t *rapid.T) {
		g := drawDescriptorDoc(t)
		src := drawBytes(t, g.doc)
		d := mustParseDescriptor(t, src)

		enc := mustEncode(t, d.Encode)
		if !sameJSON(t, src, enc) {
			t.Fatalf("Encode is not value-equal to its source\nsource:\n%s\nencoded:\n%s", short(src), short(enc))
		}
		if !utf8.Valid(enc) || !bytes.HasSuffix(enc, []byte("}\n")) {
			t.Fatalf("Encode: got %q, want UTF-8 JSON ending in a newline", enc)
		}
		d2 := mustParseDescriptor(t, enc)
		if !reflect.DeepEqual(d, d2) {
			t.Fatalf("parse(Encode(d)) differs from d\ngot  %#v\nwant %#v", d2, d)
		}
		if enc2 := mustEncode(t, d2.Encode); !bytes.Equal(enc, enc2) {
			t.Fatalf("Encode is not idempotent\nfirst:\n%s\nsecond:\n%s", short(enc), short(enc2))
		}
		for name := range g.doc {
			if !slices.Contains(descriptorMemberNames, name) {
				if _, ok := d.Extra[name]; !ok {
					t.Fatalf("unknown member %q: got Extra %v, want it kept", name, sortedKeys(d.Extra))
				}
			}
		}

		// The same through encoding/json.
		b, err := json.Marshal(d)
		if err != nil {
			t.Fatalf("json.Marshal: %v", err)
		}
		var d3 skillcat.SkillDescriptor
		if err := json.Unmarshal(b, &d3); err != nil {
			t.Fatalf("json.Unmarshal: %v", err)
		}
		if !reflect.DeepEqual(d, &d3) {
			t.Fatalf("json.Unmarshal(json.Marshal(d)) differs from d\ngot  %#v\nwant %#v", &d3, d)
		}
	})
}

var descriptorMemberNames = []string{"$schema", "protocol", "id", "name", "version", "capability_type", "description", "provider", "endpoint", "inputs", "output", "auth", "access", "tags", "examples", "documentation_url"}

// mutation makes a conforming descriptor non-conforming in one member.
type mutation struct {
	path   []string
	value  any
	reason string
}

const (
	reasonID       = `must be 1–128 lowercase letters and digits in groups joined by ".", "_" or "-" (like "weather.forecast"); got `
	reasonSemVer   = `must be a SemVer 2.0.0 version such as "1.4.0" or "2.0.0-beta.1"; got `
	reasonURL      = "must be an absolute http or https URL; got "
	reasonTag      = `must be 1–32 lowercase letters, digits and "-", starting with a letter or digit; got `
	reasonProtocol = `must be MAJOR.MINOR.PATCH, three numbers without leading zeros, such as "1.0.0"; got `
)

// drawMutation draws one way to break a conforming descriptor, with the
// violation it must cause.
func drawMutation(t *rapid.T, doc map[string]any) mutation {
	switch rapid.IntRange(0, 12).Draw(t, "mutation") {
	case 0: // id not matching the pattern
		id := rapid.SampledFrom([]string{"Weather.Forecast", "a..b", "a/b", "-a", "a-", "a b", "ä", "../etc", "a.-b", "A"}).Draw(t, "id")
		return mutation{[]string{"id"}, id, reasonID + quoteJSON(id)}
	case 1: // id too long
		n := rapid.IntRange(129, 300).Draw(t, "id-length")
		return mutation{[]string{"id"}, strings.Repeat("a", n), fmt.Sprintf("must be at most 128 characters; got %d", n)}
	case 2: // name too long, counted in code points
		n := rapid.IntRange(121, 200).Draw(t, "name-length")
		unit := rapid.SampledFrom([]string{"a", "名", "😀", "e\u0301"}).Draw(t, "unit")
		name := string([]rune(strings.Repeat(unit, n))[:n])
		path := rapid.SampledFrom([][]string{{"name"}, {"provider", "name"}}).Draw(t, "which-name")
		return mutation{path, name, fmt.Sprintf("must be at most 120 characters; got %d", n)}
	case 3: // blank name of Unicode white space
		name := rapid.StringOfN(rapid.RuneFrom(unicodeSpaces), 1, 10, -1).Draw(t, "blank")
		path := rapid.SampledFrom([][]string{{"name"}, {"provider", "name"}}).Draw(t, "which-name")
		return mutation{path, name, "must not be blank; got " + quoteJSON(name)}
	case 4: // version not SemVer
		v := rapid.SampledFrom([]string{"1.0", "01.0.0", "1.02.0", "v1.2.3", "1.2.3-", "1.2.3+", "1.2.3-01", "1.2.3-a..b", "1.2", "", " 1.2.3", "1.2.3 ", "١.٢.٣"}).Draw(t, "semver")
		return mutation{[]string{"version"}, v, reasonSemVer + quoteJSON(v)}
	case 5: // a string member of another type
		path := rapid.SampledFrom([][]string{{"id"}, {"name"}, {"version"}, {"description"}, {"provider", "name"}, {"endpoint", "url"}, {"documentation_url"}}).Draw(t, "member")
		v, shown := drawNonString(t)
		return mutation{path, v, "must be a string; got " + shown}
	case 6: // an object member of another type
		path := rapid.SampledFrom([][]string{{"provider"}, {"endpoint"}, {"auth"}, {"protocol"}, {"inputs"}}).Draw(t, "member")
		v, shown := drawNonObject(t)
		return mutation{path, v, "must be an object; got " + shown}
	case 7: // not an http or https URL
		u := rapid.SampledFrom([]string{"ftp://example.com/x", "example.com", "https://", "javascript:alert(1)", "https://exa mple.com", "//example.com", "mailto:a@b.c", "HTTPS://EXAMPLE.COM", "file:///etc/passwd", "https://example.com/a b"}).Draw(t, "url")
		paths := [][]string{{"endpoint", "url"}, {"provider", "url"}, {"documentation_url"}}
		if doc["auth"].(map[string]any)["type"] == "oauth2" {
			paths = append(paths, []string{"auth", "token_url"}, []string{"auth", "authorization_url"})
		}
		return mutation{rapid.SampledFrom(paths).Draw(t, "member"), u, reasonURL + quoteJSON(u)}
	case 8: // description too long or empty
		if rapid.Bool().Draw(t, "empty") {
			return mutation{[]string{"description"}, "", "must not be empty"}
		}
		n := rapid.IntRange(20001, 20100).Draw(t, "description-length")
		return mutation{[]string{"description"}, string([]rune(strings.Repeat("é✓", n))[:n]), fmt.Sprintf("must be at most 20000 characters; got %d", n)}
	case 9: // a tag not matching the pattern
		tag := rapid.SampledFrom([]string{"Weather", "-x", "a_b", "", "ü", strings.Repeat("a", 33), "a b"}).Draw(t, "tag")
		return mutation{[]string{"tags"}, []any{"ok", tag}, ""} // checked by field below
	case 10: // method not listed
		m := rapid.SampledFrom([]string{"post", "Get", "HEAD", "OPTIONS", "FETCH", ""}).Draw(t, "method")
		return mutation{[]string{"endpoint", "method"}, m, enumReason(methods, quoteJSON(m)) + enumSuggestion(methods, m)}
	case 11: // inputs not of type object
		typ := rapid.SampledFrom([]string{"array", "string", "Object", "objects"}).Draw(t, "inputs-type")
		inputs := map[string]any{"type": typ}
		return mutation{[]string{"inputs"}, inputs, ""}
	default: // provider email
		e := rapid.SampledFrom([]string{"not-an-email", "a@b@c", "a b@c", "@example.com", "user@"}).Draw(t, "email")
		return mutation{[]string{"provider", "email"}, e, "must be an email address; got " + quoteJSON(e)}
	}
}

func drawNonString(t *rapid.T) (any, string) {
	n := genNumber().Draw(t, "number")
	c := rapid.SampledFrom([]struct {
		v     any
		shown string
	}{{n, "number " + string(n)}, {true, "boolean true"}, {false, "boolean false"}, {nil, "null"}, {[]any{"a"}, "an array"}, {map[string]any{"a": "b"}, "an object"}}).Draw(t, "non-string")
	return c.v, c.shown
}

func drawNonObject(t *rapid.T) (any, string) {
	s := richString(0, 20).Draw(t, "string")
	c := rapid.SampledFrom([]struct {
		v     any
		shown string
	}{{s, "string " + quoteJSON(s)}, {json.Number("42"), "number 42"}, {true, "boolean true"}, {nil, "null"}, {[]any{}, "an array"}}).Draw(t, "non-object")
	return c.v, c.shown
}

func TestProperty04SchemaValidation(t *testing.T) {
	property(t, 4, "schema validation: conforming documents parse to typed values, others yield errors naming field and reason", func(t *rapid.T) {
		g := drawDescriptorDoc(t)
		src := drawBytes(t, g.doc)
		d := mustParseDescriptor(t, src)
		for _, c := range []struct{ got, want any }{
			{d.ID, g.doc["id"]}, {d.Name, g.doc["name"]}, {d.Version, g.doc["version"]},
			{string(d.CapabilityType), g.doc["capability_type"]}, {d.Description, g.doc["description"]},
			{string(d.Access), g.doc["access"]}, {string(d.Auth.Type), g.doc["auth"].(map[string]any)["type"]},
			{d.Provider.Name, g.doc["provider"].(map[string]any)["name"]}, {d.Endpoint.URL, g.doc["endpoint"].(map[string]any)["url"]},
			{d.Protocol.Version, g.doc["protocol"].(map[string]any)["version"]},
		} {
			if c.got != c.want {
				t.Fatalf("typed value: got %q, want %q", c.got, c.want)
			}
		}
		if !reflect.DeepEqual(decode(t, d.Inputs), decode(t, marshal(t, g.doc["inputs"], ""))) {
			t.Fatalf("Inputs: got %s, want %s", d.Inputs, marshal(t, g.doc["inputs"], ""))
		}

		m := drawMutation(t, g.doc)
		doc := clone(g.doc).(map[string]any)
		set(doc, m.path, m.value)
		data := drawBytes(t, doc)
		d, vs := skillcat.ParseDescriptor("gen.json", data)
		if d != nil {
			t.Fatalf("%s = %#v: got a descriptor, want violations", fieldOf(m.path...), m.value)
		}
		switch {
		case m.path[0] == "tags":
			tag := m.value.([]any)[1].(string)
			reason := reasonTag + quoteJSON(tag)
			if tag == "" {
				reason = reasonTag + `""`
			}
			onlyViolation(t, vs, "/tags/1", "tags[1]", reason, data)
		case m.path[0] == "inputs" && m.reason == "":
			onlyViolation(t, vs, "/inputs/type", "inputs.type", `must be "object"; got `+quoteJSON(m.value.(map[string]any)["type"].(string)), data)
		default:
			onlyViolation(t, vs, pointerOf(m.path...), fieldOf(m.path...), m.reason, data)
		}
	})
}

func TestProperty05IDUniqueness(t *testing.T) {
	property(t, 5, "id uniqueness: an index never holds two skills with one id", func(t *rapid.T) {
		x := drawIndexDoc(t)
		skills := x["skills"].([]any)
		if _, vs := skillcat.ParseIndex("skills.json", drawBytes(t, x)); len(vs) > 0 {
			t.Fatalf("ParseIndex of unique ids: got\n%v\nwant no violations", vs)
		}
		if len(skills) < 2 {
			extra := drawIndexEntry(t, "zz-"+genID().Draw(t, "id"))
			if len(extra["id"].(string)) > 128 {
				extra["id"] = "zz-x"
			}
			skills = append(skills, extra)
			if len(skills) < 2 {
				skills = append(skills, drawIndexEntry(t, "zzz-y"))
			}
		}
		i := rapid.IntRange(0, len(skills)-2).Draw(t, "first")
		j := rapid.IntRange(i+1, len(skills)-1).Draw(t, "second")
		id := skills[i].(map[string]any)["id"].(string)
		skills[j].(map[string]any)["id"] = id
		x["skills"] = skills
		data := drawBytes(t, x)

		got, vs := skillcat.ParseIndex("skills.json", data)
		if got != nil {
			t.Fatalf("ParseIndex with id %q twice: got an index, want an error", id)
		}
		onlyViolation(t, vs, fmt.Sprintf("/skills/%d/id", j), fmt.Sprintf("skills[%d].id", j),
			fmt.Sprintf("id %s is listed twice (also at skills[%d])", shown(id), i), data)
	})
}

// summarize returns the first paragraph of a description as plain text of at
// most 200 code points, as SPEC 6 asks (closely enough for a valid index).
func summarize(description string) string {
	para, _, _ := strings.Cut(strings.TrimSpace(description), "\n\n")
	s := strings.Join(strings.Fields(para), " ")
	if r := []rune(s); len(r) > 200 {
		s = string(r[:199]) + "…"
	}
	return s
}

func TestProperty06IndexAndAccess(t *testing.T) {
	property(t, 6, "index and access: every non-private skill is listed, no private one, and every descriptor_url resolves to a valid descriptor whose digest matches", func(t *rapid.T) {
		docs := rapid.SliceOfNDistinct(genDescriptorDoc(), 1, 6, func(g descriptorDoc) string { return g.doc["id"].(string) }).Draw(t, "descriptors")

		// Build the site the way SPEC 1.3 and 6 say.
		site := map[string][]byte{} // path → bytes served
		var x skillcat.SkillIndex
		x.Protocol = skillcat.CurrentProtocol()
		access := map[string]skillcat.Access{}
		for _, g := range docs {
			d := mustParseDescriptor(t, drawBytes(t, g.doc))
			access[d.ID] = d.Access
			if d.Access == skillcat.Private {
				continue
			}
			b := mustEncode(t, d.Encode)
			site["/skills/"+d.ID+".json"] = b
			x.Skills = append(x.Skills, skillcat.IndexEntry{
				ID: d.ID, Name: d.Name, Version: d.Version, CapabilityType: d.CapabilityType, Access: d.Access,
				Summary: summarize(d.Description), DescriptorURL: "../skills/" + d.ID + ".json", Digest: sha256Digest(b),
			})
		}
		sort.Slice(x.Skills, func(i, j int) bool { return x.Skills[i].ID < x.Skills[j].ID })
		indexBytes := mustEncode(t, x.Encode)
		site[skillcat.WellKnownPath] = indexBytes

		// Read it as a consumer would.
		base, _ := url.Parse("https://skills.example.com" + skillcat.WellKnownPath)
		got, vs := skillcat.ParseIndex("skills.json", indexBytes)
		if got == nil || len(vs) > 0 {
			t.Fatalf("ParseIndex: got\n%v\nwant no violations; index:\n%s", vs, short(indexBytes))
		}
		var listed []string
		for i, e := range got.Skills {
			if i > 0 && got.Skills[i-1].ID >= e.ID {
				t.Fatalf("skills[%d].id %q follows %q: want ids in order", i, e.ID, got.Skills[i-1].ID)
			}
			ref, err := url.Parse(e.DescriptorURL)
			if err != nil {
				t.Fatalf("skills[%d].descriptor_url %q: %v", i, e.DescriptorURL, err)
			}
			u := base.ResolveReference(ref)
			b, ok := site[u.Path]
			if u.Host != base.Host || !ok {
				t.Fatalf("skills[%d].descriptor_url %q resolves to %s, which the site does not serve", i, e.DescriptorURL, u)
			}
			if digest := sha256Digest(b); e.Digest != digest {
				t.Fatalf("skills[%d].digest: got %s, want %s", i, e.Digest, digest)
			}
			d, vs := skillcat.ParseDescriptor(u.Path, b)
			if d == nil || len(vs) > 0 {
				t.Fatalf("descriptor at %s: got\n%v\nwant no violations", u, vs)
			}
			if d.ID != e.ID || d.Access != e.Access || d.CapabilityType != e.CapabilityType || d.Name != e.Name || d.Version != e.Version {
				t.Fatalf("descriptor at %s: got id %q access %q, want the entry's %q %q", u, d.ID, d.Access, e.ID, e.Access)
			}
			listed = append(listed, e.ID)
		}
		var want []string
		for id, a := range access {
			if a != skillcat.Private {
				want = append(want, id)
			}
		}
		sort.Strings(want)
		if !slices.Equal(listed, want) {
			t.Fatalf("listed ids: got %q, want every non-private one %q (access %v)", listed, want, access)
		}
	})
}

func TestProperty07CapabilityFilter(t *testing.T) {
	property(t, 7, "capability filter holds exactly the skills of that type", func(t *rapid.T) {
		var x skillcat.SkillIndex
		if rapid.Bool().Draw(t, "from-json") {
			got, vs := skillcat.ParseIndex("skills.json", drawBytes(t, drawIndexDoc(t)))
			if got == nil || len(vs) > 0 {
				t.Fatalf("ParseIndex: %v", vs)
			}
			x = *got
		} else {
			x = *drawIndexStruct(t)
		}
		total := 0
		for _, typ := range append(skillcat.CapabilityTypes, "API", "", "plugins") {
			got := x.Filter(typ)
			var want []skillcat.IndexEntry
			for _, e := range x.Skills {
				if e.CapabilityType == typ {
					want = append(want, e)
				}
			}
			if len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
				t.Fatalf("Filter(%q): got %d entries %v, want %d %v", typ, len(got), ids(got), len(want), ids(want))
			}
			total += len(got)
			// The filtered list is itself a valid SkillIndex (/types/<type>.json).
			sub := skillcat.SkillIndex{Protocol: x.Protocol, Skills: got}
			b := mustEncode(t, sub.Encode)
			back, vs := skillcat.ParseIndex("types.json", b)
			if back == nil || len(vs) > 0 {
				t.Fatalf("filtered index for %q: got\n%v\nwant no violations", typ, vs)
			}
			if !slices.Equal(ids(back.Skills), ids(got)) {
				t.Fatalf("filtered index for %q: got ids %q, want %q", typ, ids(back.Skills), ids(got))
			}
		}
		if total != len(x.Skills) {
			t.Fatalf("filters over every type hold %d entries, want all %d", total, len(x.Skills))
		}
	})
}

func ids(es []skillcat.IndexEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func TestProperty08InvocationMessages(t *testing.T) {
	property(t, 8, "invocation messages lacking a required member are rejected, valid ones accepted", func(t *rapid.T) {
		if rapid.Bool().Draw(t, "request") {
			r := drawRequestDoc(t)
			data := drawBytes(t, r)
			got, vs := skillcat.ParseRequest("request.json", data)
			if got == nil || len(vs) > 0 {
				t.Fatalf("ParseRequest: got\n%v\nwant no violations; request:\n%s", vs, short(data))
			}
			if got.SkillID != r["skill_id"] || string(got.Caller.Type) != r["caller"].(map[string]any)["type"] || !sameJSON(t, got.Inputs, marshal(t, r["inputs"], "")) {
				t.Fatalf("ParseRequest: got %+v, want the values of\n%s", got, short(data))
			}
			path := rapid.SampledFrom([][]string{{"caller"}, {"skill_id"}, {"inputs"}, {"caller", "id"}, {"caller", "type"}}).Draw(t, "removed")
			remove(r, path)
			data = drawBytes(t, r)
			if got, vs := skillcat.ParseRequest("request.json", data); got != nil {
				t.Fatalf("ParseRequest without %s: got a request, want an error", fieldOf(path...))
			} else {
				onlyViolation(t, vs, pointerOf(path...), fieldOf(path...), "required member is missing", data)
			}
			return
		}

		status := rapid.SampledFrom(statuses).Draw(t, "status")
		r := drawResponseDoc(t, status)
		data := drawBytes(t, r)
		got, vs := skillcat.ParseResponse("response.json", data)
		if got == nil || len(vs) > 0 {
			t.Fatalf("ParseResponse: got\n%v\nwant no violations; response:\n%s", vs, short(data))
		}
		if string(got.Status) != status || got.ExecutionID != r["execution_id"] || got.Timestamps.CreatedAt != r["timestamps"].(map[string]any)["created_at"] {
			t.Fatalf("ParseResponse: got %+v, want the values of\n%s", got, short(data))
		}

		if rapid.IntRange(0, 3).Draw(t, "out-of-order") == 0 {
			checkOutOfOrder(t, r)
			return
		}
		type missing struct {
			path   []string
			reason string
		}
		cases := []missing{
			{[]string{"execution_id"}, "required member is missing"}, {[]string{"status"}, "required member is missing"},
			{[]string{"skill_id"}, "required member is missing"}, {[]string{"timestamps"}, "required member is missing"},
			{[]string{"timestamps", "created_at"}, "required member is missing"},
		}
		if terminal(status) {
			cases = append(cases, missing{[]string{"timestamps", "completed_at"}, fmt.Sprintf("required when status is %q", status)})
		}
		switch status {
		case "succeeded":
			cases = append(cases, missing{[]string{"output"}, `required when status is "succeeded"`})
		case "failed":
			cases = append(cases, missing{[]string{"error"}, `required when status is "failed"`},
				missing{[]string{"error", "code"}, "required member is missing"}, missing{[]string{"error", "message"}, "required member is missing"})
		}
		c := rapid.SampledFrom(cases).Draw(t, "removed")
		remove(r, c.path)
		data = drawBytes(t, r)
		if got, vs := skillcat.ParseResponse("response.json", data); got != nil {
			t.Fatalf("ParseResponse without %s: got a response, want an error", fieldOf(c.path...))
		} else {
			onlyViolation(t, vs, pointerOf(c.path...), fieldOf(c.path...), c.reason, data)
		}
	})
}

// checkOutOfOrder moves started_at before created_at, or completed_at before
// the timestamp before it, and expects exactly that to be reported.
func checkOutOfOrder(t *rapid.T, r map[string]any) {
	ts := r["timestamps"].(map[string]any)
	back := time.Duration(rapid.Int64Range(int64(time.Millisecond), int64(24*time.Hour)).Draw(t, "back")).Truncate(time.Millisecond)
	parse := func(name string) time.Time {
		tm, err := time.Parse(time.RFC3339Nano, ts[name].(string))
		if err != nil {
			t.Fatalf("timestamps.%s: %v", name, err)
		}
		return tm
	}
	_, hasStarted := ts["started_at"]
	_, hasCompleted := ts["completed_at"]
	var member, prevName string
	switch {
	case hasStarted && (!hasCompleted || rapid.Bool().Draw(t, "started")):
		member, prevName = "started_at", "created_at"
		started := parse("created_at").Add(-back)
		ts["started_at"] = drawTimestamp(t, started)
		if hasCompleted {
			ts["completed_at"] = drawTimestamp(t, started) // equal to started_at: in order
		}
	case hasCompleted:
		member, prevName = "completed_at", "created_at"
		if hasStarted {
			prevName = "started_at"
		}
		ts["completed_at"] = drawTimestamp(t, parse(prevName).Add(-back))
	default:
		return // only created_at: nothing to put out of order
	}
	data := drawBytes(t, r)
	want := fmt.Sprintf("must not be earlier than timestamps.%s (%s); got %s", prevName, shown(ts[prevName].(string)), shown(ts[member].(string)))
	got, vs := skillcat.ParseResponse("response.json", data)
	if got != nil {
		t.Fatalf("ParseResponse with %s before %s: got a response, want an error; response:\n%s", member, prevName, short(data))
	}
	onlyViolation(t, vs, "/timestamps/"+member, "timestamps."+member, want, data)
}

// versionPattern is SPEC 1.1's pattern, compiled by Go's regexp.
var versionPattern = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`)

// genVersionString draws strings near and far from protocol versions.
func genVersionString() *rapid.Generator[string] {
	alphabet := rapid.RuneFrom([]rune("0000111223456789......--++vVaAeE_ \t\n٣１x"))
	valid := rapid.StringMatching(`(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})`)
	return rapid.OneOf(
		rapid.StringOfN(alphabet, 0, 14, -1),
		rapid.StringOfN(rapid.RuneFrom([]rune("0123456789.")), 0, 14, -1),
		valid,
		rapid.Custom(func(t *rapid.T) string { // a valid one with one rune inserted
			s := []rune(valid.Draw(t, "valid"))
			i := rapid.IntRange(0, len(s)).Draw(t, "at")
			r := alphabet.Draw(t, "insert")
			return string(s[:i]) + string(r) + string(s[i:])
		}),
		rapid.SampledFrom([]string{"1.0.0", "0.0.0", "1.0", "1.0.0.0", "01.0.0", "1.00.0", "1.0.00", "v1.0.0", "1.0.0-rc.1", "1.0.0+build",
			" 1.0.0", "1.0.0 ", "1.0.0\n", "1..0", "", "1.0.0-", "١.٠.٠", "2.0.0", "18446744073709551615.0.0", "18446744073709551616.0.0",
			"1.18446744073709551616.0", "123456789012345678901234567890.0.0", "1.123456789012345678901234567890.123456789012345678901234567890", "-1.0.0", "+1.0.0"}),
	)
}

// minimalDescriptor is a valid descriptor with protocol version v.
func minimalDescriptor(v string) []byte {
	return []byte(`{"protocol": {"version": ` + quoteJSON(v) + `}, "id": "a", "name": "A", "version": "1.0.0", "capability_type": "api", "description": "d",
"provider": {"name": "P"}, "endpoint": {"url": "https://example.com"}, "inputs": {"type": "object"}, "output": true, "auth": {"type": "none"}, "access": "public"}`)
}

func TestProperty09ProtocolVersion(t *testing.T) {
	property(t, 9, "protocol version: exactly the strings matching MAJOR.MINOR.PATCH are accepted", func(t *rapid.T) {
		s := genVersionString().Draw(t, "version")
		match := versionPattern.MatchString(s)
		v, err := skillcat.ParseVersion(s)
		if (err == nil) != match {
			t.Fatalf("ParseVersion(%q): got error %v, want an error: %v", s, err, !match)
		}
		if err != nil && !errors.Is(err, skillcat.ErrInvalidVersion) {
			t.Fatalf("ParseVersion(%q): got error %v, want one matching ErrInvalidVersion", s, err)
		}
		major := new(big.Int)
		if match {
			parts := strings.Split(s, ".")
			major.SetString(parts[0], 10)
			if v.String() != s {
				t.Fatalf("ParseVersion(%q).String(): got %q, want %q", s, v.String(), s)
			}
		}

		// The schema's protocol_version pattern agrees, through ParseDescriptor.
		data := minimalDescriptor(s)
		d, vs := skillcat.ParseDescriptor("v.json", data)
		switch {
		case match && major.Cmp(big.NewInt(skillcat.SupportedMajor)) <= 0:
			if d == nil || len(vs) > 0 {
				t.Fatalf("protocol.version %q: got\n%v\nwant no violations", s, vs)
			}
		case match:
			v := onlyViolation(t, vs, "/protocol/version", "protocol.version", "", data)
			if !errors.Is(v, skillcat.ErrIncompatibleVersion) {
				t.Fatalf("protocol.version %q: got %v, want an incompatible-version error", s, v)
			}
		default:
			onlyViolation(t, vs, "/protocol/version", "protocol.version", reasonProtocol+quoteJSON(s), data)
		}
	})
}

// fitsUint64 reports whether every decimal part fits in a uint64.
// breakDescriptor makes a generated descriptor invalid in one to three ways
// other than its protocol version.
func breakDescriptor(t *rapid.T, g descriptorDoc) []byte {
	doc := clone(g.doc).(map[string]any)
	for i, n := 0, rapid.IntRange(1, 3).Draw(t, "breaks"); i < n; i++ {
		switch rapid.IntRange(0, 6).Draw(t, "break") {
		case 0:
			paths := slices.DeleteFunc(requiredPaths(g.doc), func(p []string) bool { return p[0] == "protocol" })
			path := rapid.SampledFrom(paths).Draw(t, "removed")
			if parent, _ := at(doc, path); parent != nil {
				if _, ok := parent.(map[string]any); ok {
					remove(doc, path)
				}
			} else {
				doc["id"] = 42 // an earlier break removed its parent
			}
		case 1:
			doc["id"] = "Not An Id"
		case 2:
			doc["capability_type"] = "API"
		case 3:
			doc["inputs"] = map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "strin"}}, "$ref": "https://example.com/schema.json"}
		case 4:
			doc["examples"] = []any{map[string]any{"inputs": "not an object"}}
		case 5:
			doc["access"] = "restricted"
			doc["auth"] = map[string]any{"type": "none"}
		default:
			doc["tags"] = []any{"Not A Tag"}
		}
	}
	data := drawBytes(t, doc)
	if rapid.Bool().Draw(t, "duplicate?") {
		data = append([]byte(`{"name": 1, "name": 2, `), bytes.TrimLeft(data, " \t\r\n{")...)
	}
	return data
}

func TestProperty10IncompatibleVersions(t *testing.T) {
	property(t, 10, "incompatible versions: a major above the consumer's is an incompatible-version error, an equal or lower one is processed", func(t *rapid.T) {
		g := drawDescriptorDoc(t)
		broken := rapid.Bool().Draw(t, "broken")
		num := func(label string) string {
			return rapid.OneOf(rapid.Map(rapid.IntRange(0, 1000), strconv.Itoa), rapid.Map(rapid.Uint64(), func(u uint64) string { return strconv.FormatUint(u, 10) })).Draw(t, label)
		}
		var major string
		incompatible := rapid.Bool().Draw(t, "incompatible")
		if incompatible {
			major = rapid.OneOf(rapid.Map(rapid.IntRange(2, 1000), strconv.Itoa), rapid.Map(rapid.Uint64Min(2), func(u uint64) string { return strconv.FormatUint(u, 10) }),
				rapid.Just("123456789012345678901234567890"), rapid.Just("18446744073709551616")).Draw(t, "major")
		} else {
			major = rapid.SampledFrom([]string{"0", "1"}).Draw(t, "major")
		}
		version := major + "." + num("minor") + "." + num("patch")
		g.doc["protocol"].(map[string]any)["version"] = version
		data := drawBytes(t, g.doc)
		if broken {
			data = breakDescriptor(t, g)
		}

		d, vs := skillcat.ParseDescriptor("gen.json", data)
		if !incompatible {
			for _, v := range vs {
				if errors.Is(v, skillcat.ErrIncompatibleVersion) {
					t.Fatalf("protocol.version %q: got %v, want it processed", version, v)
				}
			}
			if !broken && (d == nil || len(vs) > 0) {
				t.Fatalf("protocol.version %q: got\n%v\nwant no violations", version, vs)
			}
			if broken && len(vs) == 0 {
				t.Fatalf("protocol.version %q, broken document: got no error, want its violations; document:\n%s", version, short(data))
			}
			return
		}
		if d != nil {
			t.Fatalf("protocol.version %q: got a descriptor, want an error", version)
		}
		onlyViolation(t, vs, "/protocol/version", "protocol.version", "incompatible protocol version "+version+" (supported: 1.x)", data)
		if !errors.Is(vs.Err(), skillcat.ErrIncompatibleVersion) {
			t.Fatalf("errors.Is(vs.Err(), ErrIncompatibleVersion): got false for %v", vs.Err())
		}

		// The other documents follow the same rule.
		p := map[string]any{"version": version}
		req := drawRequestDoc(t)
		req["protocol"] = p
		if r, vs := skillcat.ParseRequest("request.json", drawBytes(t, req)); r != nil || !errors.Is(vs.Err(), skillcat.ErrIncompatibleVersion) || len(vs) != 1 {
			t.Fatalf("ParseRequest with protocol %q: got %v, want only an incompatible-version error", version, vs)
		}
		x := drawIndexDoc(t)
		x["protocol"] = p
		if r, vs := skillcat.ParseIndex("skills.json", drawBytes(t, x)); r != nil || !errors.Is(vs.Err(), skillcat.ErrIncompatibleVersion) || len(vs) != 1 {
			t.Fatalf("ParseIndex with protocol %q: got %v, want only an incompatible-version error", version, vs)
		}
	})
}

func TestProperty11GoTypesAndSchemaAgree(t *testing.T) {
	property(t, 11, "Go types and JSON Schema agree", func(t *rapid.T) {
		switch rapid.IntRange(0, 7).Draw(t, "case") {
		// Every value built from the Go types validates against the schema.
		case 0:
			d := drawDescriptorStruct(t)
			b := mustEncode(t, d.Encode)
			got, vs := skillcat.ParseDescriptor("gen.json", b)
			if got == nil || len(vs) > 0 {
				t.Fatalf("ParseDescriptor(Encode(%#v)): got\n%v\nwant no violations; document:\n%s", d, vs, short(b))
			}
			if !reflect.DeepEqual(got, d) {
				t.Fatalf("ParseDescriptor(Encode(d)): got %#v, want %#v", got, d)
			}
		case 1:
			x := drawIndexStruct(t)
			b := mustEncode(t, x.Encode)
			got, vs := skillcat.ParseIndex("skills.json", b)
			if got == nil || len(vs) > 0 {
				t.Fatalf("ParseIndex(Encode(%#v)): got\n%v\nwant no violations; document:\n%s", x, vs, short(b))
			}
			if b2 := mustEncode(t, got.Encode); !bytes.Equal(b, b2) {
				t.Fatalf("Encode(ParseIndex(Encode(x))):\n%s\nwant\n%s", short(b2), short(b))
			}
		case 2:
			r := drawRequestStruct(t)
			b := mustEncode(t, r.Encode)
			got, vs := skillcat.ParseRequest("request.json", b)
			if got == nil || len(vs) > 0 {
				t.Fatalf("ParseRequest(Encode(%#v)): got\n%v\nwant no violations; document:\n%s", r, vs, short(b))
			}
			if !reflect.DeepEqual(got, r) {
				t.Fatalf("ParseRequest(Encode(r)): got %#v, want %#v", got, r)
			}
		case 3:
			r := drawResponseStruct(t)
			b := mustEncode(t, r.Encode)
			got, vs := skillcat.ParseResponse("response.json", b)
			if got == nil || len(vs) > 0 {
				t.Fatalf("ParseResponse(Encode(%#v)): got\n%v\nwant no violations; document:\n%s", r, vs, short(b))
			}
			if !reflect.DeepEqual(got, r) {
				t.Fatalf("ParseResponse(Encode(r)): got %#v, want %#v", got, r)
			}

		// Every schema-valid document decodes into the Go types and
		// re-encodes to an equal document.
		case 4:
			data := drawBytes(t, drawDescriptorDoc(t).doc)
			mustParseDescriptor(t, data)
			agree(t, data, &skillcat.SkillDescriptor{})
		case 5:
			data := drawBytes(t, drawIndexDoc(t))
			if _, vs := skillcat.ParseIndex("skills.json", data); len(vs) > 0 {
				t.Fatalf("ParseIndex: got\n%v\nwant no violations; document:\n%s", vs, short(data))
			}
			agree(t, data, &skillcat.SkillIndex{})
		case 6:
			data := drawBytes(t, drawRequestDoc(t))
			if _, vs := skillcat.ParseRequest("request.json", data); len(vs) > 0 {
				t.Fatalf("ParseRequest: got\n%v\nwant no violations; document:\n%s", vs, short(data))
			}
			agree(t, data, &skillcat.InvocationRequest{})
		default:
			data := drawBytes(t, drawResponseDoc(t, rapid.SampledFrom(statuses).Draw(t, "status")))
			if _, vs := skillcat.ParseResponse("response.json", data); len(vs) > 0 {
				t.Fatalf("ParseResponse: got\n%v\nwant no violations; document:\n%s", vs, short(data))
			}
			agree(t, data, &skillcat.InvocationResponse{})
		}
	})
}

// encoder is a protocol type with Encode.
type encoder interface{ Encode() ([]byte, error) }

// agree decodes a schema-valid document into v with json.Unmarshal and
// checks that json.Marshal and Encode both give back an equal document.
func agree(t *rapid.T, data []byte, v encoder) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("json.Unmarshal into %T: %v; document:\n%s", v, err, short(data))
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("json.Marshal(%T): %v", v, err)
	}
	if !sameJSON(t, data, b) {
		t.Fatalf("json.Marshal(json.Unmarshal(doc)) differs from doc\ndoc:\n%s\ngot:\n%s", short(data), short(b))
	}
	enc := mustEncode(t, v.Encode)
	if !sameJSON(t, data, enc) {
		t.Fatalf("Encode(json.Unmarshal(doc)) differs from doc\ndoc:\n%s\ngot:\n%s", short(data), short(enc))
	}
}
