package skillcat_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/skillcat/skillcat"
)

// addCorpus seeds f with every file under testdata/descriptor, good, bad
// and warn alike.
func addCorpus(f *testing.F) {
	f.Helper()
	err := filepath.WalkDir(corpusDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f.Add(data)
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
}

// FuzzParseDescriptor checks that ParseDescriptor never panics, that every
// violation has a position inside the file, a field and a reason, and that a
// descriptor it returns survives Encode → ParseDescriptor unchanged.
func FuzzParseDescriptor(f *testing.F) {
	addCorpus(f)
	f.Add(build(baseDescriptor))
	f.Add([]byte("\xef\xbb\xbf{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, vs := skillcat.ParseDescriptor("fuzz.json", data)
		checkPositions(t, data, vs)
		if vs.HasErrors() != (d == nil) {
			t.Fatalf("got descriptor %v with errors %v, want a descriptor exactly when there is no error", d != nil, vs.HasErrors())
		}
		if d == nil {
			return
		}
		enc, err := d.Encode()
		if err != nil {
			t.Fatalf("Encode: %v", err)
		}
		d2, vs2 := skillcat.ParseDescriptor("fuzz.json", enc)
		if d2 == nil {
			t.Fatalf("ParseDescriptor(Encode(d)): got\n%v\nwant a descriptor; encoded:\n%s", vs2, short(enc))
		}
		if !reflect.DeepEqual(d, d2) {
			t.Fatalf("ParseDescriptor(Encode(d)) differs from d\ngot  %#v\nwant %#v", d2, d)
		}
		if enc2, err := d2.Encode(); err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("Encode is not idempotent (%v)\nfirst:\n%s\nsecond:\n%s", err, short(enc), short(enc2))
		}
		if !sameJSON(t, bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), enc) {
			t.Fatalf("Encode is not value-equal to the source\nsource:\n%s\nencoded:\n%s", short(data), short(enc))
		}
	})
}

// checkPositions fails unless every violation names the file, a line and
// column inside it, a field and a reason.
func checkPositions(t *testing.T, data []byte, vs skillcat.Violations) {
	t.Helper()
	lines := strings.Split(string(data), "\n")
	for _, v := range vs {
		if v.File != "fuzz.json" || v.Field == "" || v.Reason == "" || (v.Severity != skillcat.SeverityError && v.Severity != skillcat.SeverityWarning) {
			t.Fatalf("got violation %+v, want file fuzz.json, a field, a reason and a severity", v)
		}
		if v.Line < 1 || v.Column < 1 || v.Line > len(lines) {
			t.Fatalf("got position %d:%d, want a line from 1 to %d and a column of at least 1 (%s)", v.Line, v.Column, len(lines), v.Error())
		}
		if n := utf8.RuneCount([]byte(lines[v.Line-1])); v.Column > n+1 {
			t.Fatalf("got column %d on line %d of %d code points (%s)", v.Column, v.Line, n, v.Error())
		}
		if (v.Pointer == "") != (v.Field == skillcat.FileField) {
			t.Fatalf("got pointer %q with field %q, want the empty pointer exactly for (file)", v.Pointer, v.Field)
		}
	}
}

// FuzzParseJSON checks ParseJSON against encoding/json: they accept exactly
// the same documents, except where ParseJSON is stricter or more lenient by
// design, each exception checked independently here:
//
//   - it refuses nesting deeper than MaxDepth;
//   - it refuses a number beyond CheckNumber's bounds (MaxNumberLength,
//     MaxNumberExponent), at the number;
//   - it refuses invalid UTF-8 in strings, and lone surrogate escapes, which
//     encoding/json replaces with U+FFFD;
//   - it skips a leading UTF-8 byte order mark, which encoding/json refuses.
//
// What both accept, they read as the same value, and AppendJSON writes it
// back as JSON that reads the same again.
func FuzzParseJSON(f *testing.F) {
	addCorpus(f)
	for _, s := range []string{
		`{}`, `[]`, `null`, `0`, `-0`, `1e-7`, `123456789012345678901234567890`, `"\ud83d\ude00"`, `"\ud800"`, `"\udc00x"`,
		`{"a":1,"a":2}`, ` {"a" : [ true , false , null ] } `, `"\u0000\b\f\n\r\t\/\\\""`, "\"\xff\"", "\xef\xbb\xbf{}", "\xef\xbb\xbf",
		`1e1000`, `1e1001`, `-1E-0001001`, `[1e+999999999999]`, "1" + strings.Repeat("0", skillcat.MaxNumberLength),
		`01`, `1.`, `.5`, `-`, `1e`, `tru`, `{"a"}`, `[1,]`, `{,}`, `"a` + "\n" + `"`, "\"\u2028\"",
		`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"a":11,"k":12,"l":13,"m":14,"n":15,"o":16,"p":17,"b":{"x":1,"x":[2]}}`,
		strings.Repeat("[", skillcat.MaxDepth) + strings.Repeat("]", skillcat.MaxDepth),
		strings.Repeat("[", skillcat.MaxDepth+1) + strings.Repeat("]", skillcat.MaxDepth+1),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := skillcat.ParseJSON(data)
		// parseValues (what unmarshal reads) is the same parse without the
		// members' name nodes.
		if v, verr := skillcat.ParseValues(data); fmt.Sprint(verr) != fmt.Sprint(err) || err == nil && !sameValues(n, v) {
			t.Fatalf("parseValues(%q): got %v, %v; ParseJSON gives %v, %v", data, v, verr, n, err)
		}
		valid := json.Valid(data)
		if err != nil {
			var se *skillcat.SyntaxError
			if !errors.As(err, &se) || se.Offset < 0 || se.Offset > len(data) {
				t.Fatalf("ParseJSON(%q): got error %v, want a SyntaxError at an offset inside the data", data, err)
			}
			if !valid {
				return
			}
			switch {
			case strings.Contains(se.Msg, "nested more than") && depth(data) > skillcat.MaxDepth:
			case strings.Contains(se.Msg, "invalid UTF-8") && !utf8.Valid(data):
			case strings.Contains(se.Msg, "surrogate") && loneSurrogate(data):
			case se.Limit && skillcat.CheckNumber(numberAt(data, se.Offset)) != nil:
			default:
				t.Fatalf("ParseJSON(%q): got %v, want it accepted as encoding/json does", data, err)
			}
			return
		}
		body := data
		if !valid {
			body = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
			if len(body) == len(data) || !json.Valid(body) {
				t.Fatalf("ParseJSON(%q): got a value, want an error as encoding/json gives", data)
			}
		}
		if got, want := n.Value(), decode(t, body); !reflect.DeepEqual(got, want) {
			t.Fatalf("ParseJSON(%q).Value(): got %#v, want %#v", data, got, want)
		}
		out := n.AppendJSON(nil)
		n2, err := skillcat.ParseJSON(out)
		if err != nil || !json.Valid(out) {
			t.Fatalf("AppendJSON of %q wrote %q, which does not parse: %v", data, out, err)
		}
		if out2 := n2.AppendJSON(nil); !bytes.Equal(out, out2) {
			t.Fatalf("AppendJSON is not idempotent: %q then %q", out, out2)
		}
		if !reflect.DeepEqual(n2.Value(), n.Value()) {
			t.Fatalf("AppendJSON of %q wrote %q, which reads differently", data, out)
		}
	})
}

// sameValues reports whether two trees hold the same values at the same
// offsets, the members' name nodes aside.
func sameValues(a, b *skillcat.Node) bool {
	if a.Kind != b.Kind || a.Text != b.Text || a.Offset != b.Offset || len(a.Members) != len(b.Members) || len(a.Items) != len(b.Items) {
		return false
	}
	for i, m := range a.Members {
		if b.Members[i].Key != nil || m.Name != b.Members[i].Name || !sameValues(m.Value, b.Members[i].Value) {
			return false
		}
	}
	for i, it := range a.Items {
		if !sameValues(it, b.Items[i]) {
			return false
		}
	}
	return true
}

// depth returns how deeply arrays and objects nest in valid JSON.
func depth(data []byte) int {
	d, most, inString := 0, 0, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			d++
			most = max(most, d)
		case c == ']' || c == '}':
			d--
		}
	}
	return most
}

// loneSurrogate reports whether valid JSON holds a \u escape of a surrogate
// that is not half of a high–low pair.
func loneSurrogate(data []byte) bool {
	hex := func(i int) (rune, bool) {
		if i+6 > len(data) || data[i] != '\\' || data[i+1] != 'u' {
			return 0, false
		}
		var r rune
		for _, c := range data[i+2 : i+6] {
			switch {
			case c >= '0' && c <= '9':
				r = r<<4 | rune(c-'0')
			case c >= 'a' && c <= 'f':
				r = r<<4 | rune(c-'a'+10)
			case c >= 'A' && c <= 'F':
				r = r<<4 | rune(c-'A'+10)
			default:
				return 0, false
			}
		}
		return r, true
	}
	inString := false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			inString = !inString
		case inString && c == '\\':
			r, ok := hex(i)
			switch {
			case !ok:
				i++ // a one-character escape
			case r >= 0xD800 && r < 0xDC00:
				if r2, ok := hex(i + 6); ok && r2 >= 0xDC00 && r2 < 0xE000 {
					i += 11
					continue
				}
				return true
			case r >= 0xDC00 && r < 0xE000:
				return true
			default:
				i += 5
			}
		}
	}
	return false
}

// BenchmarkParseDescriptorLargeObject parses a descriptor with an x- member
// of 40,000 members; the time must grow linearly with the member count.
func BenchmarkParseDescriptorLargeObject(b *testing.B) {
	var big strings.Builder
	big.WriteString("{")
	for i := range 40000 {
		if i > 0 {
			big.WriteString(",")
		}
		big.WriteString(`"m` + strconv.Itoa(i) + `": 0`)
	}
	big.WriteString("}")
	src := build(baseDescriptor, with("x-big", big.String()))
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if d, vs := skillcat.ParseDescriptor("big.json", src); d == nil {
			b.Fatal(vs)
		}
	}
}

// numberAt returns the number literal starting at offset off of data.
func numberAt(data []byte, off int) string {
	end := off
	for end < len(data) && strings.IndexByte("+-0123456789.eE", data[end]) >= 0 {
		end++
	}
	return string(data[off:end])
}
