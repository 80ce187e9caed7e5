package skillcat

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestAppendIndentedIsJSONIndent holds appendIndented to json.Indent on
// compact JSON as appendValue writes it: nested and empty objects and
// arrays, and strings holding every character that could pass for
// structure.
func TestAppendIndentedIsJSONIndent(t *testing.T) {
	var value func(t *rapid.T, depth int) any
	value = func(t *rapid.T, depth int) any {
		n := 5
		if depth > 0 {
			n = 7
		}
		switch rapid.IntRange(0, n-1).Draw(t, "kind") {
		case 0:
			return nil
		case 1:
			return rapid.Bool().Draw(t, "bool")
		case 2:
			return json.Number(rapid.SampledFrom([]string{"0", "-1.5e-7", "123456789012345678901234567890"}).Draw(t, "number"))
		case 3, 4:
			return rapid.StringOfN(rapid.SampledFrom([]rune("ab{}[],:\"\\ \n\té\u2028")), 0, 12, -1).Draw(t, "string")
		case 5:
			a := make([]any, rapid.IntRange(0, 3).Draw(t, "len"))
			for i := range a {
				a[i] = value(t, depth-1)
			}
			return a
		}
		m := map[string]any{}
		for i := rapid.IntRange(0, 3).Draw(t, "len"); i > 0; i-- {
			m[rapid.StringOfN(rapid.SampledFrom([]rune("k{}:,\"\\")), 0, 4, -1).Draw(t, "name")] = value(t, depth-1)
		}
		return m
	}
	rapid.Check(t, func(t *rapid.T) {
		data, err := json.Marshal(value(t, 4))
		if err != nil {
			t.Fatal(err)
		}
		n, err := ParseJSON(data)
		if err != nil {
			t.Fatal(err)
		}
		compact := n.AppendJSON(nil)
		var want bytes.Buffer
		if err := json.Indent(&want, compact, "", "  "); err != nil {
			t.Fatal(err)
		}
		if got := appendIndented([]byte("x"), compact); !bytes.Equal(got, append([]byte("x"), want.Bytes()...)) {
			t.Fatalf("compact %s:\ngot  %s\nwant %s", compact, got[1:], want.Bytes())
		}
	})
}

// TestEncodePlainIsEncode holds the index written without reflection
// (encodePlain) to the reflective encoder's bytes: empty members omitted
// but the summary, no skills, an empty protocol version, and strings of
// every character that needs escaping.
func TestEncodePlainIsEncode(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		str := func(label string) string {
			return rapid.OneOf(rapid.Just(""), rapid.String(),
				rapid.StringOfN(rapid.SampledFrom([]rune("a\"\\\n\t\x00\x1f<>&é\u2028\u2029\ufffd")), 0, 8, -1)).Draw(t, label)
		}
		x := SkillIndex{Protocol: ProtocolVersion{Version: str("version")}}
		if n := rapid.IntRange(-1, 4).Draw(t, "skills"); n >= 0 {
			x.Skills = make([]IndexEntry, n)
		}
		for i := range x.Skills {
			x.Skills[i] = IndexEntry{ID: str("id"), Name: str("name"), Version: str("version"),
				CapabilityType: CapabilityType(str("type")), Access: Access(str("access")), Summary: str("summary"),
				DescriptorURL: str("url"), Digest: str("digest")}
		}
		c := x
		if c.Skills == nil {
			c.Skills = []IndexEntry{}
		}
		checkPlain(t, &x, &c)
	})
}

// checkPlain fails t unless x is plain and its encodePlain is encode's
// answer for like (x itself, or x with a nil Skills made empty).
func checkPlain(t rapid.TB, x, like *SkillIndex) {
	t.Helper()
	want, err := encode(like)
	if err != nil {
		t.Fatal(err)
	}
	if !x.plain() {
		t.Fatal("an index without unknown members is not plain")
	}
	if got := x.encodePlain(); !bytes.Equal(got, want) {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// TestEncodePlainHasEveryField fills every field of the index and its
// entries by reflection, so that a member added to SkillIndex, IndexEntry
// or ProtocolVersion and not to encodePlain fails here instead of being
// dropped from every index a build writes.
func TestEncodePlainHasEveryField(t *testing.T) {
	var fill func(v reflect.Value, seed string)
	fill = func(v reflect.Value, seed string) {
		switch v.Kind() {
		case reflect.String:
			v.SetString(seed + "-" + v.Type().Name())
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				if f := v.Type().Field(i); f.IsExported() && f.Type != reflect.TypeOf(Extra(nil)) {
					fill(v.Field(i), seed+f.Name)
				}
			}
		case reflect.Slice:
			v.Set(reflect.MakeSlice(v.Type(), 2, 2))
			for i := 0; i < v.Len(); i++ {
				fill(v.Index(i), seed+strconv.Itoa(i))
			}
		case reflect.Bool:
			v.SetBool(true)
		case reflect.Int, reflect.Int64:
			v.SetInt(7)
		}
	}
	var x SkillIndex
	fill(reflect.ValueOf(&x).Elem(), "v")
	checkPlain(t, &x, &x)
}

// checkCompactJSON fails when isCompactJSON takes raw and json.Compact
// refuses it or changes it.
func checkCompactJSON(t testing.TB, raw []byte) bool {
	if !isCompactJSON(raw) {
		return false
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatalf("isCompactJSON takes %q, which json.Compact refuses: %v", raw, err)
	}
	if !bytes.Equal(b.Bytes(), raw) {
		t.Fatalf("isCompactJSON takes %q, which json.Compact makes %q", raw, b.Bytes())
	}
	return true
}

// TestIsCompactJSON holds isCompactJSON to json.Compact on values it must
// take (what AppendJSON writes), and on near misses it must leave to it.
func TestIsCompactJSON(t *testing.T) {
	for _, s := range []string{`{}`, `[]`, `""`, `0`, `-0.5e+10`, `1E3`, `true`, `false`, `null`, `"\u00e9\n\"\\\/\b\f\r\t"`,
		`{"a":[1,{"b":null}],"c":"x y"}`, "\"\xff\xfe\"", `[[[]]]`, `{"":""}`} {
		if !checkCompactJSON(t, []byte(s)) {
			t.Errorf("isCompactJSON declines %q", s)
		}
	}
	for _, s := range []string{``, ` 1`, `1 `, `{ }`, `[1, 2]`, `{"a": 1}`, `01`, `1.`, `.5`, `1e`, `-`, `+1`, `tru`, `nul`, `"a`, `"\x"`,
		`"\u12"`, `"\u12g4"`, "\"a\tb\"", `[1,]`, `{"a":1,}`, `{"a"}`, `{1:2}`, `[1]]`, `{}{}`, `NaN`, strings.Repeat("[", 600) + strings.Repeat("]", 600)} {
		if checkCompactJSON(t, []byte(s)) {
			t.Errorf("isCompactJSON takes %q", s)
		}
	}
	files, _ := filepath.Glob("testdata/descriptor/*/*.json")
	if len(files) == 0 {
		t.Fatal("no descriptors in testdata/descriptor")
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		root, err := ParseJSON(data)
		if err != nil || root.Kind != Object {
			continue // an invalid one
		}
		for _, m := range root.Members {
			if raw := m.Value.AppendJSON(nil); !checkCompactJSON(t, raw) {
				t.Errorf("isCompactJSON declines what AppendJSON wrote: %q", raw)
			}
		}
	}
}

// FuzzIsCompactJSON holds isCompactJSON to json.Compact on any input.
func FuzzIsCompactJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":null}],"c":"x y"}`, `[1, 2]`, `"\u00e9"`, `-0.5e+10`, `01`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkCompactJSON(t, raw) })
}

// TestIndentJSONIsJSONIndent holds IndentJSON to json.Indent: compact
// values (indented by appendIndented), and others (by json.Indent itself),
// invalid ones included, after what dst already holds.
func TestIndentJSONIsJSONIndent(t *testing.T) {
	for _, s := range []string{`{}`, `[]`, `{"a":[1,{"b":null,"c":[]}],"d":"x, y: {z}"}`, `[{"a":{}},[[]]]`, `"s"`, `1`,
		`{"a": 1}`, ` [1, 2] `, `{"a":}`, `[1,]`, ``, `nul`} {
		var got, want bytes.Buffer
		got.WriteString("> ")
		want.WriteString("> ")
		gotErr := IndentJSON(&got, []byte(s))
		wantErr := json.Indent(&want, []byte(s), "", "  ")
		if (gotErr == nil) != (wantErr == nil) || gotErr == nil && got.String() != want.String() {
			t.Errorf("IndentJSON(%q) = %q, %v; json.Indent gives %q, %v", s, got.String(), gotErr, want.String(), wantErr)
		}
	}
}
