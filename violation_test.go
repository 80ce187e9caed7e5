package skillcat_test

// One case per validation rule of SPEC 1.2–1.5, 3 and 6, each asserting the
// exact file, line, column, pointer, field and reason of every violation.

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/skillcat/skillcat"
)

// A test document is written one member per line, so that member i of the
// list stands on line i+2 (line 1 holds the opening brace).
type member struct{ name, value string }

// edit changes the member list of a test document.
type edit func([]member) []member

// with sets a member's value, appending the member when it is absent.
func with(name, value string) edit {
	return func(ms []member) []member {
		for i := range ms {
			if ms[i].name == name {
				ms[i].value = value
				return ms
			}
		}
		return append(ms, member{name, value})
	}
}

// without removes a member.
func without(name string) edit {
	return func(ms []member) []member {
		return slices.DeleteFunc(ms, func(m member) bool { return m.name == name })
	}
}

// after inserts a member on the line after the named one.
func after(name string, m member) edit {
	return func(ms []member) []member {
		i := slices.IndexFunc(ms, func(m member) bool { return m.name == name })
		return slices.Insert(ms, i+1, m)
	}
}

// build writes base with edits applied, one member per line.
func build(base []member, edits ...edit) []byte {
	ms := slices.Clone(base)
	for _, e := range edits {
		ms = e(ms)
	}
	lines := make([]string, len(ms))
	for i, m := range ms {
		lines[i] = "  " + quoteJSON(m.name) + ": " + m.value
	}
	return []byte("{\n" + strings.Join(lines, ",\n") + "\n}\n")
}

// baseDescriptor is a valid descriptor: line 2 $schema, 3 protocol, 4 id,
// 5 name, 6 version, 7 capability_type, 8 description, 9 provider,
// 10 endpoint, 11 inputs, 12 output, 13 auth, 14 access, 15 tags,
// 16 examples, 17 documentation_url.
var baseDescriptor = []member{
	{"$schema", `"https://raw.githubusercontent.com/skillcat/skillcat/main/schemas/skill-descriptor.schema.json"`},
	{"protocol", `{"version": "1.0.0"}`},
	{"id", `"weather.forecast"`},
	{"name", `"Weather Forecast"`},
	{"version", `"2.3.1"`},
	{"capability_type", `"api"`},
	{"description", `"Hourly and daily forecasts for any place.\n\nUses public data."`},
	{"provider", `{"name": "Acme Weather", "url": "https://weather.example.com", "email": "skills@weather.example.com"}`},
	{"endpoint", `{"url": "https://api.weather.example.com/v2/forecast", "method": "GET"}`},
	{"inputs", `{"type": "object", "required": ["city"], "properties": {"city": {"type": "string", "minLength": 1}, "days": {"type": "integer", "minimum": 1, "maximum": 14}}}`},
	{"output", `{"type": "object", "required": ["hourly"], "properties": {"hourly": {"type": "array"}}}`},
	{"auth", `{"type": "api_key", "in": "header", "name": "X-Api-Key"}`},
	{"access", `"public"`},
	{"tags", `["weather", "forecast"]`},
	{"examples", `[{"title": "Berlin", "inputs": {"city": "Berlin", "days": 3}, "output": {"hourly": []}}]`},
	{"documentation_url", `"https://docs.example.com/weather"`},
}

// want is one expected violation. Its column is where needle first starts
// on the line (counted in code points), or col when needle is empty.
type want struct {
	line    int
	needle  string
	col     int
	pointer string
	field   string
	reason  string
	warning bool
}

// bad expects an error at the first occurrence of needle on line.
func bad(line int, needle, pointer, field, reason string) want {
	return want{line: line, needle: needle, pointer: pointer, field: field, reason: reason}
}

// fileErr expects a file-level error at line:col.
func fileErr(line, col int, reason string) want {
	return want{line: line, col: col, field: "(file)", reason: reason}
}

// warning expects a typo warning at the member name needle on line.
func warning(line int, needle, pointer, field, reason string) want {
	w := bad(line, needle, pointer, field, reason)
	w.warning = true
	return w
}

// missing expects a missing top-level member, reported at the root object.
func missing(name string) want {
	return want{line: 1, col: 1, pointer: "/" + name, field: name, reason: "required member is missing"}
}

// ruleCase is one rule and the violations a document breaking it yields.
type ruleCase struct {
	name  string
	edits []edit
	src   []byte // the whole document instead of the base with edits
	want  []want
}

// checkViolations compares got with want exactly, violation by violation.
func checkViolations(t *testing.T, file string, src []byte, got skillcat.Violations, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		t.Fatalf("got %d violations:\n%v\nwant %d; document:\n%s", len(got), got, len(wants), short(src))
	}
	lines := strings.Split(string(src), "\n")
	for i, w := range wants {
		col := w.col
		if w.needle != "" {
			if w.line > len(lines) {
				t.Fatalf("want %d: line %d is beyond the document", i, w.line)
			}
			at := strings.Index(lines[w.line-1], w.needle)
			if at < 0 {
				t.Fatalf("want %d: %q is not on line %d: %q", i, w.needle, w.line, lines[w.line-1])
			}
			col = utf8.RuneCountInString(lines[w.line-1][:at]) + 1
		}
		severity := skillcat.SeverityError
		if w.warning {
			severity = skillcat.SeverityWarning
		}
		v := got[i]
		if v.File != file || v.Line != w.line || v.Column != col {
			t.Errorf("violation %d (%s): got position %s:%d:%d, want %s:%d:%d", i, v.Reason, v.File, v.Line, v.Column, file, w.line, col)
		}
		if v.Pointer != w.pointer {
			t.Errorf("violation %d: got pointer %q, want %q", i, v.Pointer, w.pointer)
		}
		if v.Field != w.field {
			t.Errorf("violation %d: got field %q, want %q", i, v.Field, w.field)
		}
		if v.Reason != w.reason {
			t.Errorf("violation %d: got reason\n\t%s\nwant\n\t%s", i, v.Reason, w.reason)
		}
		if v.Severity != severity {
			t.Errorf("violation %d: got severity %q, want %q", i, v.Severity, severity)
		}
	}
}

const (
	digest0    = "sha256:0000000000000000000000000000000000000000000000000000000000000000"
	enumCap    = `must be one of "plugin", "api", "knowledge", "task"; got `
	enumAccess = `must be one of "public", "restricted", "private"; got `
	enumAuth   = `must be one of "api_key", "oauth2", "custom", "none"; got `
	enumMethod = `must be one of "GET", "POST", "PUT", "PATCH", "DELETE"; got `
	enumTypes  = `must be one of "array", "boolean", "integer", "null", "number", "object", "string"; got `
	badSchema  = "is not a valid JSON Schema: "
)

func TestDescriptorRules(t *testing.T) {
	tags := func(n int) string {
		q := make([]string, n)
		for i := range q {
			q[i] = fmt.Sprintf(`"t%02d"`, i)
		}
		return "[" + strings.Join(q, ", ") + "]"
	}
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	cases := []ruleCase{
		{name: "OK"},

		// 1.2: every required member.
		{name: "ErrMissingProtocol", edits: []edit{without("protocol")}, want: []want{missing("protocol")}},
		{name: "ErrMissingID", edits: []edit{without("id")}, want: []want{missing("id")}},
		{name: "ErrMissingName", edits: []edit{without("name")}, want: []want{missing("name")}},
		{name: "ErrMissingVersion", edits: []edit{without("version")}, want: []want{missing("version")}},
		{name: "ErrMissingCapabilityType", edits: []edit{without("capability_type")}, want: []want{missing("capability_type")}},
		{name: "ErrMissingDescription", edits: []edit{without("description")}, want: []want{missing("description")}},
		{name: "ErrMissingProvider", edits: []edit{without("provider")}, want: []want{missing("provider")}},
		{name: "ErrMissingEndpoint", edits: []edit{without("endpoint")}, want: []want{missing("endpoint")}},
		{name: "ErrMissingInputs", edits: []edit{without("inputs")}, want: []want{missing("inputs")}},
		{name: "ErrMissingOutput", edits: []edit{without("output")}, want: []want{missing("output")}},
		{name: "ErrMissingAuth", edits: []edit{without("auth")}, want: []want{missing("auth")}},
		{name: "ErrMissingAccess", edits: []edit{without("access")}, want: []want{missing("access")}},
		{name: "ErrMissingSeveral", edits: []edit{without("id"), without("access")}, want: []want{missing("access"), missing("id")}},
		{name: "ErrMissingProtocolVersion", edits: []edit{with("protocol", `{}`)},
			want: []want{bad(3, "{", "/protocol/version", "protocol.version", "required member is missing")}},
		{name: "ErrMissingProviderName", edits: []edit{with("provider", `{"url": "https://weather.example.com"}`)},
			want: []want{bad(9, "{", "/provider/name", "provider.name", "required member is missing")}},
		{name: "ErrMissingEndpointURL", edits: []edit{with("endpoint", `{"method": "GET"}`)},
			want: []want{bad(10, "{", "/endpoint/url", "endpoint.url", "required member is missing")}},
		{name: "ErrMissingAuthType", edits: []edit{with("auth", `{"in": "header", "name": "X-Api-Key"}`)},
			want: []want{bad(13, "{", "/auth/type", "auth.type", "required member is missing")}},
		{name: "ErrMissingInputsType", edits: []edit{with("inputs", `{"properties": {"city": {"type": "string"}}}`)},
			want: []want{bad(11, "{", "/inputs/type", "inputs.type", "required member is missing")}},
		{name: "ErrMissingExampleTitle", edits: []edit{with("examples", `[{"inputs": {"city": "Berlin"}}]`)},
			want: []want{bad(16, "{", "/examples/0/title", "examples[0].title", "required member is missing")}},
		{name: "ErrMissingExampleInputs", edits: []edit{with("examples", `[{"title": "Berlin"}]`)},
			want: []want{bad(16, "{", "/examples/0/inputs", "examples[0].inputs", "required member is missing")}},

		// 1.2: enumerations.
		{name: "ErrCapabilityTypeNotListed", edits: []edit{with("capability_type", `"API"`)},
			want: []want{bad(7, `"API"`, "/capability_type", "capability_type", enumCap+`"API"; did you mean "api"?`)}},
		{name: "ErrCapabilityTypeTrailingSpace", edits: []edit{with("capability_type", `"Plugin "`)},
			want: []want{bad(7, `"Plugin "`, "/capability_type", "capability_type", enumCap+`"Plugin "; did you mean "plugin"?`)}},
		{name: "ErrCapabilityTypeNotString", edits: []edit{with("capability_type", `["api"]`)},
			want: []want{bad(7, `["api"]`, "/capability_type", "capability_type", enumCap+"an array")}},
		{name: "ErrAccessNotListed", edits: []edit{with("access", `"protected"`)},
			want: []want{bad(14, `"protected"`, "/access", "access", enumAccess+`"protected"`)}},
		{name: "ErrAuthTypeNotListed", edits: []edit{with("auth", `{"type": "basic"}`)},
			want: []want{bad(13, `"basic"`, "/auth/type", "auth.type", enumAuth+`"basic"`)}},
		{name: "ErrAuthTypeNearMiss", edits: []edit{with("auth", `{"type": "oauth", "token_url": "https://auth.example.com/token"}`)},
			want: []want{bad(13, `"oauth"`, "/auth/type", "auth.type", enumAuth+`"oauth"; did you mean "oauth2"?`)}},
		{name: "ErrMethodNotListed", edits: []edit{with("endpoint", `{"url": "https://api.weather.example.com/v2/forecast", "method": "post"}`)},
			want: []want{bad(10, `"post"`, "/endpoint/method", "endpoint.method", enumMethod+`"post"; did you mean "POST"?`)}},
		{name: "OKMethodAbsent", edits: []edit{with("endpoint", `{"url": "https://api.weather.example.com/v2/forecast"}`)}},
		{name: "ErrAPIKeyInNotListed", edits: []edit{with("auth", `{"type": "api_key", "in": "cookie", "name": "key"}`)},
			want: []want{bad(13, `"cookie"`, "/auth/in", "auth.in", `must be one of "header", "query"; got "cookie"`)}},

		// 1.2: id.
		{name: "OKID128", edits: []edit{with("id", `"`+strings.Repeat("a", 128)+`"`)}},
		{name: "OKIDSeparators", edits: []edit{with("id", `"a.b_c-d.0"`)}},
		{name: "ErrIDTooLong", edits: []edit{with("id", `"`+strings.Repeat("a", 129)+`"`)},
			want: []want{bad(4, `"aaa`, "/id", "id", "must be at most 128 characters; got 129")}},
		{name: "ErrIDPattern", edits: []edit{with("id", `"Weather/Forecast"`)},
			want: []want{bad(4, `"Weather`, "/id", "id", reasonID+`"Weather/Forecast"`)}},
		{name: "ErrIDDotDot", edits: []edit{with("id", `"a..b"`)},
			want: []want{bad(4, `"a..b"`, "/id", "id", reasonID+`"a..b"`)}},
		{name: "ErrIDTrailingSeparator", edits: []edit{with("id", `"weather-"`)},
			want: []want{bad(4, `"weather-"`, "/id", "id", reasonID+`"weather-"`)}},
		{name: "ErrIDNotASCII", edits: []edit{with("id", `"wetter.ü"`)},
			want: []want{bad(4, `"wetter`, "/id", "id", reasonID+`"wetter.ü"`)}},

		// 1.2 and 6: name, counted in code points, not blank.
		{name: "OKName120", edits: []edit{with("name", `"`+strings.Repeat("名", 120)+`"`)}},
		{name: "OKName120Combining", edits: []edit{with("name", `"`+strings.Repeat("e\u0301", 60)+`"`)}},
		{name: "OKNameCombiningMarkOnly", edits: []edit{with("name", `"\u0301"`)}},
		{name: "ErrNameTooLong", edits: []edit{with("name", `"`+strings.Repeat("名", 121)+`"`)},
			want: []want{bad(5, `"名`, "/name", "name", "must be at most 120 characters; got 121")}},
		{name: "ErrNameTooLongEmoji", edits: []edit{with("name", `"`+strings.Repeat("😀", 121)+`"`)},
			want: []want{bad(5, `"😀`, "/name", "name", "must be at most 120 characters; got 121")}},
		{name: "ErrNameBlankIdeographicSpace", edits: []edit{with("name", `"\u3000"`)},
			want: []want{bad(5, `"\u3000"`, "/name", "name", "must not be blank; got \"\u3000\"")}},
		{name: "ErrNameBlankUnicodeSpaces", edits: []edit{with("name", `"\u00a0\u2003\t \u2028"`)},
			want: []want{bad(5, `"\u00a0`, "/name", "name", "must not be blank; got \"\u00a0\u2003\\t \u2028\"")}},
		{name: "ErrProviderNameBlank", edits: []edit{with("provider", `{"name": "\u3000\u00a0"}`)},
			want: []want{bad(9, `"\u3000`, "/provider/name", "provider.name", "must not be blank; got \"\u3000\u00a0\"")}},
		{name: "ErrProviderNameTooLong", edits: []edit{with("provider", `{"name": "`+strings.Repeat("é", 121)+`"}`)},
			want: []want{bad(9, `"é`, "/provider/name", "provider.name", "must be at most 120 characters; got 121")}},

		// 1.2: version.
		{name: "OKVersionPreReleaseAndBuild", edits: []edit{with("version", `"2.0.0-beta.1+build.5"`)}},
		{name: "ErrVersionTwoParts", edits: []edit{with("version", `"1.0"`)},
			want: []want{bad(6, `"1.0"`, "/version", "version", reasonSemVer+`"1.0"`)}},
		{name: "ErrVersionLeadingZero", edits: []edit{with("version", `"01.0.0"`)},
			want: []want{bad(6, `"01.0.0"`, "/version", "version", reasonSemVer+`"01.0.0"`)}},
		{name: "ErrVersionPreReleaseLeadingZero", edits: []edit{with("version", `"1.0.0-01"`)},
			want: []want{bad(6, `"1.0.0-01"`, "/version", "version", reasonSemVer+`"1.0.0-01"`)}},

		// 1.2: description.
		{name: "OKDescription20000", edits: []edit{with("description", `"`+strings.Repeat("é", 20000)+`"`)}},
		{name: "ErrDescriptionTooLong", edits: []edit{with("description", `"`+strings.Repeat("é", 20001)+`"`)},
			want: []want{bad(8, `"é`, "/description", "description", "must be at most 20000 characters; got 20001")}},
		{name: "ErrDescriptionEmpty", edits: []edit{with("description", `""`)},
			want: []want{bad(8, `""`, "/description", "description", "must not be empty")}},

		// 1.2: URLs and email.
		{name: "ErrProviderURLNotHTTP", edits: []edit{with("provider", `{"name": "Acme Weather", "url": "ftp://weather.example.com"}`)},
			want: []want{bad(9, `"ftp:`, "/provider/url", "provider.url", reasonURL+`"ftp://weather.example.com"`)}},
		{name: "ErrEndpointURLNoScheme", edits: []edit{with("endpoint", `{"url": "api.weather.example.com/v2/forecast"}`)},
			want: []want{bad(10, `"api.`, "/endpoint/url", "endpoint.url", reasonURL+`"api.weather.example.com/v2/forecast"`)}},
		{name: "ErrEndpointURLRelative", edits: []edit{with("endpoint", `{"url": "/v2/forecast"}`)},
			want: []want{bad(10, `"/v2`, "/endpoint/url", "endpoint.url", reasonURL+`"/v2/forecast"`)}},
		{name: "ErrTokenURLNotHTTP", edits: []edit{with("auth", `{"type": "oauth2", "token_url": "ftp://auth.example.com/token"}`)},
			want: []want{bad(13, `"ftp:`, "/auth/token_url", "auth.token_url", reasonURL+`"ftp://auth.example.com/token"`)}},
		{name: "ErrAuthorizationURLNotHTTP", edits: []edit{with("auth", `{"type": "oauth2", "token_url": "https://auth.example.com/token", "authorization_url": "auth.example.com/authorize"}`)},
			want: []want{bad(13, `"auth.example.com/authorize"`, "/auth/authorization_url", "auth.authorization_url", reasonURL+`"auth.example.com/authorize"`)}},
		{name: "ErrDocumentationURLNotHTTP", edits: []edit{with("documentation_url", `"docs.example.com/weather"`)},
			want: []want{bad(17, `"docs.`, "/documentation_url", "documentation_url", reasonURL+`"docs.example.com/weather"`)}},
		{name: "ErrProviderEmail", edits: []edit{with("provider", `{"name": "Acme Weather", "email": "skills at example.com"}`)},
			want: []want{bad(9, `"skills at`, "/provider/email", "provider.email", `must be an email address; got "skills at example.com"`)}},

		// 1.2 and 6: inputs and output schemas.
		{name: "ErrInputsTypeArray", edits: []edit{with("inputs", `{"type": "array", "items": {"type": "string"}}`)},
			want: []want{bad(11, `"array"`, "/inputs/type", "inputs.type", `must be "object"; got "array"`)}},
		{name: "ErrInputsNotObject", edits: []edit{with("inputs", `"object"`)},
			want: []want{bad(11, `"object"`, "/inputs", "inputs", `must be an object; got string "object"`)}},
		{name: "ErrInputsBadTypeValue", edits: []edit{with("inputs", `{"type": "object", "properties": {"city": {"type": "strin"}}}`)},
			want: []want{bad(11, `"strin"`, "/inputs/properties/city/type", "inputs.properties.city.type", badSchema+enumTypes+`"strin"; did you mean "string"?`)}},
		{name: "ErrInputsBadPattern", edits: []edit{with("inputs", `{"type": "object", "properties": {"city": {"type": "string", "pattern": "("}}}`)},
			want: []want{bad(11, `"("`, "/inputs/properties/city/pattern", "inputs.properties.city.pattern", badSchema+`must be a valid regex; got "("`)}},
		{name: "ErrInputsExternalRef", edits: []edit{with("inputs", `{"type": "object", "properties": {"city": {"$ref": "https://example.com/city.schema.json"}}}`)},
			want: []want{bad(11, `"https://example.com/city.schema.json"`, "/inputs/properties/city/$ref", "inputs.properties.city.$ref", badSchema+`a "$ref" to "https://example.com/city.schema.json" leaves the schema; a skill's schemas must be self-contained: put shared parts under "$defs" and refer to them as "#/$defs/NAME"`)}},
		{name: "ErrInputsRelativeRefAgainstID", edits: []edit{with("inputs", `{"$id": "https://schemas.example.com/inputs.json", "type": "object", "properties": {"city": {"$ref": "city.json"}}}`)},
			want: []want{bad(11, `"city.json"`, "/inputs/properties/city/$ref", "inputs.properties.city.$ref", badSchema+`a "$ref" to "https://schemas.example.com/city.json" leaves the schema; a skill's schemas must be self-contained: put shared parts under "$defs" and refer to them as "#/$defs/NAME"`)}},
		{name: "ErrInputsUnknownMetaSchema", edits: []edit{with("inputs", `{"$schema": "https://example.com/meta", "type": "object"}`)},
			want: []want{bad(11, "{", "/inputs", "inputs", badSchema+`"$schema" "https://example.com/meta" is not a JSON Schema draft skillcat knows; use "https://json-schema.org/draft/2020-12/schema" or leave it out`)}},
		{name: "ErrInputsRefNotFound", edits: []edit{with("inputs", `{"type": "object", "properties": {"city": {"$ref": "#/$defs/city"}}}`)},
			want: []want{bad(11, `"#/$defs/city"`, "/inputs/properties/city/$ref", "inputs.properties.city.$ref", badSchema+`a "$ref" points to "#/$defs/city", which does not exist in the schema`)}},
		{name: "OKInputsInternalRef", edits: []edit{with("inputs", `{"type": "object", "$defs": {"city": {"type": "string"}}, "properties": {"city": {"$ref": "#/$defs/city"}}}`)}},
		{name: "OKOutputTrue", edits: []edit{with("output", `true`)}},
		{name: "OKOutputFalseWithoutExampleOutput", edits: []edit{with("output", `false`), with("examples", `[{"title": "Berlin", "inputs": {"city": "Berlin"}}]`)}},
		{name: "OKOutputNotObjectSchema", edits: []edit{with("output", `{"type": "array", "items": {"type": "number"}}`), without("examples")}},
		{name: "ErrOutputNotSchema", edits: []edit{with("output", `"object"`)},
			want: []want{bad(12, `"object"`, "/output", "output", `must be a boolean or an object; got string "object"`)}},
		{name: "ErrOutputBadSchema", edits: []edit{with("output", `{"type": 5}`)},
			want: []want{bad(12, "5", "/output/type", "output.type", badSchema+enumTypes+"5")}},

		// 1.2: auth members per type.
		{name: "ErrAPIKeyMissingIn", edits: []edit{with("auth", `{"type": "api_key", "name": "X-Api-Key"}`)},
			want: []want{bad(13, "{", "/auth/in", "auth.in", `required when auth.type is "api_key"`)}},
		{name: "ErrAPIKeyMissingName", edits: []edit{with("auth", `{"type": "api_key", "in": "query"}`)},
			want: []want{bad(13, "{", "/auth/name", "auth.name", `required when auth.type is "api_key"`)}},
		{name: "ErrAPIKeyMissingInAndName", edits: []edit{with("auth", `{"type": "api_key"}`)},
			want: []want{bad(13, "{", "/auth/in", "auth.in", `required when auth.type is "api_key"`), bad(13, "{", "/auth/name", "auth.name", `required when auth.type is "api_key"`)}},
		{name: "ErrOAuth2MissingTokenURL", edits: []edit{with("auth", `{"type": "oauth2", "scopes": {"forecast:read": "Read forecasts"}}`)},
			want: []want{bad(13, "{", "/auth/token_url", "auth.token_url", `required when auth.type is "oauth2"`)}},
		{name: "OKOAuth2", edits: []edit{with("auth", `{"type": "oauth2", "token_url": "https://auth.example.com/token", "authorization_url": "https://auth.example.com/authorize", "scopes": {"forecast:read": "Read forecasts", "読み取り": ""}}`)}},
		{name: "ErrOAuth2ScopeNotString", edits: []edit{with("auth", `{"type": "oauth2", "token_url": "https://auth.example.com/token", "scopes": {"read": true}}`)},
			want: []want{bad(13, "true", "/auth/scopes/read", "auth.scopes.read", "must be a string; got boolean true")}},
		{name: "ErrCustomMissingInstructions", edits: []edit{with("auth", `{"type": "custom"}`)},
			want: []want{bad(13, "{", "/auth/instructions", "auth.instructions", `required when auth.type is "custom"`)}},
		{name: "OKCustom", edits: []edit{with("auth", `{"type": "custom", "instructions": "Ask **ops** for a token."}`)}},
		{name: "OKNone", edits: []edit{with("auth", `{"type": "none"}`)}},

		// 1.2 and 6: restricted needs authentication; reported at access.
		{name: "ErrRestrictedWithNone", edits: []edit{with("auth", `{"type": "none"}`), with("access", `"restricted"`)},
			want: []want{bad(14, `"restricted"`, "/access", "access", `must not be "restricted" when auth.type is "none"`)}},
		{name: "OKRestrictedWithAPIKey", edits: []edit{with("access", `"restricted"`)}},
		{name: "OKPrivateWithNone", edits: []edit{with("auth", `{"type": "none"}`), with("access", `"private"`)}},

		// 1.2: tags.
		{name: "OKTags20", edits: []edit{with("tags", tags(20))}},
		{name: "OKTagsEmpty", edits: []edit{with("tags", `[]`)}},
		{name: "ErrTagsTooMany", edits: []edit{with("tags", tags(21))},
			want: []want{bad(15, "[", "/tags", "tags", "must have at most 20 items; got 21")}},
		{name: "ErrTagsDuplicate", edits: []edit{with("tags", `["weather", "forecast", "weather"]`)},
			want: []want{bad(15, "[", "/tags", "tags", `must not repeat "weather" (items 0 and 2 are equal)`)}},
		{name: "ErrTagPattern", edits: []edit{with("tags", `["weather", "Forecast"]`)},
			want: []want{bad(15, `"Forecast"`, "/tags/1", "tags[1]", reasonTag+`"Forecast"`)}},
		{name: "ErrTagTooLong", edits: []edit{with("tags", `["`+strings.Repeat("a", 33)+`"]`)},
			want: []want{bad(15, `"a`, "/tags/0", "tags[0]", reasonTag+`"`+strings.Repeat("a", 33)+`"`)}},

		// 1.2: examples against inputs and output.
		{name: "ErrExampleInputs", edits: []edit{with("examples", `[{"title": "Berlin", "inputs": {"city": 42}}]`)},
			want: []want{bad(16, "42", "/examples/0/inputs/city", "examples[0].inputs.city", "must be a string; got number 42")}},
		{name: "ErrExampleInputsMissingRequired", edits: []edit{with("examples", `[{"title": "Berlin", "inputs": {"days": 3}}]`)},
			want: []want{bad(16, `{"days"`, "/examples/0/inputs/city", "examples[0].inputs.city", "required member is missing")}},
		{name: "ErrExampleInputsSecond", edits: []edit{with("examples", `[{"title": "Berlin", "inputs": {"city": "Berlin"}}, {"title": "Paris", "inputs": {"city": "Paris", "days": 15}}]`)},
			want: []want{bad(16, "15", "/examples/1/inputs/days", "examples[1].inputs.days", "must be at most 14; got 15")}},
		{name: "ErrExampleInputsNotObject", edits: []edit{with("examples", `[{"title": "Berlin", "inputs": "Berlin"}]`)},
			want: []want{bad(16, `"Berlin"}`, "/examples/0/inputs", "examples[0].inputs", `must be an object; got string "Berlin"`)}},
		{name: "ErrExampleOutput", edits: []edit{with("examples", `[{"title": "Berlin", "inputs": {"city": "Berlin"}, "output": {"hourly": "none"}}]`)},
			want: []want{bad(16, `"none"`, "/examples/0/output/hourly", "examples[0].output.hourly", `must be an array; got string "none"`)}},
		{name: "ErrExampleOutputAgainstFalse", edits: []edit{with("output", `false`)},
			want: []want{bad(16, `{"hourly"`, "/examples/0/output", "examples[0].output", "is not allowed here")}},
		{name: "ErrExampleInputsPropertyNameNeedsQuoting", edits: []edit{
			with("inputs", `{"type": "object", "properties": {"a b": {"type": "string"}, "q/a": {"type": "integer"}}}`),
			with("examples", `[{"title": "t", "inputs": {"a b": 3, "q/a": "x"}}]`)},
			want: []want{
				bad(16, "3", "/examples/0/inputs/a b", `examples[0].inputs["a b"]`, "must be a string; got number 3"),
				bad(16, `"x"`, "/examples/0/inputs/q~1a", `examples[0].inputs["q/a"]`, `must be an integer; got string "x"`),
			}},

		// 3 and 6: a member twice in one object.
		{name: "ErrDuplicateMember", edits: []edit{after("id", member{"id", `"weather.other"`})},
			want: []want{bad(5, `"id"`, "/id", "id", `member "id" appears more than once in this object`)}},
		{name: "ErrDuplicateMemberNested", edits: []edit{with("auth", `{"type": "api_key", "in": "header", "name": "X-Api-Key", "in": "query"}`)},
			want: []want{bad(13, `"in": "query"`, "/auth/in", "auth.in", `member "in" appears more than once in this object`)}},

		// 3: every violation is reported, in order of position.
		{name: "ErrSeveral", edits: []edit{with("id", `"Bad Id"`), with("capability_type", `"API"`), with("auth", `{"type": "oauth2"}`)},
			want: []want{
				bad(4, `"Bad Id"`, "/id", "id", reasonID+`"Bad Id"`),
				bad(7, `"API"`, "/capability_type", "capability_type", enumCap+`"API"; did you mean "api"?`),
				bad(13, "{", "/auth/token_url", "auth.token_url", `required when auth.type is "oauth2"`),
			}},

		// 1.1 and 2: protocol version.
		{name: "ErrProtocolVersionPattern", edits: []edit{with("protocol", `{"version": "1.0"}`)},
			want: []want{bad(3, `"1.0"`, "/protocol/version", "protocol.version", reasonProtocol+`"1.0"`)}},
		{name: "ErrProtocolVersionPrefix", edits: []edit{with("protocol", `{"version": "v1.0.0"}`)},
			want: []want{bad(3, `"v1.0.0"`, "/protocol/version", "protocol.version", reasonProtocol+`"v1.0.0"`)}},
		{name: "ErrProtocolNotObject", edits: []edit{with("protocol", `"1.0.0"`)},
			want: []want{bad(3, `"1.0.0"`, "/protocol", "protocol", `must be an object; got string "1.0.0"`)}},
		{name: "OKProtocolNewerMinor", edits: []edit{with("protocol", `{"version": "1.99.7", "extensions": ["streaming"]}`)}},
		{name: "OKProtocolOlderMajor", edits: []edit{with("protocol", `{"version": "0.9.0"}`)}},
		{name: "ErrIncompatibleVersion", edits: []edit{with("protocol", `{"version": "2.0.0"}`)},
			want: []want{bad(3, `"2.0.0"`, "/protocol/version", "protocol.version", "incompatible protocol version 2.0.0 (supported: 1.x)")}},
		{name: "ErrIncompatibleVersionNothingElse", edits: []edit{
			with("protocol", `{"version": "10.4.2"}`), without("name"), with("id", `"Bad Id"`), with("auth", `{"type": "oauth2"}`),
			after("id", member{"id", `1`}), with("capabilty_type", `"api"`)},
			want: []want{bad(3, `"10.4.2"`, "/protocol/version", "protocol.version", "incompatible protocol version 10.4.2 (supported: 1.x)")}},

		// 1.2: unknown members are allowed; typos draw a warning.
		{name: "OKExtensionMembers", edits: []edit{
			with("x-pricing", `{"per_call": 0.0001}`), with("x-", `1`), with("x-capabilty_type", `"api"`),
			with("provider", `{"name": "Acme Weather", "x-logo": "logo.svg"}`),
			with("auth", `{"type": "api_key", "in": "header", "name": "X-Api-Key", "x-rotate": true}`),
			with("examples", `[{"title": "Berlin", "inputs": {"city": "Berlin"}, "x-note": "cached"}]`)}},
		{name: "WarnWindowsDeviceID", edits: []edit{with("id", `"nul.backup"`)},
			want: []want{warning(4, `"nul.backup"`, "/id", "id", `"nul.backup" is a device name on Windows (NUL), where the files named after the id (skills/nul.backup.json, skills/nul.backup/) cannot be made or checked out; choose another id`)}},
		{name: "OKDeviceNameLater", edits: []edit{with("id", `"acme.con"`)}},
		{name: "WarnUserInfo", edits: []edit{with("endpoint", `{"url": "https://ci:hunter2@api.example.com/x"}`)},
			want: []want{warning(10, `"https://ci:hunter2@api.example.com/x"`, "/endpoint/url", "endpoint.url", "holds a password (ci:…@), which is published with the descriptor; give credentials where auth.type says, never in a URL")}},
		{name: "OKUserNameOnly", edits: []edit{with("endpoint", `{"url": "https://ci@api.example.com/x"}`)}},
		{name: "WarnUnknownMembers", edits: []edit{
			with("sunset_at", `"2027-01-01"`),
			with("provider", `{"name": "Acme Weather", "homepage": "https://acme.example"}`),
			with("endpoint", `{"url": "https://api.weather.example.com/v2/forecast", "timeout_ms": 30000}`)},
			want: []want{
				warning(9, `"homepage"`, "/provider/homepage", "provider.homepage", `"homepage" is not a member of provider in protocol 1.0.0; if it is an extension of your own, name it "x-homepage"`),
				warning(10, `"timeout_ms"`, "/endpoint/timeout_ms", "endpoint.timeout_ms", `"timeout_ms" is not a member of endpoint in protocol 1.0.0; if it is an extension of your own, name it "x-timeout_ms"`),
				warning(18, `"sunset_at"`, "/sunset_at", "sunset_at", `"sunset_at" is not a descriptor member in protocol 1.0.0; if it is an extension of your own, name it "x-sunset_at"`)}},
		{name: "OKUnknownMembersOfNewerMinor", edits: []edit{
			with("protocol", `{"version": "1.3.0", "extensions": ["streaming"]}`), with("sunset_at", `"2027-01-01"`),
			with("provider", `{"name": "Acme Weather", "homepage": "https://acme.example"}`)}},
		{name: "WarnTypoTopLevel", edits: []edit{with("capabilty_type", `"api"`)},
			want: []want{warning(18, `"capabilty_type"`, "/capabilty_type", "capabilty_type", `unknown member "capabilty_type"; did you mean "capability_type"?`)}},
		{name: "WarnTypoInsteadOfRequired", edits: []edit{without("capability_type"), with("capabilty_type", `"api"`)},
			want: []want{missing("capability_type"), warning(17, `"capabilty_type"`, "/capabilty_type", "capabilty_type", `unknown member "capabilty_type"; did you mean "capability_type"?`)}},
		{name: "WarnTypoNested", edits: []edit{with("auth", `{"type": "api_key", "in": "header", "name": "X-Api-Key", "nmae": "x"}`)},
			want: []want{warning(13, `"nmae"`, "/auth/nmae", "auth.nmae", `unknown member "nmae"; did you mean "name"?`)}},
		{name: "WarnTypoExample", edits: []edit{with("examples", `[{"title": "Berlin", "inputs": {"city": "Berlin"}, "ouptut": {"hourly": []}}]`)},
			want: []want{warning(16, `"ouptut"`, "/examples/0/ouptut", "examples[0].ouptut", `unknown member "ouptut"; did you mean "output"?`)}},

		// 5b: unknown members anywhere say where they probably belong.
		{name: "WarnMemberBelongsInInputs", edits: []edit{with("required", `["city"]`), with("additionalProperties", `false`)},
			want: []want{
				warning(18, `"required"`, "/required", "required", `"required" is not a descriptor member; did you mean "inputs.required"?`),
				warning(19, `"additionalProperties"`, "/additionalProperties", "additionalProperties", `"additionalProperties" is not a descriptor member; did you mean "inputs.additionalProperties"?`)}},
		{name: "WarnMemberBelongsInAnotherObject", edits: []edit{
			with("provider", `{"name": "Acme Weather", "method": "GET"}`), with("token_url", `"https://auth.example.com/token"`)},
			want: []want{
				warning(9, `"method"`, "/provider/method", "provider.method", `"method" is not a member of provider; did you mean "endpoint.method"?`),
				warning(18, `"token_url"`, "/token_url", "token_url", `"token_url" is not a descriptor member; did you mean "auth.token_url"?`)}},
		{name: "WarnMemberOfSeveralObjects", edits: []edit{with("url", `"https://acme.example"`)},
			want: []want{warning(18, `"url"`, "/url", "url", `"url" is not a descriptor member; did you mean "endpoint.url" or "provider.url"?`)}},
		{name: "WarnMemberInExample", edits: []edit{with("examples", `[{"title": "Berlin", "inputs": {"city": "Berlin"}, "access": "public"}]`)},
			want: []want{warning(16, `"access"`, "/examples/0/access", "examples[0].access", `"access" is not a member of examples[]; did you mean the top-level "access"?`)}},

		// 5c: JSON Schema keywords that draft 2020-12 does not define.
		{name: "WarnSchemaNullable", edits: []edit{with("inputs", `{"type": "object", "properties": {"city": {"type": "string", "nullable": true}}}`)},
			want: []want{warning(11, `"nullable"`, "/inputs/properties/city/nullable", "inputs.properties.city.nullable", `"nullable" is an OpenAPI keyword that JSON Schema 2020-12 ignores; allow null in "type" instead: "type": ["string", "null"]`)}},
		{name: "WarnSchemaExample", edits: []edit{with("output", `{"type": "object", "example": {"hourly": []}}`)},
			want: []want{warning(12, `"example"`, "/output/example", "output.example", `"example" is an OpenAPI keyword that JSON Schema 2020-12 ignores; use "examples", an array: "examples": [{"hourly":[]}]`)}},
		{name: "WarnSchemaDefinitions", edits: []edit{with("inputs", `{"type": "object", "definitions": {"c": {"type": "string", "minLenght": 1}}}`)},
			want: []want{
				warning(11, `"definitions"`, "/inputs/definitions", "inputs.definitions", `"definitions" is the draft-07 name; JSON Schema 2020-12 calls it "$defs" (and "$ref": "#/$defs/NAME")`),
				warning(11, `"minLenght"`, "/inputs/definitions/c/minLenght", "inputs.definitions.c.minLenght", `unknown JSON Schema keyword "minLenght"; JSON Schema 2020-12 ignores it; did you mean "minLength"?`)}},
		{name: "WarnSchemaUnknownKeyword", edits: []edit{with("inputs", `{"type": "object", "properties": {"city": {"type": "string", "widget": "text"}}, "x-order": ["city"]}`)},
			want: []want{warning(11, `"widget"`, "/inputs/properties/city/widget", "inputs.properties.city.widget", `unknown JSON Schema keyword "widget"; JSON Schema 2020-12 ignores it; if it is an annotation of your own, name it "x-widget"`)}},
		{name: "OKSchemaOtherDraft", edits: []edit{with("inputs", `{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "definitions": {"c": {"type": "string"}}}`)}},
		{name: "OKSchemaPropertyNamedLikeKeyword", edits: []edit{with("inputs", `{"type": "object", "properties": {"nullable": {"type": "boolean"}, "example": {"type": "string"}}}`)}},

		// 5d: placeholders skillcat new wrote.
		{name: "WarnPlaceholders", edits: []edit{
			with("description", `"Replace this sentence with one that says what Weather Forecast does: this first paragraph is the summary."`),
			with("provider", `{"name": "Your Organisation", "url": "https://your-organisation.example.com", "email": "skills@your-organisation.example.com"}`),
			with("endpoint", `{"url": "https://api.example.com/skills/weather.forecast"}`),
			with("documentation_url", `"https://your-organisation.example.com/docs/weather.forecast"`)},
			want: []want{
				warning(8, `"Replace`, "/description", "description", "still holds the placeholder skillcat new wrote; replace the first paragraph with what the skill does: it is the summary shown in the catalog and the index"),
				warning(9, `"Your`, "/provider/name", "provider.name", "still holds the placeholder skillcat new wrote; give your organisation's name"),
				warning(9, `"https://your`, "/provider/url", "provider.url", "still holds the placeholder skillcat new wrote; give your organisation's web site, or remove the member"),
				warning(9, `"skills@`, "/provider/email", "provider.email", "still holds the placeholder skillcat new wrote; give an address that reaches you, or remove the member"),
				warning(10, `"https://api.example.com`, "/endpoint/url", "endpoint.url", "still holds the placeholder skillcat new wrote; give the URL your skill is served at"),
				warning(17, `"https://your`, "/documentation_url", "documentation_url", "still holds the placeholder skillcat new wrote; link your skill's documentation, or remove the member")}},
		{name: "WarnImportPlaceholderServer", edits: []edit{with("endpoint", `{"url": "https://server.placeholder.invalid/v2/pets"}`)},
			want: []want{warning(10, `"https://server`, "/endpoint/url", "endpoint.url", "still holds the placeholder server skillcat import wrote (the document gave no absolute server URL); give the URL your skill is served at, or import again with --server URL")}},

		// 6: file-level problems.
		{name: "ErrFileEmpty", src: []byte{}, want: []want{fileErr(1, 1, "file is empty: expected a JSON object")}},
		{name: "ErrFileWhitespaceOnly", src: []byte(" \n\t\r\n  "), want: []want{fileErr(1, 1, "file is empty: expected a JSON object")}},
		{name: "ErrFileNotUTF8", src: []byte("{\n  \"name\": \"caf\xe9\"\n}"), want: []want{fileErr(2, 15, "file is not valid UTF-8 (byte 0xe9); save it as UTF-8")}},
		{name: "ErrFileNotUTF8AfterMultibyte", src: []byte("{\"n\": \"日本\xff\"}"), want: []want{fileErr(1, 10, "file is not valid UTF-8 (byte 0xff); save it as UTF-8")}},
		{name: "ErrFileNotUTF8OutsideString", src: []byte("{\"a\": 1}\n\xc3"), want: []want{fileErr(2, 1, "file is not valid UTF-8 (byte 0xc3); save it as UTF-8")}},
		{name: "ErrFileArray", src: []byte(`[{"id": "a"}]`), want: []want{fileErr(1, 1, "must be a JSON object; got an array")}},
		{name: "ErrFileArrayIndented", src: []byte("\n\n   [1]\n"), want: []want{fileErr(3, 4, "must be a JSON object; got an array")}},
		{name: "ErrFileString", src: []byte(`"skill"`), want: []want{fileErr(1, 1, `must be a JSON object; got string "skill"`)}},
		{name: "ErrFileNull", src: []byte(`null`), want: []want{fileErr(1, 1, "must be a JSON object; got null")}},
		{name: "ErrSyntaxTrailingComma", src: []byte(`{"id": "x",}`),
			want: []want{fileErr(1, 12, `invalid JSON: unexpected '}', expected a member name in double quotes`)}},
		{name: "ErrSyntaxAfterMultibyte", src: []byte(`{"name": "日本語" "id": 1}`),
			want: []want{fileErr(1, 16, `invalid JSON: unexpected '"', expected ',' or '}' after object member`)}},
		{name: "ErrSyntaxAfterEmoji", src: []byte(`{"x": "😀😀", "y": tru}`),
			want: []want{fileErr(1, 18, `invalid JSON: unexpected 't', expected a value`)}},
		{name: "ErrSyntaxMissingValue", src: []byte("{\n  \"a\": 1,\n  \"b\": \n}"),
			want: []want{fileErr(4, 1, `invalid JSON: unexpected '}', expected a value`)}},
		{name: "ErrSyntaxCRLF", src: []byte("{\r\n  \"a\": ?\r\n}"),
			want: []want{fileErr(2, 8, `invalid JSON: unexpected '?', expected a value`)}},
		{name: "ErrSyntaxInBase", edits: []edit{with("inputs", `{"type": "object",}`)},
			want: []want{fileErr(11, 31, `invalid JSON: unexpected '}', expected a member name in double quotes`)}},
		{name: "ErrSyntaxUnclosedString", src: []byte(`{"name": "abc`),
			want: []want{fileErr(1, 10, `invalid JSON: string is never closed: missing '"'`)}},
		{name: "ErrSyntaxControlCharacter", src: []byte("{\"a\": \"x\ty\"}"),
			want: []want{fileErr(1, 9, `invalid JSON: control character 0x09 in string: write it as an escape such as \n`)}},
		{name: "ErrSyntaxLoneSurrogate", src: []byte(`{"a": "ab\ud800"}`),
			want: []want{fileErr(1, 10, `invalid JSON: lone surrogate \ud800 in string escape`)}},
		{name: "ErrSyntaxNumber", src: []byte(`{"a": 01}`),
			want: []want{fileErr(1, 8, `invalid JSON: unexpected '1', expected ',' or '}' after object member`)}},
		{name: "ErrTrailingGarbage", src: []byte(`{} x`),
			want: []want{fileErr(1, 4, `invalid JSON: unexpected 'x' after the end of the document`)}},
		{name: "ErrTrailingSecondDocument", src: []byte("{}\n{}\n"),
			want: []want{fileErr(2, 1, `invalid JSON: unexpected '{' after the end of the document`)}},
		{name: "OKNestedMaxDepth", edits: []edit{with("x-deep", deep(skillcat.MaxDepth-1))}},
		{name: "ErrNestedTooDeep", edits: []edit{with("x-deep", deep(skillcat.MaxDepth))},
			want: []want{fileErr(18, 13+skillcat.MaxDepth-1, "invalid JSON: nested more than 256 levels deep")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := c.src
			if src == nil {
				src = build(baseDescriptor, c.edits...)
			}
			d, vs := skillcat.ParseDescriptor("skill.json", src)
			checkViolations(t, "skill.json", src, vs, c.want)
			if vs.HasErrors() != (d == nil) {
				t.Errorf("got descriptor %v with errors %v, want a descriptor exactly when there is no error", d != nil, vs.HasErrors())
			}
			if (vs.Err() == nil) != !vs.HasErrors() {
				t.Errorf("Err(): got %v, want nil exactly when there is no error", vs.Err())
			}
		})
	}
}

func TestIncompatibleVersionIsDistinct(t *testing.T) {
	// The last two are beyond a uint64: still above 1, never processed.
	for _, version := range []string{"2.0.0", "3.1.4", "18446744073709551615.0.0", "18446744073709551616.0.0", "123456789012345678901234567890.1.2"} {
		t.Run(version, func(t *testing.T) {
			src := build(baseDescriptor, with("protocol", `{"version": "`+version+`"}`), without("id"))
			d, vs := skillcat.ParseDescriptor("skill.json", src)
			if d != nil {
				t.Fatalf("got a descriptor, want none")
			}
			err := vs.Err()
			if !errors.Is(err, skillcat.ErrIncompatibleVersion) {
				t.Fatalf("errors.Is(%v, ErrIncompatibleVersion): got false, want true", err)
			}
			var ive *skillcat.IncompatibleVersionError
			if !errors.As(err, &ive) || ive.Supported != skillcat.SupportedMajor || ive.Version.String() != version {
				t.Fatalf("errors.As(IncompatibleVersionError): got %+v, want version %s and supported %d", ive, version, skillcat.SupportedMajor)
			}
			if got, want := err.Error(), "skill.json:3:27: protocol.version: incompatible protocol version "+version+" (supported: 1.x)"; got != want {
				t.Errorf("Error(): got %q, want %q", got, want)
			}
		})
	}
}

// TestSchemasNeverFetched checks that a $ref to a URL is refused without a
// request ever reaching it.
func TestSchemasNeverFetched(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/schema+json")
		fmt.Fprint(w, `{"type": "string"}`)
	}))
	defer srv.Close()
	for _, inputs := range []string{
		`{"type": "object", "properties": {"city": {"$ref": "` + srv.URL + `/city.json"}}}`,
		`{"$schema": "` + srv.URL + `/meta.json", "type": "object"}`,
		`{"$id": "` + srv.URL + `/inputs.json", "type": "object", "properties": {"city": {"$ref": "city.json"}}}`,
	} {
		_, vs := skillcat.ParseDescriptor("skill.json", build(baseDescriptor, with("inputs", inputs)))
		if len(vs) != 1 || !strings.HasPrefix(vs[0].Field, "inputs") || !(strings.Contains(vs[0].Reason, "must be self-contained") || strings.Contains(vs[0].Reason, "is not a JSON Schema draft skillcat knows")) {
			t.Errorf("inputs %s: got %v, want one violation at inputs saying schemas must be self-contained", inputs, vs)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("got %d requests to the schema server, want none", n)
	}
}

// baseIndex is a valid SkillIndex: line 2 protocol, 3 skills.
var baseIndex = []member{
	{"protocol", `{"version": "1.0.0"}`},
	{"skills", `[` + indexEntry("weather.forecast") + `, ` + indexEntry("weather.radar") + `]`},
}

func indexEntry(id string, edits ...string) string {
	members := []string{`"id": "` + id + `"`, `"name": "Weather"`, `"version": "2.3.1"`, `"capability_type": "api"`, `"access": "public"`,
		`"summary": "Hourly forecasts."`, `"descriptor_url": "../skills/` + id + `.json"`, `"digest": "` + digest0 + `"`}
	for _, e := range edits {
		name, _, _ := strings.Cut(e, ":")
		i := slices.IndexFunc(members, func(m string) bool { return strings.HasPrefix(m, name+":") })
		switch {
		case i < 0:
			members = append(members, e)
		case !strings.Contains(e, ": "):
			members = slices.Delete(members, i, i+1) // a bare name removes the member
		default:
			members[i] = e
		}
	}
	return "{" + strings.Join(members, ", ") + "}"
}

func TestIndexRules(t *testing.T) {
	skills := func(entries ...string) edit { return with("skills", "["+strings.Join(entries, ", ")+"]") }
	entry0 := "/skills/0/"
	cases := []ruleCase{
		{name: "OK"},
		{name: "OKEmpty", edits: []edit{skills()}},
		{name: "OKEmptySummary", edits: []edit{skills(indexEntry("a", `"summary": ""`))}},
		{name: "OKUnknownMembers", edits: []edit{with("x-generator", `"skillcat"`), skills(indexEntry("a", `"x-rank": 1`))}},
		{name: "ErrMissingProtocol", edits: []edit{without("protocol")}, want: []want{missing("protocol")}},
		{name: "ErrMissingSkills", edits: []edit{without("skills")}, want: []want{missing("skills")}},
		{name: "ErrMissingEntryDigest", edits: []edit{skills(indexEntry("a", `"digest"`))},
			want: []want{bad(3, "{", entry0+"digest", "skills[0].digest", "required member is missing")}},
		{name: "ErrMissingEntrySummary", edits: []edit{skills(indexEntry("a", `"summary"`))},
			want: []want{bad(3, "{", entry0+"summary", "skills[0].summary", "required member is missing")}},
		{name: "ErrPrivateListed", edits: []edit{skills(indexEntry("a", `"access": "private"`))},
			want: []want{bad(3, `"private"`, entry0+"access", "skills[0].access", `must be one of "public", "restricted"; got "private"`)}},
		{name: "ErrDigest", edits: []edit{skills(indexEntry("a", `"digest": "sha256:ABC"`))},
			want: []want{bad(3, `"sha256:ABC"`, entry0+"digest", "skills[0].digest", `must be "sha256:" followed by 64 lowercase hex digits; got "sha256:ABC"`)}},
		{name: "ErrSummaryTooLong", edits: []edit{skills(indexEntry("a", `"summary": "`+strings.Repeat("…", 201)+`"`))},
			want: []want{bad(3, `"…`, entry0+"summary", "skills[0].summary", "must be at most 200 characters; got 201")}},
		{name: "ErrDescriptorURLSpace", edits: []edit{skills(indexEntry("a", `"descriptor_url": "../skills/a b.json"`))},
			want: []want{bad(3, `"../skills/a b.json"`, entry0+"descriptor_url", "skills[0].descriptor_url", `must be a URI reference without spaces; got "../skills/a b.json"`)}},
		{name: "ErrEntryID", edits: []edit{skills(indexEntry("A"))},
			want: []want{bad(3, `"A"`, entry0+"id", "skills[0].id", reasonID+`"A"`)}},
		{name: "ErrDuplicateID", edits: []edit{skills(indexEntry("a"), indexEntry("b"), indexEntry("a", `"version": "2.0.0"`))},
			want: []want{{line: 3, col: 3 + utf8.RuneCountInString(`"skills": [`+indexEntry("a")+", "+indexEntry("b")+`, {"id": `), pointer: "/skills/2/id", field: "skills[2].id", reason: `id "a" is listed twice (also at skills[0])`}}},
		{name: "ErrIncompatibleVersion", edits: []edit{with("protocol", `{"version": "2.1.0"}`), skills(indexEntry("a"), indexEntry("a"))},
			want: []want{bad(2, `"2.1.0"`, "/protocol/version", "protocol.version", "incompatible protocol version 2.1.0 (supported: 1.x)")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := build(baseIndex, c.edits...)
			x, vs := skillcat.ParseIndex("skills.json", src)
			checkViolations(t, "skills.json", src, vs, c.want)
			if vs.HasErrors() != (x == nil) {
				t.Errorf("got index %v with errors %v, want an index exactly when there is no error", x != nil, vs.HasErrors())
			}
		})
	}
}

// baseRequest is a valid InvocationRequest: line 2 caller, 3 skill_id,
// 4 inputs, 5 protocol, 6 request_id, 7 context.
var baseRequest = []member{
	{"caller", `{"id": "agent-7", "type": "agent"}`},
	{"skill_id", `"weather.forecast"`},
	{"inputs", `{"city": "Berlin"}`},
	{"protocol", `{"version": "1.0.0"}`},
	{"request_id", `"req-1"`},
	{"context", `{"locale": "de-DE"}`},
}

func TestRequestRules(t *testing.T) {
	cases := []ruleCase{
		{name: "OK"},
		{name: "OKMinimal", edits: []edit{without("protocol"), without("request_id"), without("context")}},
		{name: "OKCallerID256", edits: []edit{with("caller", `{"id": "`+strings.Repeat("😀", 256)+`", "type": "user"}`)}},
		{name: "ErrMissingCaller", edits: []edit{without("caller")}, want: []want{missing("caller")}},
		{name: "ErrMissingSkillID", edits: []edit{without("skill_id")}, want: []want{missing("skill_id")}},
		{name: "ErrMissingInputs", edits: []edit{without("inputs")}, want: []want{missing("inputs")}},
		{name: "ErrMissingCallerID", edits: []edit{with("caller", `{"type": "agent"}`)},
			want: []want{bad(2, "{", "/caller/id", "caller.id", "required member is missing")}},
		{name: "ErrMissingCallerType", edits: []edit{with("caller", `{"id": "agent-7"}`)},
			want: []want{bad(2, "{", "/caller/type", "caller.type", "required member is missing")}},
		{name: "ErrCallerType", edits: []edit{with("caller", `{"id": "agent-7", "type": "robot"}`)},
			want: []want{bad(2, `"robot"`, "/caller/type", "caller.type", `must be one of "user", "agent", "service"; got "robot"`)}},
		{name: "ErrCallerIDEmpty", edits: []edit{with("caller", `{"id": "", "type": "agent"}`)},
			want: []want{bad(2, `""`, "/caller/id", "caller.id", "must not be empty")}},
		{name: "ErrCallerIDTooLong", edits: []edit{with("caller", `{"id": "`+strings.Repeat("😀", 257)+`", "type": "user"}`)},
			want: []want{bad(2, `"😀`, "/caller/id", "caller.id", "must be at most 256 characters; got 257")}},
		{name: "ErrSkillID", edits: []edit{with("skill_id", `"Weather Forecast"`)},
			want: []want{bad(3, `"Weather`, "/skill_id", "skill_id", reasonID+`"Weather Forecast"`)}},
		{name: "ErrInputsNotObject", edits: []edit{with("inputs", `["Berlin"]`)},
			want: []want{bad(4, "[", "/inputs", "inputs", "must be an object; got an array")}},
		{name: "ErrProtocolVersion", edits: []edit{with("protocol", `{"version": "1"}`)},
			want: []want{bad(5, `"1"`, "/protocol/version", "protocol.version", reasonProtocol+`"1"`)}},
		{name: "ErrRequestIDEmpty", edits: []edit{with("request_id", `""`)},
			want: []want{bad(6, `""`, "/request_id", "request_id", "must not be empty")}},
		{name: "ErrContextNotObject", edits: []edit{with("context", `"de-DE"`)},
			want: []want{bad(7, `"de-DE"`, "/context", "context", `must be an object; got string "de-DE"`)}},
		{name: "ErrIncompatibleVersion", edits: []edit{with("protocol", `{"version": "2.0.0"}`), without("inputs")},
			want: []want{bad(4, `"2.0.0"`, "/protocol/version", "protocol.version", "incompatible protocol version 2.0.0 (supported: 1.x)")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := build(baseRequest, c.edits...)
			r, vs := skillcat.ParseRequest("request.json", src)
			checkViolations(t, "request.json", src, vs, c.want)
			if vs.HasErrors() != (r == nil) {
				t.Errorf("got request %v with errors %v, want a request exactly when there is no error", r != nil, vs.HasErrors())
			}
		})
	}
}

func TestRequestValidateInputs(t *testing.T) {
	d, vs := skillcat.ParseDescriptor("skill.json", build(baseDescriptor))
	if d == nil {
		t.Fatalf("ParseDescriptor: %v", vs)
	}
	for _, c := range []struct {
		name, skillID, inputs, want string
	}{
		{"OK", "weather.forecast", `{"city": "Berlin", "days": 3}`, ""},
		{"ErrInputs", "weather.forecast", `{"days": 30}`, "request:1:1: inputs.city: required member is missing\nrequest:1:9: inputs.days: must be at most 14; got 30"},
		{"ErrSkillID", "weather.radar", `{"city": "Berlin"}`, `request: skill_id: must be "weather.forecast", the id of the skill called; got "weather.radar"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, vs := skillcat.ParseRequest("request.json", build(baseRequest, with("skill_id", quoteJSON(c.skillID)), with("inputs", c.inputs)))
			if r == nil {
				t.Fatalf("ParseRequest: %v", vs)
			}
			err := r.ValidateInputs(d)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != c.want {
				t.Errorf("ValidateInputs: got %q, want %q", got, c.want)
			}
		})
	}
}

// baseResponse is a valid succeeded InvocationResponse: line 2
// execution_id, 3 status, 4 skill_id, 5 timestamps, 6 output.
var baseResponse = []member{
	{"execution_id", `"exec-1"`},
	{"status", `"succeeded"`},
	{"skill_id", `"weather.forecast"`},
	{"timestamps", `{"created_at": "2026-01-31T09:30:00Z", "started_at": "2026-01-31T10:30:01+01:00", "completed_at": "2026-01-31T09:30:02.5Z"}`},
	{"output", `{"hourly": []}`},
}

func TestResponseRules(t *testing.T) {
	const created = `{"created_at": "2026-01-31T09:30:00Z"}`
	cases := []ruleCase{
		{name: "OK"},
		{name: "OKAccepted", edits: []edit{with("status", `"accepted"`), with("timestamps", created), without("output")}},
		{name: "OKRunning", edits: []edit{with("status", `"running"`), with("timestamps", `{"created_at": "2026-01-31T09:30:00Z", "started_at": "2026-01-31T09:30:00Z"}`), without("output")}},
		{name: "OKFailed", edits: []edit{with("status", `"failed"`), without("output"), with("error", `{"code": "upstream_timeout", "message": "The forecast service did not answer."}`)}},
		{name: "OKCancelled", edits: []edit{with("status", `"cancelled"`), without("output")}},
		{name: "OKOutputNull", edits: []edit{with("output", `null`)}},
		{name: "ErrMissingExecutionID", edits: []edit{without("execution_id")}, want: []want{missing("execution_id")}},
		{name: "ErrMissingStatus", edits: []edit{without("status")}, want: []want{missing("status")}},
		{name: "ErrMissingSkillID", edits: []edit{without("skill_id")}, want: []want{missing("skill_id")}},
		{name: "ErrMissingTimestamps", edits: []edit{without("timestamps")}, want: []want{missing("timestamps")}},
		{name: "ErrMissingCreatedAt", edits: []edit{with("status", `"accepted"`), with("timestamps", `{}`), without("output")},
			want: []want{bad(5, "{", "/timestamps/created_at", "timestamps.created_at", "required member is missing")}},
		{name: "ErrMissingCompletedAtSucceeded", edits: []edit{with("timestamps", created)},
			want: []want{bad(5, "{", "/timestamps/completed_at", "timestamps.completed_at", `required when status is "succeeded"`)}},
		{name: "ErrMissingCompletedAtCancelled", edits: []edit{with("status", `"cancelled"`), with("timestamps", created), without("output")},
			want: []want{bad(5, "{", "/timestamps/completed_at", "timestamps.completed_at", `required when status is "cancelled"`)}},
		{name: "ErrMissingOutput", edits: []edit{without("output")},
			want: []want{{line: 1, col: 1, pointer: "/output", field: "output", reason: `required when status is "succeeded"`}}},
		{name: "ErrMissingError", edits: []edit{with("status", `"failed"`), without("output")},
			want: []want{{line: 1, col: 1, pointer: "/error", field: "error", reason: `required when status is "failed"`}}},
		{name: "ErrErrorCodeEmpty", edits: []edit{with("status", `"failed"`), with("error", `{"code": "", "message": "boom"}`)},
			want: []want{bad(7, `""`, "/error/code", "error.code", "must not be empty")}},
		{name: "ErrErrorMissingMessage", edits: []edit{with("status", `"failed"`), with("error", `{"code": "boom"}`)},
			want: []want{bad(7, "{", "/error/message", "error.message", "required member is missing")}},
		{name: "ErrStatus", edits: []edit{with("status", `"done"`)},
			want: []want{bad(3, `"done"`, "/status", "status", `must be one of "accepted", "running", "succeeded", "failed", "cancelled"; got "done"`)}},
		{name: "ErrExecutionIDEmpty", edits: []edit{with("execution_id", `""`)},
			want: []want{bad(2, `""`, "/execution_id", "execution_id", "must not be empty")}},
		{name: "ErrDateTime", edits: []edit{with("status", `"accepted"`), with("timestamps", `{"created_at": "2026-01-31 09:30"}`), without("output")},
			want: []want{bad(5, `"2026`, "/timestamps/created_at", "timestamps.created_at", `must be an RFC 3339 date-time such as "2026-01-31T09:30:00Z"; got "2026-01-31 09:30"`)}},
		{name: "ErrStartedBeforeCreated", edits: []edit{with("status", `"running"`), without("output"), with("timestamps", `{"created_at": "2026-01-31T09:30:00Z", "started_at": "2026-01-31T10:29:59+01:00"}`)},
			want: []want{bad(5, `"2026-01-31T10`, "/timestamps/started_at", "timestamps.started_at", `must not be earlier than timestamps.created_at ("2026-01-31T09:30:00Z"); got "2026-01-31T10:29:59+01:00"`)}},
		{name: "ErrCompletedBeforeStarted", edits: []edit{with("timestamps", `{"created_at": "2026-01-31T09:30:00Z", "started_at": "2026-01-31T09:30:01.5Z", "completed_at": "2026-01-31T09:30:01.25Z"}`)},
			want: []want{bad(5, `"2026-01-31T09:30:01.25Z"`, "/timestamps/completed_at", "timestamps.completed_at", `must not be earlier than timestamps.started_at ("2026-01-31T09:30:01.5Z"); got "2026-01-31T09:30:01.25Z"`)}},
		{name: "ErrCompletedBeforeCreated", edits: []edit{with("status", `"cancelled"`), without("output"), with("timestamps", `{"created_at": "2026-01-31T09:30:00Z", "completed_at": "2026-01-30T09:30:00Z"}`)},
			want: []want{bad(5, `"2026-01-30`, "/timestamps/completed_at", "timestamps.completed_at", `must not be earlier than timestamps.created_at ("2026-01-31T09:30:00Z"); got "2026-01-30T09:30:00Z"`)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := build(baseResponse, c.edits...)
			r, vs := skillcat.ParseResponse("response.json", src)
			checkViolations(t, "response.json", src, vs, c.want)
			if vs.HasErrors() != (r == nil) {
				t.Errorf("got response %v with errors %v, want a response exactly when there is no error", r != nil, vs.HasErrors())
			}
		})
	}
}

func TestViolationError(t *testing.T) {
	for _, c := range []struct {
		name string
		v    skillcat.Violation
		want string
	}{
		{"Error", skillcat.Violation{File: "content/weather.json", Line: 13, Column: 11, Pointer: "/auth/token_url", Field: "auth.token_url", Reason: `required when auth.type is "oauth2"`, Severity: skillcat.SeverityError},
			`content/weather.json:13:11: auth.token_url: required when auth.type is "oauth2"`},
		{"Warning", skillcat.Violation{File: "a.json", Line: 2, Column: 3, Field: "capabilty_type", Reason: `unknown member "capabilty_type"; did you mean "capability_type"?`, Severity: skillcat.SeverityWarning},
			`a.json:2:3: warning: capabilty_type: unknown member "capabilty_type"; did you mean "capability_type"?`},
		{"File", skillcat.Violation{File: "empty.json", Line: 1, Column: 1, Field: "(file)", Reason: "file is empty: expected a JSON object", Severity: skillcat.SeverityError},
			"empty.json:1:1: (file): file is empty: expected a JSON object"},
		{"NoPosition", skillcat.Violation{File: "request", Field: "skill_id", Reason: "must be x", Severity: skillcat.SeverityError},
			"request: skill_id: must be x"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.v.Error(); got != c.want {
				t.Errorf("Error(): got %q, want %q", got, c.want)
			}
		})
	}

	t.Run("Violations", func(t *testing.T) {
		src := build(baseDescriptor, with("id", `"Bad"`), with("capabilty_type", `"api"`))
		_, vs := skillcat.ParseDescriptor("w.json", src)
		want := "w.json:4:9: id: " + reasonID + `"Bad"` + "\n" +
			`w.json:18:3: warning: capabilty_type: unknown member "capabilty_type"; did you mean "capability_type"?`
		if got := vs.Err().Error(); got != want {
			t.Errorf("Violations.Error(): got\n%s\nwant\n%s", got, want)
		}
		got, ok := skillcat.AsViolations(fmt.Errorf("build: %w", vs.Err()))
		if !ok || len(got) != 2 {
			t.Errorf("AsViolations(wrapped): got %v, %v, want the 2 violations", got, ok)
		}
	})
	t.Run("WarningsOnlyAreNoError", func(t *testing.T) {
		d, vs := skillcat.ParseDescriptor("w.json", build(baseDescriptor, with("capabilty_type", `"api"`)))
		if d == nil || len(vs) != 1 || vs.HasErrors() || vs.Err() != nil {
			t.Errorf("got descriptor %v, violations %v, Err %v; want a descriptor, one warning and a nil Err", d != nil, vs, vs.Err())
		}
	})
}

// TestEncodeAsPublished checks the details of SPEC 6 on published
// descriptors: nothing dropped or added, numbers as written.
func TestEncodeAsPublished(t *testing.T) {
	src := build(baseDescriptor,
		with("endpoint", `{"url": "https://api.weather.example.com/v2/forecast"}`),
		with("inputs", `{"type": "object", "properties": {"lat": {"type": "number", "multipleOf": 1e-7, "maximum": 90.0}, "n": {"type": "integer", "maximum": 123456789012345678901234567890}}}`),
		with("examples", `[{"title": "<b>Berlin</b> & co", "inputs": {"lat": 52.5200000, "n": -0}}]`),
		with("x-pricing", `{"per_call": 1E-4, "currency": "€"}`),
		with("tags", `[]`),
	)
	d, vs := skillcat.ParseDescriptor("skill.json", src)
	if d == nil {
		t.Fatalf("ParseDescriptor: %v", vs)
	}
	if got := d.Endpoint.EffectiveMethod(); got != "POST" {
		t.Errorf("EffectiveMethod: got %q, want POST", got)
	}
	enc, err := d.Encode()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"1e-7", "90.0", "123456789012345678901234567890", "52.5200000", "-0", "1E-4", `"€"`, `"<b>Berlin</b> & co"`, `"tags": []`} {
		if !bytes.Contains(enc, []byte(s)) {
			t.Errorf("Encode: got no %s in\n%s", s, enc)
		}
	}
	if bytes.Contains(enc, []byte(`"method"`)) {
		t.Errorf("Encode: got a method member, want the default left out\n%s", enc)
	}
	if !sameJSON(t, src, enc) {
		t.Errorf("Encode: got\n%s\nwant a document value-equal to\n%s", enc, src)
	}
	// Known members in the specification's order, unknown ones after them.
	order := []string{`"$schema"`, `"protocol"`, `"id"`, `"name"`, `"version"`, `"capability_type"`, `"description"`, `"provider"`,
		`"endpoint"`, `"inputs"`, `"output"`, `"auth"`, `"access"`, `"tags"`, `"examples"`, `"documentation_url"`, `"x-pricing"`}
	last := -1
	for _, name := range order {
		i := bytes.Index(enc, []byte("\n  "+name+":"))
		if i < last {
			t.Errorf("Encode: got %s at byte %d, before the member ahead of it in the order", name, i)
		}
		last = i
	}
}

func TestParseVersion(t *testing.T) {
	for _, c := range []struct {
		in   string
		want skillcat.Version
		ok   bool
	}{
		{"1.0.0", skillcat.Version{Major: 1}, true},
		{"0.0.0", skillcat.Version{}, true},
		{"10.20.30", skillcat.Version{Major: 10, Minor: 20, Patch: 30}, true},
		{"18446744073709551615.0.0", skillcat.Version{Major: 1<<64 - 1}, true},
		{"1.0", skillcat.Version{}, false},
		{"1.0.0.0", skillcat.Version{}, false},
		{"01.0.0", skillcat.Version{}, false},
		{"1.00.0", skillcat.Version{}, false},
		{"1.0.0-rc.1", skillcat.Version{}, false},
		{"1.0.0+build", skillcat.Version{}, false},
		{"v1.0.0", skillcat.Version{}, false},
		{" 1.0.0", skillcat.Version{}, false},
		{"1.0.0\n", skillcat.Version{}, false},
		{"١.٠.٠", skillcat.Version{}, false},
		{"-1.0.0", skillcat.Version{}, false},
		{"", skillcat.Version{}, false},
	} {
		t.Run(c.in, func(t *testing.T) {
			got, err := skillcat.ParseVersion(c.in)
			if (err == nil) != c.ok {
				t.Fatalf("ParseVersion(%q): got error %v, want ok %v", c.in, err, c.ok)
			}
			if err != nil {
				if !errors.Is(err, skillcat.ErrInvalidVersion) {
					t.Errorf("got error %v, want one matching ErrInvalidVersion", err)
				}
				return
			}
			if got.Major != c.want.Major || got.Minor != c.want.Minor || got.Patch != c.want.Patch || got.String() != c.in {
				t.Errorf("got %+v (%s), want %+v (%s)", got, got, c.want, c.in)
			}
		})
	}
	t.Run("BeyondUint64", func(t *testing.T) {
		// Saturated, still above every supported major, and named as written.
		v, err := skillcat.ParseVersion("18446744073709551616.2.3")
		if err != nil || v.Major != 1<<64-1 || v.Minor != 2 || v.Patch != 3 || v.String() != "18446744073709551616.2.3" {
			t.Fatalf("got %+v (%s), %v; want major saturated, minor 2, patch 3, written as parsed", v, v, err)
		}
		if err := skillcat.CheckCompatible(v, skillcat.SupportedMajor); !errors.Is(err, skillcat.ErrIncompatibleVersion) {
			t.Errorf("CheckCompatible: got %v, want ErrIncompatibleVersion", err)
		}
	})
	t.Run("Compatible", func(t *testing.T) {
		for _, s := range []string{"0.1.0", "1.0.0", "1.99.42"} {
			v, _ := skillcat.ParseVersion(s)
			if err := skillcat.CheckCompatible(v, skillcat.SupportedMajor); err != nil {
				t.Errorf("CheckCompatible(%s): got %v, want nil", s, err)
			}
		}
	})
}

// TestSchemaTooLarge checks that a huge inputs schema is refused quickly
// instead of stalling the build.
func TestSchemaTooLarge(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := 0; i < 30000; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"p%d":{"type":"string"}`, i)
	}
	b.WriteString(`}}`)
	_, err := skillcat.CompileSkillSchema("inputs", []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "is too large to check") {
		t.Fatalf("got %v, want the too-large violation", err)
	}
}

// TestOffsetPositionFirstIsKept holds the first position of a source,
// counted directly, to the ones counted from its kept line starts.
func TestOffsetPositionFirstIsKept(t *testing.T) {
	for _, data := range []string{"", "a", "\n", "a\nb", "{\n  \"id\": \"é\",\n\n  \"x\": 1\n}\n", "ü\nß\r\n日本語\n"} {
		kept := &skillcat.Source{Data: []byte(data)}
		kept.OffsetPosition(0) // from now on, by the line starts
		for off := -1; off <= len(data)+1; off++ {
			first := &skillcat.Source{Data: []byte(data)}
			line, col := first.OffsetPosition(off)
			wantLine, wantCol := kept.OffsetPosition(off)
			if line != wantLine || col != wantCol {
				t.Errorf("%q at %d: first position %d:%d, kept line starts give %d:%d", data, off, line, col, wantLine, wantCol)
			}
		}
	}
}
