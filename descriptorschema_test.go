package skillcat_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/synth"
	"pgregory.net/rapid"
)

// descriptorSchemaDigest is the digest of the descriptor schema that
// descriptorValid (descriptorschema.go) was written from.
const descriptorSchemaDigest = "0fa9e32dc860f415f0f2f248d78bcf33bf3f2adecd7dc5daff591b2ac1ba3f63"

// TestDescriptorSchemaUnchanged fails when the descriptor schema changes:
// descriptorValid must then be changed with it (and this digest), and its
// two regular expressions are the schema's own.
func TestDescriptorSchemaUnchanged(t *testing.T) {
	data, err := os.ReadFile("schemas/skill-descriptor.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != descriptorSchemaDigest {
		t.Errorf("the descriptor schema changed (sha256 %x): change descriptorValid (descriptorschema.go) to match, then descriptorSchemaDigest", sum)
	}
	var doc struct {
		Defs map[string]struct {
			Pattern string `json:"pattern"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if got, want := skillcat.SemverPattern, doc.Defs["semver"].Pattern; got != want {
		t.Errorf("semver pattern: got %q, want the schema's %q", got, want)
	}
	if got, want := skillcat.EmailPattern, doc.Defs["email"].Pattern; got != want {
		t.Errorf("email pattern: got %q, want the schema's %q", got, want)
	}
}

// descriptorPaths are where a mutation lands: every member the schema
// constrains, and some inside them.
var descriptorPaths = [][]any{
	{"protocol"}, {"protocol", "version"}, {"id"}, {"name"}, {"version"}, {"capability_type"}, {"description"},
	{"provider"}, {"provider", "name"}, {"provider", "url"}, {"provider", "email"},
	{"endpoint"}, {"endpoint", "url"}, {"endpoint", "method"},
	{"inputs"}, {"inputs", "type"}, {"output"},
	{"auth"}, {"auth", "type"}, {"auth", "in"}, {"auth", "name"}, {"auth", "token_url"}, {"auth", "authorization_url"},
	{"auth", "scopes"}, {"auth", "scopes", "read"}, {"auth", "instructions"},
	{"access"}, {"tags"}, {"tags", 0}, {"tags", 1}, {"examples"}, {"examples", 0}, {"examples", 0, "title"},
	{"examples", 0, "inputs"}, {"examples", 0, "output"}, {"documentation_url"}, {"$schema"}, {"x-extra"},
}

// nearMisses are strings on both sides of the schema's patterns, enums and
// lengths.
var nearMisses = []string{
	"", " ", "\u00a0", "\u0085", "\u2028", "\t x", "a", "A", "0", "a-", "-a", "a..b", "a.b", "a_b-c.d", "a/b", "é",
	"1.0.0", "01.0.0", "1.0", "1.0.0.0", "1.0.0-rc.1", "1.0.0-01", "1.0.0+build.1", "1.0.0-", "1.0.0 ", "2.0.0", "0.0.0", "10.20.30",
	"http://", "https://", "http://a", "https://a.b/c?d#e", "https://a b", "https://a/ b", "ftp://a", "https://[::1]:8080/x", "HTTPS://a",
	"https://a\u00e9", "https://a/\u00e9", "https://a?", "https://é.com", "https://a|b",
	"a@b", "a@@b", "@b", "a@", "a b@c", "a@b\u00a0c", "a\u00a0@b",
	"plugin", "api", "knowledge", "task", "Api", "public", "restricted", "private", "none", "api_key", "oauth2", "custom",
	"header", "query", "object", "array", "GET", "POST", "get", "DELETE",
	strings.Repeat("a", 32), strings.Repeat("a", 33), strings.Repeat("é", 120), strings.Repeat("é", 121),
	strings.Repeat("a", 128), strings.Repeat("a", 129), strings.Repeat("t", 200), strings.Repeat("t", 201),
	strings.Repeat("é", 254), "https://a/" + strings.Repeat("p", 2038), "https://a/" + strings.Repeat("p", 2039),
	strings.Repeat("é", 20000), strings.Repeat("é", 20001), strings.Repeat("n", 256), strings.Repeat("n", 257),
}

// mutate changes the member at path of doc (if its parent is there): it
// removes it, or sets it to a near miss or to any value.
func mutate(t *rapid.T, doc map[string]any, path []any) {
	var parent any = doc
	for _, step := range path[:len(path)-1] {
		switch step := step.(type) {
		case string:
			p, ok := parent.(map[string]any)
			if !ok {
				return
			}
			parent = p[step]
		case int:
			p, ok := parent.([]any)
			if !ok || step >= len(p) {
				return
			}
			parent = p[step]
		}
	}
	var v any
	remove := false
	switch rapid.IntRange(0, 5).Draw(t, "mutation") {
	case 0:
		remove = true
	case 1, 2, 3:
		v = rapid.SampledFrom(nearMisses).Draw(t, "near-miss")
	case 4:
		v = rapid.SampledFrom([]any{true, false, nil, json.Number("1"), []any{}, map[string]any{}, []any{"a", "a"}, map[string]any{"type": "object"}}).Draw(t, "shape")
	default:
		v = drawValue(t, 2)
	}
	switch last := path[len(path)-1].(type) {
	case string:
		if p, ok := parent.(map[string]any); ok && remove {
			delete(p, last)
		} else if ok {
			p[last] = v
		}
	case int:
		if p, ok := parent.([]any); ok && last < len(p) && !remove {
			p[last] = v
		}
	}
}

// TestDescriptorValidAgrees holds descriptorValid to the library's check
// against the descriptor schema: the same verdict on generated valid
// descriptors, the same descriptors with members removed or replaced by
// near misses and values of every shape, and the synthetic catalogs'.
func TestDescriptorValidAgrees(t *testing.T) {
	check := func(t tb, data []byte) bool {
		t.Helper()
		root, err := skillcat.ParseJSON(data)
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		v := root.Value()
		fast, lib := skillcat.DescriptorValid(v), skillcat.DescriptorSchemaValid(v)
		if fast != lib {
			t.Fatalf("descriptorValid says %v, the library %v, of %s", fast, lib, data)
		}
		return lib
	}
	var valid, invalid atomic.Int64
	rapid.Check(t, func(rt *rapid.T) {
		doc := drawDescriptorDoc(rt).doc
		for i := rapid.IntRange(0, 3).Draw(rt, "mutations"); i > 0; i-- {
			mutate(rt, doc, rapid.SampledFrom(descriptorPaths).Draw(rt, "path"))
		}
		data, err := json.Marshal(doc)
		if err != nil {
			rt.Fatal(err)
		}
		if check(rt, data) {
			valid.Add(1)
		} else {
			invalid.Add(1)
		}
	})
	for i := 0; i < 200; i++ {
		if name, data := synth.Source(i, 3); strings.HasSuffix(name, ".json") && !check(t, data) {
			t.Errorf("synthetic source %s is invalid", name)
		}
	}
	files, _ := filepath.Glob("testdata/descriptor/*/*.json")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if root, err := skillcat.ParseJSON(data); err == nil {
			v := root.Value()
			if fast, lib := skillcat.DescriptorValid(v), skillcat.DescriptorSchemaValid(v); fast != lib {
				t.Errorf("%s: descriptorValid says %v, the library %v", f, fast, lib)
			}
		}
	}
	t.Logf("%d valid, %d invalid descriptors generated; %d corpus files", valid.Load(), invalid.Load(), len(files))
	if valid.Load() == 0 || invalid.Load() == 0 {
		t.Errorf("%d valid, %d invalid: the generator must draw both", valid.Load(), invalid.Load())
	}
}
