package openapi_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/openapi"
)

// spec makes a small OpenAPI 3.0 document: top holds members beside
// info and paths (servers, components, security), paths the paths.
func spec(version, top, paths string) []byte {
	return []byte(fmt.Sprintf("openapi: %s\ninfo: {title: Test Shop API, version: 1.2.3}\n%s\npaths:\n%s\n", version, top, paths))
}

const server = "servers: [{url: 'https://api.shopwise.io/v1'}]"

// got imports doc and returns each skill as plain JSON values, and the
// warnings; every skill must pass the protocol's validation.
func got(t *testing.T, doc []byte, opts skillcat.ImportOptions) ([]map[string]any, string) {
	t.Helper()
	im, err := openapi.Import("test.yaml", doc, opts)
	if err != nil {
		t.Fatalf("import: %v\n%s", err, doc)
	}
	var out []map[string]any
	for _, d := range im.Skills {
		data, err := d.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if _, vs := skillcat.ParseDescriptor(d.ID+".json", data); vs.HasErrors() {
			t.Fatalf("%s does not validate: %v\n%s", d.ID, vs, data)
		}
		var m map[string]any
		json.Unmarshal(data, &m)
		out = append(out, m)
	}
	var w strings.Builder
	for _, v := range im.Warnings {
		w.WriteString(v.Error() + "\n")
	}
	return out, w.String()
}

// at walks a plain JSON value by member names and indexes.
func at(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func js(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// TestMapping holds one case per mapping rule of docs/import.md: the
// document, and what one member of the first skill must be.
func TestMapping(t *testing.T) {
	cases := []struct {
		name       string
		doc        []byte
		opts       skillcat.ImportOptions
		path       []any
		want       string // JSON
		skill      int
		wantWarn   string
		wantSkills int
	}{
		// ids
		{name: "IDFromOperationID", doc: spec("3.0.3", server, "  /orders:\n    get: {operationId: listOrders, responses: {'200': {description: ok}}}"),
			path: []any{"id"}, want: `"shopwise.list-orders"`},
		{name: "IDFromMethodAndPath", doc: spec("3.0.3", server, "  /orders/{orderId}/items:\n    delete: {responses: {'204': {description: ok}}}"),
			path: []any{"id"}, want: `"shopwise.delete-orders-order-id-items"`},
		{name: "IDSanitized", doc: spec("3.0.3", server, "  /x:\n    get: {operationId: 'Get__Café Orders!!', responses: {'200': {description: ok}}}"),
			path: []any{"id"}, want: `"shopwise.get-cafe-orders"`},
		{name: "IDsUnique", doc: spec("3.0.3", server, "  /a:\n    get: {operationId: same, responses: {'200': {description: ok}}}\n  /b:\n    get: {operationId: same, responses: {'200': {description: ok}}}"),
			path: []any{"id"}, skill: 1, want: `"shopwise.same-2"`},
		{name: "Prefix", doc: spec("3.0.3", server, "  /x:\n    get: {operationId: x, responses: {'200': {description: ok}}}"),
			opts: skillcat.ImportOptions{Prefix: "acme"}, path: []any{"id"}, want: `"acme.x"`},
		{name: "PrefixFromTitle", doc: spec("3.0.3", "servers: [{url: 'https://api.example.com'}]", "  /x:\n    get: {operationId: x, responses: {'200': {description: ok}}}"),
			path: []any{"id"}, want: `"test-shop.x"`},
		// name and description
		{name: "NameFromSummary", doc: spec("3.0.3", server, "  /x:\n    get: {operationId: x, summary: '  List   the orders ', responses: {'200': {description: ok}}}"),
			path: []any{"name"}, want: `"List the orders"`},
		{name: "NameFromOperationID", doc: spec("3.0.3", server, "  /x:\n    get: {operationId: listAllOrders, responses: {'200': {description: ok}}}"),
			path: []any{"name"}, want: `"List all orders"`},
		{name: "NameFromSummaryPeriod", doc: spec("3.0.3", server, "  /x:\n    get: {operationId: x, summary: 'List the orders.', responses: {'200': {description: ok}}}"),
			path: []any{"name"}, want: `"List the orders"`},
		{name: "NameNotASentence", doc: spec("3.0.3", server, "  /x:\n    post: {operationId: perform-search, summary: 'Provides search capability for the data set with the given search criteria.', responses: {'200': {description: ok}}}"),
			path: []any{"name"}, want: `"Perform search"`},
		{name: "NameSentenceCut", doc: spec("3.0.3", server, "  /x:\n    post: {summary: 'Provides search capability for the data set with the given search criteria.', responses: {'200': {description: ok}}}"),
			path: []any{"name"}, want: `"Provides search capability for the data set with the given…"`},
		{name: "FormBodyWarned", doc: spec("3.0.3", server, "  /x:\n    post:\n      operationId: x\n      requestBody: {content: {application/x-www-form-urlencoded: {schema: {type: object, properties: {q: {type: string}}}}}}\n      responses: {'200': {description: ok}}"),
			path: []any{"id"}, want: `"shopwise.x"`, wantWarn: "binding sends the invocation as JSON"},
		{name: "NameFromMethodAndPath", doc: spec("3.0.3", server, "  /x/{id}:\n    get: {responses: {'200': {description: ok}}}"),
			path: []any{"name"}, want: `"GET /x/{id}"`},
		{name: "Description", doc: spec("3.0.3", server, "  /x:\n    get: {summary: Short, description: Longer words., responses: {'200': {description: ok}}}"),
			path: []any{"description"}, want: "\"Short\\n\\nLonger words.\\n\\nOperation `GET /x` of the Test Shop API.\""},
		{name: "DescriptionDeprecated", doc: spec("3.0.3", server, "  /x:\n    get: {deprecated: true, responses: {'200': {description: ok}}}"),
			path: []any{"description"}, want: "\"**Deprecated:** the API marks this operation as deprecated.\\n\\nOperation `GET /x` of the Test Shop API.\""},
		{name: "Version", doc: spec("3.0.3", server, "  /x:\n    get: {responses: {'200': {description: ok}}}"),
			path: []any{"version"}, want: `"1.2.3"`},
		// endpoint
		{name: "EndpointPathTemplate", doc: spec("3.0.3", server, "  /orders/{orderId}:\n    put: {responses: {'200': {description: ok}}}"),
			path: []any{"endpoint"}, want: `{"method":"PUT","url":"https://api.shopwise.io/v1/orders/%7BorderId%7D"}`},
		{name: "EndpointServerVariables", doc: spec("3.0.3", "servers: [{url: 'https://{env}.shop.example.net:{port}/v1', variables: {env: {default: live}, port: {default: '8443'}}}]", "  /x:\n    get: {responses: {'200': {description: ok}}}"),
			path: []any{"endpoint", "url"}, want: `"https://live.shop.example.net:8443/v1/x"`},
		{name: "EndpointOperationServer", doc: spec("3.0.3", server, "  /x:\n    get: {servers: [{url: 'https://upload.shop.example.net'}], responses: {'200': {description: ok}}}"),
			path: []any{"endpoint", "url"}, want: `"https://upload.shop.example.net/x"`},
		{name: "EndpointRelativeServerResolved", doc: spec("3.0.3", "servers: [{url: /api}]", "  /x:\n    get: {responses: {'200': {description: ok}}}"),
			opts: skillcat.ImportOptions{Location: "https://docs.shop.example.net/spec/openapi.yaml"}, path: []any{"endpoint", "url"}, want: `"https://docs.shop.example.net/api/x"`},
		{name: "EndpointPlaceholder", doc: spec("3.0.3", "servers: [{url: /api}]", "  /x:\n    get: {responses: {'200': {description: ok}}}"),
			path: []any{"endpoint", "url"}, want: `"https://server.placeholder.invalid/api/x"`, wantWarn: "placeholder"},
		{name: "EndpointServerFlag", doc: spec("3.0.3", server, "  /x:\n    get: {responses: {'200': {description: ok}}}"),
			opts: skillcat.ImportOptions{Server: "https://staging.shop.example.net/"}, path: []any{"endpoint", "url"}, want: `"https://staging.shop.example.net/x"`},
		{name: "SecondServerDropped", doc: spec("3.0.3", "servers: [{url: 'https://a.shop.example.net'}, {url: 'https://b.shop.example.net'}]", "  /x:\n    get: {responses: {'200': {description: ok}}}"),
			path: []any{"endpoint", "url"}, want: `"https://a.shop.example.net/x"`, wantWarn: `servers[1]: server "https://b.shop.example.net" dropped`},
		{name: "HeadDropped", doc: spec("3.0.3", server, "  /x:\n    head: {responses: {'200': {description: ok}}}\n    get: {responses: {'200': {description: ok}}}"),
			path: []any{"endpoint", "method"}, want: `"GET"`, wantWarn: "HEAD /x dropped", wantSkills: 1},
		// inputs
		{name: "InputsParameters", doc: spec("3.0.3", server, "  /o/{id}:\n    parameters: [{name: id, in: path, required: true, schema: {type: string}}]\n    get:\n      parameters:\n        - {name: limit, in: query, schema: {type: integer}}\n        - {name: X-Trace, in: header, required: true, schema: {type: string}}\n        - {name: Accept, in: header, schema: {type: string}}\n      responses: {'200': {description: ok}}"),
			path: []any{"inputs", "required"}, want: `["id","X-Trace"]`},
		{name: "InputsParameterDescription", doc: spec("3.0.3", server, "  /o:\n    get:\n      parameters: [{name: q, in: query, description: What to find., schema: {type: string}}]\n      responses: {'200': {description: ok}}"),
			path: []any{"inputs", "properties", "q", "description"}, want: `"What to find.\n\nSent as the query parameter \"q\"."`},
		{name: "InputsCookieDropped", doc: spec("3.0.3", server, "  /o:\n    get:\n      parameters: [{name: sid, in: cookie, schema: {type: string}}]\n      responses: {'200': {description: ok}}"),
			path: []any{"inputs"}, want: `{"additionalProperties":false,"type":"object"}`, wantWarn: `cookie parameter "sid" dropped`},
		{name: "InputsSameNameTwoPlaces", doc: spec("3.0.3", server, "  /o/{id}:\n    get:\n      parameters:\n        - {name: id, in: path, required: true, schema: {type: string}}\n        - {name: id, in: header, schema: {type: string}}\n      responses: {'200': {description: ok}}"),
			path: []any{"inputs", "properties", "header_id", "description"}, want: `"Sent as the header parameter \"id\"."`},
		{name: "InputsBody", doc: spec("3.0.3", server, "  /o:\n    post:\n      requestBody: {required: true, content: {application/json: {schema: {type: object, properties: {n: {type: integer}}}}}}\n      responses: {'201': {description: ok}}"),
			path: []any{"inputs"}, want: `{"properties":{"body":{"description":"The request body (application/json).","properties":{"n":{"type":"integer"}},"type":"object"}},"required":["body"],"type":"object"}`},
		{name: "InputsBodyNameTaken", doc: spec("3.0.3", server, "  /o:\n    post:\n      parameters: [{name: body, in: query, schema: {type: string}}]\n      requestBody: {content: {application/json: {schema: {type: string}}}}\n      responses: {'201': {description: ok}}"),
			path: []any{"inputs", "properties", "request_body", "type"}, want: `"string"`},
		{name: "InputsFormBody", doc: spec("3.0.3", server, "  /o:\n    post:\n      requestBody: {content: {application/x-www-form-urlencoded: {schema: {type: object, properties: {a: {type: string}}}}}}\n      responses: {'201': {description: ok}}"),
			path: []any{"inputs", "properties", "body", "properties"}, want: `{"a":{"type":"string"}}`},
		{name: "InputsBinaryBody", doc: spec("3.0.3", server, "  /o:\n    put:\n      requestBody: {content: {image/png: {schema: {type: string, format: binary}}}}\n      responses: {'200': {description: ok}}"),
			path: []any{"inputs", "properties", "body", "contentMediaType"}, want: `"image/png"`},
		// output
		{name: "OutputFirst2xx", doc: spec("3.0.3", server, "  /o:\n    get:\n      responses:\n        '404': {description: no, content: {application/json: {schema: {type: boolean}}}}\n        '201': {description: ok, content: {application/json: {schema: {type: integer}}}}\n        '200': {description: ok, content: {application/json: {schema: {type: string}}}}"),
			path: []any{"output"}, want: `{"type":"string"}`},
		{name: "OutputDefault", doc: spec("3.0.3", server, "  /o:\n    get:\n      responses:\n        default: {description: ok, content: {application/hal+json: {schema: {type: object}}}}"),
			path: []any{"output"}, want: `{"type":"object"}`},
		{name: "OutputNoContent", doc: spec("3.0.3", server, "  /o:\n    delete:\n      responses: {'204': {description: gone}}"),
			path: []any{"output"}, want: `{"description":"The operation returns no content."}`},
		{name: "OutputNotJSON", doc: spec("3.0.3", server, "  /o:\n    get:\n      responses: {'200': {description: ok, content: {text/csv: {schema: {type: string}}}}}"),
			path: []any{"output"}, want: `{"contentMediaType":"text/csv","type":"string"}`},
		// schemas
		{name: "SchemaNullable", doc: spec("3.0.3", server, "  /o:\n    get:\n      responses: {'200': {description: ok, content: {application/json: {schema: {type: string, enum: [a, b], nullable: true}}}}}"),
			path: []any{"output"}, want: `{"enum":["a","b",null],"type":["string","null"]}`},
		{name: "SchemaNullableRef", doc: spec("3.0.3", server+"\ncomponents: {schemas: {A: {type: string}}}", "  /o:\n    get:\n      responses: {'200': {description: ok, content: {application/json: {schema: {type: object, properties: {a: {allOf: [{$ref: '#/components/schemas/A'}], nullable: true}}}}}}}"),
			path: []any{"output", "properties", "a"}, want: `{"allOf":[{"$ref":"#/$defs/A"}]}`},
		{name: "SchemaExclusiveBounds", doc: spec("3.0.3", server, "  /o:\n    get:\n      responses: {'200': {description: ok, content: {application/json: {schema: {type: number, minimum: 0, exclusiveMinimum: true, maximum: 9, exclusiveMaximum: false}}}}}"),
			path: []any{"output"}, want: `{"exclusiveMinimum":0,"maximum":9,"type":"number"}`},
		{name: "SchemaExample", doc: spec("3.0.3", server, "  /o:\n    get:\n      responses: {'200': {description: ok, content: {application/json: {schema: {type: string, example: hi, x-internal: true, xml: {name: s}}}}}}"),
			path: []any{"output"}, want: `{"examples":["hi"],"type":"string"}`},
		{name: "SchemaRefToDefs", doc: spec("3.0.3", server+"\ncomponents: {schemas: {A: {type: object, properties: {b: {$ref: '#/components/schemas/B'}}}, B: {type: string}, Unused: {type: integer}}}", "  /o:\n    get:\n      responses: {'200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/A'}}}}}"),
			path: []any{"output"}, want: `{"$defs":{"A":{"properties":{"b":{"$ref":"#/$defs/B"}},"type":"object"},"B":{"type":"string"}},"$ref":"#/$defs/A"}`},
		{name: "SchemaCycle", doc: spec("3.0.3", server+"\ncomponents: {schemas: {Node: {type: object, properties: {next: {$ref: '#/components/schemas/Node'}}}}}", "  /o:\n    get:\n      responses: {'200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Node'}}}}}"),
			path: []any{"output", "$defs", "Node", "properties", "next"}, want: `{"$ref":"#/$defs/Node"}`},
		{name: "SchemaPointerRefInlined", doc: spec("3.0.3", server+"\ncomponents: {schemas: {A: {type: object, properties: {id: {type: integer, minimum: 1}}}}}", "  /o/{id}:\n    get:\n      parameters: [{name: id, in: path, required: true, schema: {$ref: '#/components/schemas/A/properties/id'}}]\n      responses: {'200': {description: ok}}"),
			path: []any{"inputs", "properties", "id", "minimum"}, want: `1`},
		{name: "Schema31Kept", doc: spec("3.1.0", server, "  /o:\n    get:\n      responses: {'200': {description: ok, content: {application/json: {schema: {type: [string, 'null'], exclusiveMinimum: 3, examples: [x]}}}}}"),
			path: []any{"output"}, want: `{"examples":["x"],"exclusiveMinimum":3,"type":["string","null"]}`},
		{name: "SchemaBadPatternDropped", doc: spec("3.0.3", server, "  /o:\n    get:\n      parameters: [{name: q, in: query, schema: {type: string, pattern: '(?<=a)b'}}]\n      responses: {'200': {description: ok}}"),
			path: []any{"inputs", "properties", "q", "pattern"}, want: `null`, wantWarn: "inputs.properties.q.pattern dropped"},
		// auth and access
		{name: "AuthNoneAccessPublic", doc: spec("3.0.3", server, "  /o:\n    get: {responses: {'200': {description: ok}}}"),
			path: []any{"access"}, want: `"public"`},
		{name: "AuthAccessFlag", doc: spec("3.0.3", server, "  /o:\n    get: {responses: {'200': {description: ok}}}"),
			opts: skillcat.ImportOptions{Access: skillcat.Private}, path: []any{"access"}, want: `"private"`},
		{name: "AuthRestrictedWithoutAuthIsPublic", doc: spec("3.0.3", server, "  /o:\n    get: {responses: {'200': {description: ok}}}"),
			opts: skillcat.ImportOptions{Access: skillcat.Restricted}, path: []any{"access"}, want: `"public"`, wantWarn: "restricted access requires"},
		{name: "AuthAPIKeyRestricted", doc: spec("3.0.3", server+"\ncomponents: {securitySchemes: {k: {type: apiKey, in: query, name: key}}}\nsecurity: [{k: []}]", "  /o:\n    get: {responses: {'200': {description: ok}}}"),
			path: []any{"auth"}, want: `{"in":"query","name":"key","type":"api_key"}`},
		{name: "AuthOptional", doc: spec("3.0.3", server+"\ncomponents: {securitySchemes: {k: {type: apiKey, in: header, name: K}}}", "  /o:\n    get: {security: [{}, {k: []}], responses: {'200': {description: ok}}}"),
			path: []any{"access"}, want: `"public"`},
		{name: "AuthOverriddenByEmpty", doc: spec("3.0.3", server+"\ncomponents: {securitySchemes: {k: {type: apiKey, in: header, name: K}}}\nsecurity: [{k: []}]", "  /o:\n    get: {security: [], responses: {'200': {description: ok}}}"),
			path: []any{"auth"}, want: `{"type":"none"}`},
		{name: "AuthOAuth2RelativeTokenURL", doc: spec("3.0.3", server+"\ncomponents: {securitySchemes: {o: {type: oauth2, flows: {clientCredentials: {tokenUrl: /oauth/token, scopes: {a: Read}}}}}}\nsecurity: [{o: [a]}]", "  /o:\n    get: {responses: {'200': {description: ok}}}"),
			path: []any{"auth"}, want: `{"scopes":{"a":"Read"},"token_url":"https://api.shopwise.io/oauth/token","type":"oauth2"}`},
		{name: "AuthBearer", doc: spec("3.0.3", server+"\ncomponents: {securitySchemes: {b: {type: http, scheme: bearer}}}\nsecurity: [{b: []}]", "  /o:\n    get: {responses: {'200': {description: ok}}}"),
			path: []any{"auth", "instructions"}, want: "\"Send a bearer token in the `Authorization` header: `Authorization: Bearer <token>`.\""},
		{name: "AuthOpenIDConnect", doc: spec("3.0.3", server+"\ncomponents: {securitySchemes: {c: {type: openIdConnect, openIdConnectUrl: 'https://id.example.net/.well-known/openid-configuration'}}}\nsecurity: [{c: []}]", "  /o:\n    get: {responses: {'200': {description: ok}}}"),
			path: []any{"auth", "type"}, want: `"custom"`},
		{name: "PathParameterUndeclared", doc: spec("3.0.3", server, "  /o/{id}:\n    get: {operationId: x, responses: {'200': {description: ok}}}"),
			path: []any{"inputs"}, want: `{"properties":{"id":{"description":"Sent as the path parameter \"id\".","type":"string"}},"required":["id"],"type":"object"}`,
			wantWarn: `path parameter "id" of /o/{id} is not declared in parameters`},
		// tags, examples, documentation
		{name: "Tags", doc: spec("3.0.3", server, "  /o:\n    get: {tags: [Order Management, orders, ORDERS, '!!!'], responses: {'200': {description: ok}}}"),
			path: []any{"tags"}, want: `["order-management","orders"]`, wantWarn: `tag "!!!" dropped`},
		{name: "ExamplesFromParameters", doc: spec("3.0.3", server, "  /o/{id}:\n    get:\n      parameters: [{name: id, in: path, required: true, schema: {type: integer}, example: 42}]\n      responses: {'200': {description: ok, content: {application/json: {schema: {type: object}, example: {id: 42}}}}}"),
			path: []any{"examples"}, want: `[{"inputs":{"id":42},"output":{"id":42},"title":"Example"}]`},
		{name: "ExamplesInvalidDropped", doc: spec("3.0.3", server, "  /o:\n    post:\n      requestBody:\n        content:\n          application/json:\n            schema: {type: object, required: [n], properties: {n: {type: integer}}}\n            examples: {good: {value: {n: 1}}, bad: {summary: Wrong, value: {n: one}}}\n      responses: {'201': {description: ok}}"),
			path: []any{"examples"}, want: `[{"inputs":{"body":{"n":1}},"title":"good"}]`, wantWarn: `example "Wrong" dropped`},
		{name: "ExamplesMissingRequired", doc: spec("3.0.3", server, "  /o/{id}:\n    get:\n      parameters: [{name: id, in: path, required: true, schema: {type: integer}}, {name: q, in: query, schema: {type: string}, example: x}]\n      responses: {'200': {description: ok}}"),
			path: []any{"examples"}, want: `null`},
		{name: "DocumentationURL", doc: spec("3.0.3", server+"\nexternalDocs: {url: 'https://docs.shop.example.net'}", "  /o:\n    get: {externalDocs: {url: 'https://docs.shop.example.net/orders'}, responses: {'200': {description: ok}}}\n  /p:\n    get: {responses: {'200': {description: ok}}}"),
			path: []any{"documentation_url"}, want: `"https://docs.shop.example.net/orders"`},
		{name: "CallbacksDropped", doc: spec("3.0.3", server, "  /o:\n    post:\n      callbacks: {done: {'{$request.body#/url}': {post: {responses: {'200': {description: ok}}}}}}\n      responses: {'201': {description: ok}}"),
			path: []any{"id"}, want: `"shopwise.post-o"`, wantWarn: "callback(s) dropped"},
		{name: "WrongTypeValueDropped", doc: spec("3.0.3", server+"\ntags: [{name: t, description: {text: not a string}}]", "  /o:\n    get: {responses: {'200': {description: ok}}}"),
			path: []any{"id"}, want: `"shopwise.get-o"`, wantWarn: "tags[0].description: dropped"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			skills, warnings := got(t, c.doc, c.opts)
			if c.wantSkills > 0 && len(skills) != c.wantSkills {
				t.Errorf("got %d skills, want %d", len(skills), c.wantSkills)
			}
			if c.skill >= len(skills) {
				t.Fatalf("got %d skills, want at least %d", len(skills), c.skill+1)
			}
			if g := js(at(skills[c.skill], c.path...)); g != c.want {
				t.Errorf("%v: got %s, want %s", c.path, g, c.want)
			}
			if c.wantWarn != "" && !strings.Contains(warnings, c.wantWarn) {
				t.Errorf("warnings: got\n%s\nwant one containing %q", warnings, c.wantWarn)
			}
		})
	}
}

// TestRefused holds documents that are not OpenAPI or cannot be mapped:
// each is an error naming the file, with line and column when the parser
// has them.
func TestRefused(t *testing.T) {
	cases := []struct{ name, doc, want string }{
		{"Empty", "  \n", "test.yaml:1:1: (file): document is empty"},
		{"YAMLSyntax", "openapi: 3.0.0\ninfo: [\n", "test.yaml:2:1: (file): invalid YAML"},
		{"JSONSyntax", "{\"openapi\": \"3.0.0\",\n \"info\": }", "test.yaml:2:10: (file): invalid JSON"},
		{"HTML", "<!DOCTYPE html><p>Not found</p>", "test.yaml:1:1: (file): this is an HTML page"},
		{"List", "- a\n- b\n", "test.yaml:1:1: (file): not an OpenAPI document"},
		{"NoVersion", "info: {title: x}\npaths: {}\n", "not an OpenAPI document: it has no \"openapi\" member"},
		{"OpenAPI2Claimed", "openapi: 2.0\npaths: {}\n", "openapi must be a version"},
		{"Swagger3", "swagger: '3.0'\n", "swagger \"3.0\" is not supported"},
		{"NoPaths", "openapi: 3.1.0\ninfo: {title: t, version: '1'}\n", "no paths"},
		{"ExternalRef", "openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /x:\n    get:\n      responses: {'200': {$ref: 'other.yaml#/r'}}\n", "points outside the document; only refs inside it (#/components/..., or #/definitions/... in Swagger 2.0) are followed"},
		{"Deep", strings.Repeat("[", 300) + strings.Repeat("]", 300), "nested more than"},
		{"DeepYAML", "openapi: 3.0.0\nx: " + strings.Repeat("[", 250) + strings.Repeat("]", 250) + "\n", "nests deeper than 200"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := openapi.Import("test.yaml", []byte(c.doc), skillcat.ImportOptions{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
			if _, ok := skillcat.AsViolations(err); !ok {
				t.Errorf("error %T is not skillcat.Violations", err)
			}
		})
	}
}

// TestWarningField checks that a warning names an object member "200"
// as ["200"] and a list's item as [0], both in a schema the import
// converts and in the document as loaded (where a value of the wrong type
// is dropped).
func TestWarningField(t *testing.T) {
	for _, c := range []struct{ schema, want200, wantItem string }{
		{`{type: object, properties: {'200': {type: string, pattern: '(?<=a)b'}, list: {allOf: [{type: string, pattern: '(?<=a)b'}]}}}`,
			`inputs.properties.body.properties["200"].pattern`, `inputs.properties.body.properties.list.allOf[0].pattern`},
		{`{type: object, properties: {'200': {minLength: '3'}, list: {allOf: [{minLength: '4'}]}}}`,
			`schema.properties["200"].minLength: dropped`, `schema.properties.list.allOf[0].minLength: dropped`},
	} {
		doc := spec("3.1.0", server, `  /x:
    post:
      operationId: x
      requestBody:
        content:
          application/json:
            schema: `+c.schema+`
      responses: {'200': {description: ok}}`)
		_, warnings := got(t, doc, skillcat.ImportOptions{})
		for _, want := range []string{c.want200, c.wantItem} {
			if !strings.Contains(warnings, want) {
				t.Errorf("warnings:\n%s\nwant one containing %q", warnings, want)
			}
		}
	}
}
