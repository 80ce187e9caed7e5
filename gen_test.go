package skillcat_test

// Generators for the property tests: protocol documents built as JSON values
// (map[string]any, []any, json.Number, string, bool, nil) so that a test can
// remove, replace or add any member before it writes the bytes, and Go
// values of the protocol types built valid by construction.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/skillcat/skillcat"
	"pgregory.net/rapid"
)

// ---------------------------------------------------------------------------
// Characters and strings

// Runes that stress a Unicode-aware implementation: combining marks, emoji
// (with variation selectors and zero-width joiners), CJK, right-to-left
// scripts, bidi controls and characters JSON must escape.
var (
	asciiRunes     = []rune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_.,:;!?'\"\\/<>&*#`[]{}()~")
	combiningRunes = []rune{'\u0300', '\u0301', '\u0308', '\u0327', '\u0338', '\u20dd', '\u302a'}
	emojiRunes     = []rune("😀🚀🌦\ufe0f\u200d👩💻🇩🇪🏳⚡🧪")
	bidiRunes      = []rune{'\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202e', '\u2066', '\u2069', '\u200b', '\u2060', '\ufeff'}
	escapeRunes    = []rune{'\u2028', '\u2029', '\u007f', '\u0085', '\ufffd', '\U0010fffd'}
	// unicodeSpaces is every White_Space code point: a string of only these
	// is blank.
	unicodeSpaces = []rune{'\t', '\n', '\v', '\f', '\r', ' ', '\u0085', '\u00a0', '\u1680', '\u2000', '\u2001', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006', '\u2007', '\u2008', '\u2009', '\u200a', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000'}
)

// richRune draws a rune from every interesting corner of Unicode, without
// control characters.
func richRune() *rapid.Generator[rune] {
	return rapid.OneOf(
		rapid.RuneFrom(asciiRunes),
		rapid.RuneFrom(asciiRunes),
		rapid.RuneFrom(combiningRunes),
		rapid.RuneFrom(emojiRunes),
		rapid.RuneFrom(nil, unicode.Han, unicode.Hiragana, unicode.Hangul),
		rapid.RuneFrom(nil, unicode.Arabic, unicode.Hebrew),
		rapid.RuneFrom(nil, unicode.Latin, unicode.Greek, unicode.Cyrillic, unicode.Devanagari),
		rapid.RuneFrom(bidiRunes),
		rapid.RuneFrom(escapeRunes),
		rapid.RuneFrom([]rune{' ', '\u00a0', '\u3000'}),
	)
}

// textRune is richRune plus the control characters of running text.
func textRune() *rapid.Generator[rune] {
	return rapid.OneOf(richRune(), richRune(), richRune(), rapid.RuneFrom([]rune{'\n', '\t', '\r', '\u0000', '\u001f', '\b', '\f'}))
}

// richString draws a string of min to max code points of richRune.
func richString(minRunes, maxRunes int) *rapid.Generator[string] {
	return rapid.StringOfN(richRune(), minRunes, maxRunes, -1)
}

// label draws a non-blank string of 1 to maxRunes code points, sometimes
// exactly maxRunes of multi-byte characters.
func label(maxRunes int) *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		if rapid.IntRange(0, 9).Draw(t, "long") == 9 {
			unit := rapid.SampledFrom([]string{"名", "😀", "é", "\u05d0", "e\u0301"}).Draw(t, "unit")
			s := strings.Repeat(unit, maxRunes)
			return string([]rune(s)[:maxRunes])
		}
		core := rapid.RuneFrom(nil, unicode.L, unicode.N, unicode.So, unicode.Mn).Draw(t, "core")
		rest := []rune(richString(0, min(maxRunes-1, 40)).Draw(t, "rest"))
		at := rapid.IntRange(0, len(rest)).Draw(t, "at")
		return string(rest[:at]) + string(core) + string(rest[at:])
	})
}

// ---------------------------------------------------------------------------
// Protocol strings

const idAlnum = "abcdefghijklmnopqrstuvwxyz0123456789"

// deviceNames are the first segments of an id the linter warns of.
var deviceNames = regexp.MustCompile(`^(con|prn|aux|nul|com[0-9]|lpt[0-9])$`)

// genID draws an id matching ^[a-z0-9]+([._-][a-z0-9]+)*$ of 1 to 128
// characters.
func genID() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		if rapid.IntRange(0, 19).Draw(t, "max") == 19 {
			return strings.Repeat(string(idAlnum[rapid.IntRange(0, len(idAlnum)-1).Draw(t, "c")]), 128)
		}
		groups := rapid.SliceOfN(rapid.StringOfN(rapid.RuneFrom([]rune(idAlnum)), 1, 12, -1), 1, 5).Draw(t, "groups")
		if deviceNames.MatchString(groups[0]) {
			groups[0] = "x" + groups[0] // the linter warns of a Windows device name (1 draw in 100,000)
		}
		var b strings.Builder
		for i, g := range groups {
			if i > 0 {
				b.WriteByte(".-_"[rapid.IntRange(0, 2).Draw(t, "sep")])
			}
			b.WriteString(g)
		}
		return b.String()
	})
}

// genSemVer draws a SemVer 2.0.0 version, with pre-release and build
// metadata now and then.
func genSemVer() *rapid.Generator[string] {
	num := rapid.OneOf(rapid.Just("0"), rapid.Map(rapid.Uint64Range(1, math.MaxUint32), func(u uint64) string { return strconv.FormatUint(u, 10) }))
	pre := rapid.OneOf(num, rapid.StringMatching(`[0-9]{0,2}[a-zA-Z-][0-9a-zA-Z-]{0,6}`))
	build := rapid.StringMatching(`[0-9a-zA-Z-]{1,8}`)
	return rapid.Custom(func(t *rapid.T) string {
		s := num.Draw(t, "major") + "." + num.Draw(t, "minor") + "." + num.Draw(t, "patch")
		if rapid.Bool().Draw(t, "has-pre") {
			ids := rapid.SliceOfN(pre, 1, 3).Draw(t, "pre")
			s += "-" + strings.Join(ids, ".")
		}
		if rapid.Bool().Draw(t, "has-build") {
			ids := rapid.SliceOfN(build, 1, 3).Draw(t, "build")
			s += "+" + strings.Join(ids, ".")
		}
		return s
	})
}

// genProtocolVersion draws a version this package processes: major 0 or 1,
// mostly 1.0.0.
func genProtocolVersion() *rapid.Generator[string] {
	return rapid.OneOf(
		rapid.Just(skillcat.CurrentVersion),
		rapid.Custom(func(t *rapid.T) string {
			return fmt.Sprintf("%d.%d.%d", rapid.IntRange(0, 1).Draw(t, "major"), rapid.IntRange(0, 1000).Draw(t, "minor"), rapid.IntRange(0, 1000).Draw(t, "patch"))
		}),
	)
}

// genHTTPURL draws an absolute http or https URL as the schemas accept it.
func genHTTPURL() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		scheme := rapid.SampledFrom([]string{"https", "http"}).Draw(t, "scheme")
		host := rapid.SampledFrom([]string{"example.com", "api.weather.example.com", "localhost:8080", "[::1]:8443", "xn--bcher-kva.example", "127.0.0.1", "user@sub-domain.example.org"}).Draw(t, "host")
		path := rapid.SampledFrom([]string{"", "/", "/v2/forecast", "/skills/%E2%9C%93?q=a&b=c", "/a/b#frag", "?x=1", "#top", "/~user/(x)!*'"}).Draw(t, "path")
		return scheme + "://" + host + path
	})
}

func genEmail() *rapid.Generator[string] {
	return rapid.SampledFrom([]string{"skills@weather.example.com", "a@b", "jürgen+skills@例え.jp", "o'brien@example.ie"})
}

func genTag() *rapid.Generator[string] {
	return rapid.StringMatching(`[a-z0-9][a-z0-9-]{0,31}`)
}

// ---------------------------------------------------------------------------
// Arbitrary JSON values

// numberLiterals are number texts that must survive a round trip exactly,
// without float rounding.
var numberLiterals = []json.Number{"0", "-0", "1", "-1", "0.5", "2.50", "1e-7", "1E+2", "-12.5e-3", "1.0",
	"123456789012345678901234567890", "-98765432109876543210987654321",
	"3.14159265358979323846264338327950288", "0.000001", "6.02214076e23", "1e400", "4.9e-324"}

func genNumber() *rapid.Generator[json.Number] {
	return rapid.OneOf(
		rapid.SampledFrom(numberLiterals),
		rapid.Map(rapid.Int64(), func(i int64) json.Number { return json.Number(strconv.FormatInt(i, 10)) }),
		rapid.Map(rapid.Float64().Filter(func(f float64) bool { return !math.IsInf(f, 0) && !math.IsNaN(f) }),
			func(f float64) json.Number { return json.Number(strconv.FormatFloat(f, 'g', -1, 64)) }),
	)
}

// drawValue draws any JSON value nested at most depth levels.
func drawValue(t *rapid.T, depth int) any {
	kinds := 6
	if depth <= 0 {
		kinds = 4
	}
	switch rapid.IntRange(0, kinds-1).Draw(t, "kind") {
	case 0:
		return nil
	case 1:
		return rapid.Bool().Draw(t, "bool")
	case 2:
		return genNumber().Draw(t, "number")
	case 3:
		return rapid.StringOfN(textRune(), 0, 24, -1).Draw(t, "string")
	case 4:
		n := rapid.IntRange(0, 3).Draw(t, "len")
		a := make([]any, n)
		for i := range a {
			a[i] = drawValue(t, depth-1)
		}
		return a
	default:
		n := rapid.IntRange(0, 3).Draw(t, "len")
		m := make(map[string]any, n)
		for i := 0; i < n; i++ {
			m[rapid.StringOfN(textRune(), 0, 10, -1).Draw(t, "name")] = drawValue(t, depth-1)
		}
		return m
	}
}

// unknownName draws the name of a member the protocol does not define: a
// private x- extension, of any characters. (A member a newer 1.x minor
// might add, such as "sunset_at", draws a warning from a 1.0 linter unless
// the document declares that minor; the corpus and TestDescriptorRules
// cover those.)
func unknownName() *rapid.Generator[string] {
	return rapid.OneOf(
		rapid.Map(rapid.StringOfN(textRune(), 0, 12, -1), func(s string) string { return "x-" + s }),
		rapid.SampledFrom([]string{"x-foo", "x-internal", "x-ünïcødé", "x-名前", "x-😀", "x-a/b~c", "x-<script>"}),
	)
}

// addUnknown adds zero to three unknown members to obj.
func addUnknown(t *rapid.T, obj map[string]any, label string) {
	n := rapid.IntRange(0, 3).Draw(t, label+"-unknown")
	for i := 0; i < n; i++ {
		name := unknownName().Draw(t, label+"-unknown-name")
		if _, taken := obj[name]; !taken {
			obj[name] = drawValue(t, 2)
		}
	}
}

// ---------------------------------------------------------------------------
// JSON Schemas with instances valid against them

// schemaCase is a JSON Schema together with a way to draw instances valid
// against it.
type schemaCase struct {
	schema any // map[string]any or bool
	valid  func(t *rapid.T) any
}

// propertyNames are member names for generated object schemas, including
// ones that need escaping in a JSON Pointer or quoting in a field path.
var propertyNames = []string{"city", "lat", "lon", "days", "units", "query", "limit", "città", "名前", "שם", "a b", "emoji😀", "$ref", "type", "x-y", "ÄÖÜ", "q/a", "t~ilde", "_private", "camelCase"}

// drawSchema draws a schema of any kind nested at most depth levels; defs
// are the root's $defs that a $ref may point to.
func drawSchema(t *rapid.T, depth int, defs map[string]schemaCase) schemaCase {
	kinds := []string{"string", "number", "integer", "boolean", "null", "enum", "const"}
	if depth > 0 {
		kinds = append(kinds, "array", "object", "anyOf")
	}
	if len(defs) > 0 {
		kinds = append(kinds, "ref")
	}
	var c schemaCase
	switch k := rapid.SampledFrom(kinds).Draw(t, "schema-kind"); k {
	case "string":
		c = drawStringSchema(t)
	case "number":
		c = drawNumberSchema(t)
	case "integer":
		c = drawIntegerSchema(t)
	case "boolean":
		c = schemaCase{map[string]any{"type": "boolean"}, func(t *rapid.T) any { return rapid.Bool().Draw(t, "bool") }}
	case "null":
		c = schemaCase{map[string]any{"type": "null"}, func(*rapid.T) any { return nil }}
	case "enum":
		vals := rapid.SliceOfN(rapid.OneOf(
			rapid.Map(richString(0, 12), func(s string) any { return s }),
			rapid.Map(genNumber(), func(n json.Number) any { return n }),
			rapid.Just[any](nil), rapid.Just[any](true)), 1, 4).Draw(t, "enum")
		c = schemaCase{map[string]any{"enum": vals}, func(t *rapid.T) any { return rapid.SampledFrom(vals).Draw(t, "enum-value") }}
	case "const":
		v := drawValue(t, 1)
		c = schemaCase{map[string]any{"const": v}, func(*rapid.T) any { return v }}
	case "array":
		item := drawSchema(t, depth-1, defs)
		lo := rapid.IntRange(0, 2).Draw(t, "minItems")
		hi := lo + rapid.IntRange(0, 3).Draw(t, "extraItems")
		s := map[string]any{"type": "array", "items": item.schema}
		if lo > 0 {
			s["minItems"] = json.Number(strconv.Itoa(lo))
		}
		if rapid.Bool().Draw(t, "bounded") {
			s["maxItems"] = json.Number(strconv.Itoa(hi))
		}
		c = schemaCase{s, func(t *rapid.T) any {
			a := make([]any, rapid.IntRange(lo, hi).Draw(t, "items"))
			for i := range a {
				a[i] = item.valid(t)
			}
			return a
		}}
	case "object":
		c = drawObjectSchema(t, depth-1, defs)
	case "anyOf":
		a, b := drawSchema(t, depth-1, defs), drawSchema(t, depth-1, defs)
		c = schemaCase{map[string]any{"anyOf": []any{a.schema, b.schema}}, func(t *rapid.T) any {
			if rapid.Bool().Draw(t, "branch") {
				return a.valid(t)
			}
			return b.valid(t)
		}}
	case "ref":
		names := sortedKeys(defs)
		name := rapid.SampledFrom(names).Draw(t, "ref")
		def := defs[name]
		ptr := strings.NewReplacer("~", "~0", "/", "~1").Replace(name)
		c = schemaCase{map[string]any{"$ref": "#/$defs/" + ptr}, def.valid}
	}
	if s, ok := c.schema.(map[string]any); ok {
		annotate(t, s, c.valid)
	}
	return c
}

// annotate adds annotation keywords (title, description, default, examples,
// deprecated) and an unknown keyword, each now and then.
func annotate(t *rapid.T, s map[string]any, valid func(*rapid.T) any) {
	if rapid.IntRange(0, 3).Draw(t, "title?") == 0 {
		s["title"] = richString(1, 20).Draw(t, "title")
	}
	if rapid.IntRange(0, 3).Draw(t, "description?") == 0 {
		s["description"] = rapid.StringOfN(textRune(), 0, 40, -1).Draw(t, "description")
	}
	if _, isRef := s["$ref"]; !isRef && rapid.IntRange(0, 3).Draw(t, "default?") == 0 {
		s["default"] = valid(t)
	}
	if rapid.IntRange(0, 5).Draw(t, "examples?") == 0 {
		s["examples"] = []any{valid(t)}
	}
	if rapid.IntRange(0, 7).Draw(t, "x-keyword?") == 0 {
		s["x-ui-widget"] = drawValue(t, 1)
	}
}

func drawStringSchema(t *rapid.T) schemaCase {
	s := map[string]any{"type": "string"}
	lo := rapid.IntRange(0, 3).Draw(t, "minLength")
	hi := lo + rapid.IntRange(0, 20).Draw(t, "extraLength")
	runes := richRune()
	if rapid.IntRange(0, 3).Draw(t, "pattern?") == 0 {
		s["pattern"] = "^[a-z]+$"
		runes = rapid.RuneFrom([]rune("abcdefghijklmnopqrstuvwxyz"))
		lo, hi = max(lo, 1), max(hi, 1)
	}
	if lo > 0 {
		s["minLength"] = json.Number(strconv.Itoa(lo))
	}
	if rapid.Bool().Draw(t, "maxLength?") {
		s["maxLength"] = json.Number(strconv.Itoa(hi))
	}
	if rapid.IntRange(0, 4).Draw(t, "format?") == 0 {
		s["format"] = rapid.SampledFrom([]string{"email", "uri", "date-time"}).Draw(t, "format") // an annotation only
	}
	return schemaCase{s, func(t *rapid.T) any { return rapid.StringOfN(runes, lo, hi, -1).Draw(t, "string") }}
}

// drawNumberSchema draws {"type": "number"} with integer bounds and now and
// then "multipleOf": 1e-7; instances have at most seven decimals, written
// with trailing zeros kept.
func drawNumberSchema(t *rapid.T) schemaCase {
	lo := rapid.IntRange(-1000, 0).Draw(t, "minimum")
	hi := rapid.IntRange(1, 1000).Draw(t, "maximum")
	s := map[string]any{"type": "number"}
	if rapid.Bool().Draw(t, "bounded") {
		s["minimum"] = json.Number(strconv.Itoa(lo))
		s["maximum"] = json.Number(rapid.SampledFrom([]string{strconv.Itoa(hi), strconv.Itoa(hi) + ".0", strconv.Itoa(hi) + "e0"}).Draw(t, "max-text"))
	}
	if rapid.Bool().Draw(t, "multipleOf?") {
		s["multipleOf"] = json.Number("1e-7")
	}
	return schemaCase{s, func(t *rapid.T) any {
		whole := rapid.IntRange(lo, hi-1).Draw(t, "whole")
		decimals := rapid.IntRange(0, 7).Draw(t, "decimals")
		frac := rapid.Int64Range(0, pow10(decimals)-1).Draw(t, "frac")
		r := new(big.Rat).SetFrac64(frac, pow10(decimals))
		r.Add(r, new(big.Rat).SetInt64(int64(whole)))
		return json.Number(r.FloatString(decimals))
	}}
}

func pow10(n int) int64 {
	p := int64(1)
	for ; n > 0; n-- {
		p *= 10
	}
	return p
}

// drawIntegerSchema draws {"type": "integer"} bounded by 30-digit integers,
// with instances of up to 29 digits.
func drawIntegerSchema(t *rapid.T) schemaCase {
	s := map[string]any{"type": "integer"}
	if rapid.Bool().Draw(t, "bounded") {
		s["minimum"] = json.Number("-123456789012345678901234567890")
		s["maximum"] = json.Number("123456789012345678901234567890")
	}
	return schemaCase{s, func(t *rapid.T) any {
		digits := rapid.StringMatching(`-?[1-9][0-9]{0,28}|0`).Draw(t, "integer")
		return json.Number(digits)
	}}
}

// drawObjectSchema draws {"type": "object"} with properties, required
// members and additionalProperties.
func drawObjectSchema(t *rapid.T, depth int, defs map[string]schemaCase) schemaCase {
	names := rapid.SliceOfNDistinct(rapid.SampledFrom(propertyNames), 0, 4, rapid.ID[string]).Draw(t, "properties")
	props := map[string]any{}
	cases := map[string]schemaCase{}
	var required []any
	isRequired := map[string]bool{}
	for _, name := range names {
		c := drawSchema(t, depth, defs)
		props[name] = c.schema
		cases[name] = c
		if rapid.Bool().Draw(t, "required?") {
			required = append(required, name)
			isRequired[name] = true
		}
	}
	s := map[string]any{"type": "object"}
	if len(names) > 0 || rapid.Bool().Draw(t, "empty-properties?") {
		s["properties"] = props
	}
	if len(required) > 0 {
		s["required"] = required
	}
	var extra func(t *rapid.T) any
	switch rapid.IntRange(0, 3).Draw(t, "additionalProperties") {
	case 0:
		s["additionalProperties"] = false
	case 1:
		s["additionalProperties"] = map[string]any{"type": "string"}
		extra = func(t *rapid.T) any { return richString(0, 8).Draw(t, "extra") }
	case 2:
		s["additionalProperties"] = true
		extra = func(t *rapid.T) any { return drawValue(t, 1) }
	default:
		extra = func(t *rapid.T) any { return drawValue(t, 1) }
	}
	return schemaCase{s, func(t *rapid.T) any {
		obj := map[string]any{}
		for _, name := range names {
			if isRequired[name] || rapid.Bool().Draw(t, "optional-present?") {
				obj[name] = cases[name].valid(t)
			}
		}
		if extra != nil && rapid.IntRange(0, 3).Draw(t, "extra?") == 0 {
			obj["zz-extra-"+rapid.StringMatching(`[a-z]{1,4}`).Draw(t, "extra-name")] = extra(t)
		}
		return obj
	}}
}

// drawInputs draws an inputs schema: an object schema, now and then with
// $defs that its properties reference, a $schema and an $id.
func drawInputs(t *rapid.T) schemaCase {
	defs := map[string]schemaCase{}
	for _, name := range rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"point", "unit", "lat_lon", "a~b", "x/y"}), 0, 2, rapid.ID[string]).Draw(t, "defs") {
		defs[name] = drawSchema(t, 1, nil)
	}
	c := drawObjectSchema(t, 2, defs)
	s := c.schema.(map[string]any)
	if len(defs) > 0 {
		d := map[string]any{}
		for name, def := range defs {
			d[name] = def.schema
		}
		s["$defs"] = d
	}
	if rapid.IntRange(0, 3).Draw(t, "$schema?") == 0 {
		s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	}
	if rapid.IntRange(0, 5).Draw(t, "$id?") == 0 {
		s["$id"] = "https://schemas.example.com/skills/inputs.json"
	}
	annotate(t, s, c.valid)
	return c
}

// drawOutput draws an output schema: boolean now and then, any schema
// otherwise. A nil valid means no instance is valid (the schema false).
func drawOutput(t *rapid.T) schemaCase {
	switch rapid.IntRange(0, 5).Draw(t, "output-kind") {
	case 0:
		return schemaCase{true, func(t *rapid.T) any { return drawValue(t, 2) }}
	case 1:
		return schemaCase{false, nil}
	case 2:
		return schemaCase{map[string]any{}, func(t *rapid.T) any { return drawValue(t, 2) }}
	case 3:
		return drawObjectSchema(t, 2, nil)
	default:
		return drawSchema(t, 2, nil)
	}
}

// ---------------------------------------------------------------------------
// Descriptors as JSON values

var (
	capabilityTypes = []string{"plugin", "api", "knowledge", "task"}
	accessLevels    = []string{"public", "restricted", "private"}
	authTypes       = []string{"api_key", "oauth2", "custom", "none"}
	methods         = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}
)

// drawAuth draws an auth object of type typ with the members it requires,
// the optional ones now and then, and unknown members.
func drawAuth(t *rapid.T, typ string) map[string]any {
	a := map[string]any{"type": typ}
	switch typ {
	case "api_key":
		a["in"] = rapid.SampledFrom([]string{"header", "query"}).Draw(t, "in")
		a["name"] = rapid.OneOf(rapid.SampledFrom([]string{"X-Api-Key", "api_key", "Authorization"}), richString(1, 30)).Draw(t, "key-name")
	case "oauth2":
		a["token_url"] = genHTTPURL().Draw(t, "token_url")
		if rapid.Bool().Draw(t, "authorization_url?") {
			a["authorization_url"] = genHTTPURL().Draw(t, "authorization_url")
		}
		if rapid.Bool().Draw(t, "scopes?") {
			scopes := map[string]any{}
			for _, s := range rapid.SliceOfN(rapid.OneOf(rapid.SampledFrom([]string{"forecast:read", "forecast:write", "読み取り", "admin", ""}), richString(0, 10)), 0, 4).Draw(t, "scopes") {
				scopes[s] = rapid.StringOfN(textRune(), 0, 30, -1).Draw(t, "scope-description")
			}
			a["scopes"] = scopes
		}
	case "custom":
		a["instructions"] = rapid.StringOfN(textRune(), 1, 200, -1).Draw(t, "instructions")
	}
	addUnknown(t, a, "auth")
	return a
}

// descriptorDoc is a generated descriptor with what the test needs to know
// about it.
type descriptorDoc struct {
	doc    map[string]any
	inputs schemaCase
	output schemaCase
}

// drawDescriptorDoc draws a valid descriptor: every optional member present
// or absent, every auth type with its members, nested inputs schemas with
// examples valid against them, and unknown members at every level.
func drawDescriptorDoc(t *rapid.T) descriptorDoc {
	protocol := map[string]any{"version": genProtocolVersion().Draw(t, "protocol")}
	addUnknown(t, protocol, "protocol")

	provider := map[string]any{"name": label(120).Draw(t, "provider-name")}
	if rapid.Bool().Draw(t, "provider-url?") {
		provider["url"] = genHTTPURL().Draw(t, "provider-url")
	}
	if rapid.Bool().Draw(t, "provider-email?") {
		provider["email"] = genEmail().Draw(t, "provider-email")
	}
	addUnknown(t, provider, "provider")

	endpoint := map[string]any{"url": genHTTPURL().Draw(t, "endpoint-url")}
	if rapid.Bool().Draw(t, "method?") {
		endpoint["method"] = rapid.SampledFrom(methods).Draw(t, "method")
	}
	addUnknown(t, endpoint, "endpoint")

	authType := rapid.SampledFrom(authTypes).Draw(t, "auth-type")
	access := rapid.SampledFrom(accessLevels).Draw(t, "access")
	if authType == "none" && access == "restricted" {
		access = "public"
	}
	inputs := drawInputs(t)
	output := drawOutput(t)

	d := map[string]any{
		"protocol":        protocol,
		"id":              genID().Draw(t, "id"),
		"name":            label(120).Draw(t, "name"),
		"version":         genSemVer().Draw(t, "version"),
		"capability_type": rapid.SampledFrom(capabilityTypes).Draw(t, "capability_type"),
		"description":     drawDescription(t),
		"provider":        provider,
		"endpoint":        endpoint,
		"inputs":          inputs.schema,
		"output":          output.schema,
		"auth":            drawAuth(t, authType),
		"access":          access,
	}
	if rapid.Bool().Draw(t, "$schema?") {
		d["$schema"] = rapid.SampledFrom([]string{"https://raw.githubusercontent.com/skillcat/skillcat/main/schemas/skill-descriptor.schema.json", "../schemas/v1/skill-descriptor.schema.json"}).Draw(t, "$schema")
	}
	if rapid.Bool().Draw(t, "tags?") {
		tags := rapid.SliceOfNDistinct(genTag(), 0, 20, rapid.ID[string]).Draw(t, "tags")
		a := make([]any, len(tags))
		for i, tag := range tags {
			a[i] = tag
		}
		d["tags"] = a
	}
	if rapid.Bool().Draw(t, "examples?") {
		n := rapid.IntRange(0, 3).Draw(t, "examples")
		examples := make([]any, n)
		for i := range examples {
			ex := map[string]any{"title": richString(1, 60).Draw(t, "example-title"), "inputs": inputs.valid(t)}
			if output.valid != nil && rapid.Bool().Draw(t, "example-output?") {
				ex["output"] = output.valid(t)
			}
			addUnknown(t, ex, "example")
			examples[i] = ex
		}
		d["examples"] = examples
	}
	if rapid.Bool().Draw(t, "documentation_url?") {
		d["documentation_url"] = genHTTPURL().Draw(t, "documentation_url")
	}
	addUnknown(t, d, "descriptor")
	return descriptorDoc{doc: d, inputs: inputs, output: output}
}

// drawDescription draws CommonMark of 1 to 20,000 code points.
func drawDescription(t *rapid.T) string {
	switch rapid.IntRange(0, 19).Draw(t, "description-kind") {
	case 19:
		return strings.Repeat("ab\u0301 ", 5000) // exactly 20,000 code points
	case 18:
		return "# Weather\n\nHourly *forecasts* for <b>any</b> place.\n\n- one\n- two\n\n```json\n{\"a\": 1}\n```\n"
	default:
		return rapid.StringOfN(textRune(), 1, 300, -1).Draw(t, "description")
	}
}

func genDescriptorDoc() *rapid.Generator[descriptorDoc] {
	return rapid.Custom(drawDescriptorDoc)
}

// ---------------------------------------------------------------------------
// Index, request and response documents as JSON values

func drawDigest(t *rapid.T) string {
	return "sha256:" + rapid.StringMatching(`[0-9a-f]{64}`).Draw(t, "digest")
}

// drawIndexEntry draws an index entry with the given id.
func drawIndexEntry(t *rapid.T, id string) map[string]any {
	e := map[string]any{
		"id":              id,
		"name":            label(120).Draw(t, "entry-name"),
		"version":         genSemVer().Draw(t, "entry-version"),
		"capability_type": rapid.SampledFrom(capabilityTypes).Draw(t, "entry-type"),
		"access":          rapid.SampledFrom([]string{"public", "restricted"}).Draw(t, "entry-access"),
		"summary":         rapid.OneOf(rapid.Just(""), richString(0, 200), rapid.Just(strings.Repeat("…", 200))).Draw(t, "summary"),
		"descriptor_url":  rapid.OneOf(rapid.Just("../skills/"+id+".json"), rapid.Just("/skills/"+id+".json"), rapid.Just("https://cdn.example.com/skills/"+id+".json?v=1")).Draw(t, "descriptor_url"),
		"digest":          drawDigest(t),
	}
	addUnknown(t, e, "entry")
	return e
}

// drawIndexDoc draws a valid index: unique ids in order, unknown members.
func drawIndexDoc(t *rapid.T) map[string]any {
	ids := rapid.SliceOfNDistinct(genID(), 0, 8, rapid.ID[string]).Draw(t, "ids")
	sort.Strings(ids)
	skills := make([]any, len(ids))
	for i, id := range ids {
		skills[i] = drawIndexEntry(t, id)
	}
	protocol := map[string]any{"version": genProtocolVersion().Draw(t, "protocol")}
	addUnknown(t, protocol, "protocol")
	x := map[string]any{"protocol": protocol, "skills": skills}
	addUnknown(t, x, "index")
	return x
}

// drawObject draws a JSON object of arbitrary members.
func drawObject(t *rapid.T) map[string]any {
	m := map[string]any{}
	for i, n := 0, rapid.IntRange(0, 4).Draw(t, "members"); i < n; i++ {
		m[rapid.StringOfN(textRune(), 0, 10, -1).Draw(t, "name")] = drawValue(t, 2)
	}
	return m
}

// drawRequestDoc draws a valid InvocationRequest.
func drawRequestDoc(t *rapid.T) map[string]any {
	caller := map[string]any{
		"id":   rapid.OneOf(richString(1, 40), rapid.Just(strings.Repeat("😀", 256))).Draw(t, "caller-id"),
		"type": rapid.SampledFrom([]string{"user", "agent", "service"}).Draw(t, "caller-type"),
	}
	addUnknown(t, caller, "caller")
	r := map[string]any{"caller": caller, "skill_id": genID().Draw(t, "skill_id"), "inputs": drawObject(t)}
	if rapid.Bool().Draw(t, "protocol?") {
		p := map[string]any{"version": genProtocolVersion().Draw(t, "protocol")}
		addUnknown(t, p, "protocol")
		r["protocol"] = p
	}
	if rapid.Bool().Draw(t, "request_id?") {
		r["request_id"] = richString(1, 64).Draw(t, "request_id")
	}
	if rapid.Bool().Draw(t, "context?") {
		r["context"] = drawObject(t)
	}
	addUnknown(t, r, "request")
	return r
}

var statuses = []string{"accepted", "running", "succeeded", "failed", "cancelled"}

func terminal(status string) bool {
	return status == "succeeded" || status == "failed" || status == "cancelled"
}

// drawTimestamp formats tm as an RFC 3339 date-time in a random zone with
// random sub-second precision.
func drawTimestamp(t *rapid.T, tm time.Time) string {
	offset := rapid.SampledFrom([]int{0, 0, 3600, -5 * 3600, 5*3600 + 1800, 14 * 3600, -12 * 3600}).Draw(t, "offset")
	layouts := []string{time.RFC3339Nano, "2006-01-02T15:04:05.000000000Z07:00"}
	if tm.Nanosecond()%int(time.Millisecond) == 0 {
		layouts = append(layouts, "2006-01-02T15:04:05.000Z07:00")
	}
	if tm.Nanosecond() == 0 {
		layouts = append(layouts, time.RFC3339)
	}
	layout := rapid.SampledFrom(layouts).Draw(t, "layout")
	s := tm.In(time.FixedZone("", offset)).Format(layout)
	if offset == 0 && rapid.Bool().Draw(t, "+00:00?") {
		s = strings.TrimSuffix(s, "Z") + "+00:00"
	}
	return s
}

// drawTimes draws created ≤ started ≤ completed.
func drawTimes(t *rapid.T) (created, started, completed time.Time) {
	base := time.Unix(rapid.Int64Range(0, 4102444800).Draw(t, "created"), rapid.Int64Range(0, 999999999).Draw(t, "nanos")).UTC()
	d1 := time.Duration(rapid.Int64Range(0, int64(48*time.Hour)).Draw(t, "wait"))
	d2 := time.Duration(rapid.Int64Range(0, int64(48*time.Hour)).Draw(t, "run"))
	if rapid.IntRange(0, 4).Draw(t, "equal?") == 0 {
		d1, d2 = 0, 0
	}
	// Round to milliseconds so that the millisecond layout keeps the order.
	created = base.Truncate(time.Millisecond)
	started = created.Add(d1).Truncate(time.Millisecond)
	completed = started.Add(d2).Truncate(time.Millisecond)
	return created, started, completed
}

// drawResponseDoc draws a valid InvocationResponse of the given status.
func drawResponseDoc(t *rapid.T, status string) map[string]any {
	created, started, completed := drawTimes(t)
	ts := map[string]any{"created_at": drawTimestamp(t, created)}
	if status != "accepted" || rapid.Bool().Draw(t, "started?") {
		ts["started_at"] = drawTimestamp(t, started)
	}
	if terminal(status) {
		ts["completed_at"] = drawTimestamp(t, completed)
	}
	addUnknown(t, ts, "timestamps")
	r := map[string]any{
		"execution_id": rapid.OneOf(richString(1, 40), rapid.StringMatching(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)).Draw(t, "execution_id"),
		"status":       status,
		"skill_id":     genID().Draw(t, "skill_id"),
		"timestamps":   ts,
	}
	if status == "succeeded" || rapid.IntRange(0, 5).Draw(t, "output?") == 0 {
		r["output"] = drawValue(t, 2)
	}
	if status == "failed" {
		e := map[string]any{"code": richString(1, 20).Draw(t, "code"), "message": rapid.StringOfN(textRune(), 1, 80, -1).Draw(t, "message")}
		addUnknown(t, e, "error")
		r["error"] = e
	}
	addUnknown(t, r, "response")
	return r
}

// ---------------------------------------------------------------------------
// Go values of the protocol types, valid by construction

// tb is what the helpers need of a *testing.T or *rapid.T.
type tb interface {
	Helper()
	Fatalf(format string, args ...any)
}

// raw returns v as compact JSON in the form the decoder keeps raw members
// in (members in source order, no HTML escaping), so that a decoded value
// compares equal with reflect.DeepEqual.
func raw(t tb, v any) json.RawMessage {
	t.Helper()
	n, err := skillcat.ParseJSON(marshal(t, v, ""))
	if err != nil {
		t.Fatalf("ParseJSON(marshal(%#v)): %v", v, err)
	}
	return n.AppendJSON(nil)
}

// drawExtra draws nil or a few unknown members as raw JSON.
func drawExtra(t *rapid.T, label string) skillcat.Extra {
	m := map[string]any{}
	addUnknown(t, m, label)
	if len(m) == 0 {
		return nil
	}
	x := skillcat.Extra{}
	for name, v := range m {
		x[name] = raw(t, v)
	}
	return x
}

// drawDescriptorStruct draws a SkillDescriptor from the Go types.
func drawDescriptorStruct(t *rapid.T) *skillcat.SkillDescriptor {
	authType := skillcat.AuthType(rapid.SampledFrom(authTypes).Draw(t, "auth-type"))
	auth := skillcat.Auth{Type: authType, Extra: drawExtra(t, "auth")}
	switch authType {
	case skillcat.AuthAPIKey:
		auth.In = rapid.SampledFrom([]string{"header", "query"}).Draw(t, "in")
		auth.Name = richString(1, 30).Draw(t, "key-name")
	case skillcat.AuthOAuth2:
		auth.TokenURL = genHTTPURL().Draw(t, "token_url")
		if rapid.Bool().Draw(t, "authorization_url?") {
			auth.AuthorizationURL = genHTTPURL().Draw(t, "authorization_url")
		}
		if rapid.Bool().Draw(t, "scopes?") {
			auth.Scopes = rapid.MapOfN(richString(0, 10), rapid.StringOfN(textRune(), 0, 20, -1), 0, 3).Draw(t, "scopes")
		}
	case skillcat.AuthCustom:
		auth.Instructions = rapid.StringOfN(textRune(), 1, 100, -1).Draw(t, "instructions")
	}
	access := skillcat.Access(rapid.SampledFrom(accessLevels).Draw(t, "access"))
	if authType == skillcat.AuthNone && access == skillcat.Restricted {
		access = skillcat.Private
	}
	inputs, output := drawInputs(t), drawOutput(t)
	d := &skillcat.SkillDescriptor{
		Protocol:       skillcat.ProtocolVersion{Version: genProtocolVersion().Draw(t, "protocol"), Extra: drawExtra(t, "protocol")},
		ID:             genID().Draw(t, "id"),
		Name:           label(120).Draw(t, "name"),
		Version:        genSemVer().Draw(t, "version"),
		CapabilityType: skillcat.CapabilityType(rapid.SampledFrom(capabilityTypes).Draw(t, "capability_type")),
		Description:    drawDescription(t),
		Provider:       skillcat.Provider{Name: label(120).Draw(t, "provider-name"), Extra: drawExtra(t, "provider")},
		Endpoint:       skillcat.Endpoint{URL: genHTTPURL().Draw(t, "endpoint-url"), Extra: drawExtra(t, "endpoint")},
		Inputs:         raw(t, inputs.schema),
		Output:         raw(t, output.schema),
		Auth:           auth,
		Access:         access,
		Extra:          drawExtra(t, "descriptor"),
	}
	if rapid.Bool().Draw(t, "$schema?") {
		d.Schema = "https://raw.githubusercontent.com/skillcat/skillcat/main/schemas/skill-descriptor.schema.json"
	}
	if rapid.Bool().Draw(t, "provider-url?") {
		d.Provider.URL = genHTTPURL().Draw(t, "provider-url")
	}
	if rapid.Bool().Draw(t, "provider-email?") {
		d.Provider.Email = genEmail().Draw(t, "provider-email")
	}
	if rapid.Bool().Draw(t, "method?") {
		d.Endpoint.Method = rapid.SampledFrom(methods).Draw(t, "method")
	}
	if rapid.Bool().Draw(t, "tags?") {
		d.Tags = rapid.SliceOfNDistinct(genTag(), 0, 20, rapid.ID[string]).Draw(t, "tags")
	}
	if rapid.Bool().Draw(t, "examples?") {
		d.Examples = make([]skillcat.Example, rapid.IntRange(0, 3).Draw(t, "examples"))
		for i := range d.Examples {
			ex := &d.Examples[i]
			ex.Title = richString(1, 60).Draw(t, "example-title")
			ex.Inputs = raw(t, inputs.valid(t))
			if output.valid != nil && rapid.Bool().Draw(t, "example-output?") {
				ex.Output = raw(t, output.valid(t))
			}
			ex.Extra = drawExtra(t, "example")
		}
	}
	if rapid.Bool().Draw(t, "documentation_url?") {
		d.DocumentationURL = genHTTPURL().Draw(t, "documentation_url")
	}
	return d
}

// drawIndexStruct draws a SkillIndex from the Go types.
func drawIndexStruct(t *rapid.T) *skillcat.SkillIndex {
	ids := rapid.SliceOfNDistinct(genID(), 0, 8, rapid.ID[string]).Draw(t, "ids")
	sort.Strings(ids)
	x := &skillcat.SkillIndex{Protocol: skillcat.CurrentProtocol(), Extra: drawExtra(t, "index")}
	if rapid.Bool().Draw(t, "nil-skills?") {
		x.Skills = []skillcat.IndexEntry{}
	}
	for _, id := range ids {
		x.Skills = append(x.Skills, skillcat.IndexEntry{
			ID:             id,
			Name:           label(120).Draw(t, "entry-name"),
			Version:        genSemVer().Draw(t, "entry-version"),
			CapabilityType: skillcat.CapabilityType(rapid.SampledFrom(capabilityTypes).Draw(t, "entry-type")),
			Access:         skillcat.Access(rapid.SampledFrom([]string{"public", "restricted"}).Draw(t, "entry-access")),
			Summary:        rapid.OneOf(rapid.Just(""), richString(0, 200)).Draw(t, "summary"),
			DescriptorURL:  "../skills/" + id + ".json",
			Digest:         drawDigest(t),
			Extra:          drawExtra(t, "entry"),
		})
	}
	return x
}

// drawRequestStruct draws an InvocationRequest from the Go types.
func drawRequestStruct(t *rapid.T) *skillcat.InvocationRequest {
	r := &skillcat.InvocationRequest{
		Caller:  skillcat.Caller{ID: richString(1, 40).Draw(t, "caller-id"), Type: skillcat.CallerType(rapid.SampledFrom([]string{"user", "agent", "service"}).Draw(t, "caller-type")), Extra: drawExtra(t, "caller")},
		SkillID: genID().Draw(t, "skill_id"),
		Inputs:  raw(t, drawObject(t)),
		Extra:   drawExtra(t, "request"),
	}
	if rapid.Bool().Draw(t, "protocol?") {
		r.Protocol = &skillcat.ProtocolVersion{Version: genProtocolVersion().Draw(t, "protocol"), Extra: drawExtra(t, "protocol")}
	}
	if rapid.Bool().Draw(t, "request_id?") {
		r.RequestID = richString(1, 64).Draw(t, "request_id")
	}
	if rapid.Bool().Draw(t, "context?") {
		r.Context = raw(t, drawObject(t))
	}
	return r
}

// drawResponseStruct draws an InvocationResponse from the Go types.
func drawResponseStruct(t *rapid.T) *skillcat.InvocationResponse {
	status := rapid.SampledFrom(statuses).Draw(t, "status")
	created, started, completed := drawTimes(t)
	r := &skillcat.InvocationResponse{
		ExecutionID: richString(1, 40).Draw(t, "execution_id"),
		Status:      skillcat.Status(status),
		SkillID:     genID().Draw(t, "skill_id"),
		Timestamps:  skillcat.Timestamps{CreatedAt: drawTimestamp(t, created), Extra: drawExtra(t, "timestamps")},
		Extra:       drawExtra(t, "response"),
	}
	if status != "accepted" {
		r.Timestamps.StartedAt = drawTimestamp(t, started)
	}
	if terminal(status) {
		r.Timestamps.CompletedAt = drawTimestamp(t, completed)
	}
	if status == "succeeded" || rapid.IntRange(0, 5).Draw(t, "output?") == 0 {
		r.Output = raw(t, drawValue(t, 2))
	}
	if status == "failed" {
		r.Error = &skillcat.InvocationError{Code: richString(1, 20).Draw(t, "code"), Message: richString(1, 80).Draw(t, "message"), Extra: drawExtra(t, "error")}
	}
	return r
}

// ---------------------------------------------------------------------------
// Helpers

// marshal writes v as JSON without HTML escaping, indented by indent ("" for
// compact).
func marshal(t tb, v any, indent string) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		t.Fatalf("marshal %#v: %v", v, err)
	}
	return buf.Bytes()
}

// drawBytes writes a generated document in a random layout.
func drawBytes(t *rapid.T, doc any) []byte {
	return marshal(t, doc, rapid.SampledFrom([]string{"", "  ", "\t", " "}).Draw(t, "indent"))
}

// decode parses JSON into the generic form (json.Number for numbers).
func decode(t tb, data []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	return v
}

// sameJSON reports whether two documents hold equal JSON values, numbers
// compared as written.
func sameJSON(t tb, a, b []byte) bool {
	t.Helper()
	return reflect.DeepEqual(decode(t, a), decode(t, b))
}

// clone deep-copies a generated JSON value.
func clone(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = clone(e)
		}
		return m
	case []any:
		a := make([]any, len(v))
		for i, e := range v {
			a[i] = clone(e)
		}
		return a
	}
	return v
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// sha256Digest returns "sha256:" and the hex SHA-256 of data.
func sha256Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// shown renders s as violation reasons show a string value: quoted as
// quoteJSON does and cut to 80 code points.
func shown(s string) string {
	q := quoteJSON(s)
	if r := []rune(q); len(r) > 80 {
		q = string(r[:77]) + "…"
	}
	return q
}

// quoteJSON quotes s the way violation reasons do: only '"', '\\' and control
// characters are escaped.
func quoteJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// errorsOf returns the violations of error severity.
func errorsOf(vs skillcat.Violations) skillcat.Violations {
	var out skillcat.Violations
	for _, v := range vs {
		if v.Severity != skillcat.SeverityWarning {
			out = append(out, v)
		}
	}
	return out
}

// short shortens a document for a failure message.
func short(data []byte) string {
	const limit = 4000
	if len(data) <= limit {
		return string(data)
	}
	return string(data[:limit/2]) + fmt.Sprintf("\n… %d bytes left out …\n", len(data)-limit) + string(data[len(data)-limit/2:])
}
