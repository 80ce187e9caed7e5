package agentskills

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	skillcat "github.com/skillcat/skillcat"
)

// Skill is what one SKILL.md is made from.
type Skill struct {
	Name       string // from Names
	Descriptor *skillcat.SkillDescriptor
	Summary    string // the description's first paragraph as plain text
	Digest     string // the descriptor's digest, "sha256:<hex>"
	// DescriptorURL and PageURL are the published descriptor's and the
	// docs page's URLs as the document holding the text links them:
	// absolute, or relative to that document.
	DescriptorURL, PageURL string
}

// MaxDescription is the longest description the Agent Skills
// specification allows. The JavaScript validator counts UTF-16 code units,
// the Python one code points; Description keeps within both.
const MaxDescription = 1024

// maxCompatibility is the longest compatibility the specification allows.
const maxCompatibility = 500

// Description is a skill's Agent Skills description, for the front matter
// and the discovery index alike: what the skill does (its summary) and when
// to use it, on one line, at most MaxDescription long. It is made from
// what a SkillIndex entry holds, so an index needs no descriptor.
func Description(summary, name, id string, t skillcat.CapabilityType, provider string) string {
	what := skillcat.OneLine(summary)
	if what == "" {
		what = skillcat.OneLine(name)
	}
	what = sentence(what)
	when := fmt.Sprintf("Use it to call %s, the %s skill %s of %s, over HTTP.", skillcat.OneLine(name), typeWord(t), id, skillcat.OneLine(provider))
	return clamp(what+" "+when, MaxDescription)
}

// sentence ends s with a full stop unless it already ends a sentence
// (with ".", "!", "?", "…" or ":", perhaps inside closing quotes or
// brackets), so that the sentence after it does not run on: a summary
// such as "Price Estimates", common in imported documents, would read
// "Price Estimates Use it to call …".
func sentence(s string) string {
	last, _ := utf8.DecodeLastRuneInString(strings.TrimRight(s, `"')]}»”’`))
	if last == utf8.RuneError || strings.ContainsRune(".!?…:", last) {
		return s
	}
	return s + "."
}

// clamp cuts s at a word boundary so that it is at most n code units in
// UTF-16 (and so at most n code points), ending it with "…" when cut.
func clamp(s string, n int) string {
	// No code point takes more UTF-16 code units than UTF-8 bytes.
	if len(s) <= n || utf16Len(s) <= n {
		return s
	}
	r := []rune(s)
	units := 0
	end := 0
	for i, c := range r {
		w := utf16.RuneLen(c)
		if units+w > n-1 { // room for "…"
			break
		}
		units += w
		end = i + 1
	}
	cutAt := strings.LastIndex(string(r[:end]), " ")
	if cutAt <= 0 {
		return string(r[:end]) + "…"
	}
	return string(r[:end])[:cutAt] + "…"
}

// utf16Len is the length of s in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, c := range s {
		n += utf16.RuneLen(c)
	}
	return n
}

// typeWord names a capability type in a sentence.
func typeWord(t skillcat.CapabilityType) string {
	if t == skillcat.API {
		return "API"
	}
	return string(t)
}

// article puts "a" or "an" before a word.
func article(w string) string {
	if w != "" && strings.ContainsRune("aeiouAEIOU", rune(w[0])) {
		return "an " + w
	}
	return "a " + w
}

// Document returns the skill's SKILL.md: front matter and body.
func Document(s *Skill) ([]byte, error) {
	ins, err := Instructions(s)
	if err != nil {
		return nil, err
	}
	return DocumentWith(s, ins), nil
}

// DocumentWith is Document made with the skill's Instructions, already
// made (for llms-full.txt, say). Of s.Descriptor it reads only what an
// index row holds (id, name, version, capability type, access, the
// provider's name) and the endpoint's URL, so a caller that kept those
// need not decode the descriptor again.
func DocumentWith(s *Skill, ins []byte) []byte { return AppendDocumentWith(nil, s, ins) }

// AppendDocumentWith appends DocumentWith's document to dst, so that a
// caller that writes many documents can reuse one buffer.
func AppendDocumentWith(dst []byte, s *Skill, ins []byte) []byte {
	d := s.Descriptor
	desc := Description(s.Summary, d.Name, d.ID, d.CapabilityType, d.Provider.Name)
	links := Links(s)
	b := *bytes.NewBuffer(dst)
	// The front matter's fixed part and URLs are well under 1 KiB beside
	// the description: one allocation for the whole document, or none.
	b.Grow(1024 + len(s.Name) + len(desc) + len(s.DescriptorURL) + len(ins) + len(links))
	b.WriteString("---\n")
	field(&b, "", "name", s.Name)
	field(&b, "", "description", desc)
	if host := endpointHost(d); host != "" {
		field(&b, "", "compatibility", clamp("Needs network access to "+host+".", maxCompatibility))
	}
	b.WriteString("metadata:\n")
	for _, kv := range [][2]string{
		{"protocol", skillcat.CurrentVersion},
		{"id", d.ID},
		{"version", d.Version},
		{"capability_type", string(d.CapabilityType)},
		{"access", string(d.Access)},
		{"descriptor_url", s.DescriptorURL},
		{"digest", s.Digest},
	} {
		field(&b, "  ", kv[0], kv[1])
	}
	b.WriteString("---\n\n")
	b.Write(ins)
	b.Write(links)
	return b.Bytes()
}

// field writes one front matter member with a double-quoted value.
func field(b *bytes.Buffer, indent, name, value string) {
	b.WriteString(indent + name + ": ")
	quote(b, value)
	b.WriteByte('\n')
}

// quote writes s as a YAML double-quoted scalar. Besides what YAML needs
// escaped, a hyphen after a hyphen is written \x2d: the validators find the
// end of the front matter by the first "---" anywhere, even inside a value.
func quote(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	prev := rune(0)
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c == '-' && prev == '-':
			b.WriteString(`\x2d`)
		case c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == 0x2028 || c == 0x2029 || c == 0xfeff:
			fmt.Fprintf(b, `\u%04x`, c)
		default:
			b.WriteRune(c)
		}
		prev = c
	}
	b.WriteByte('"')
}

// endpointHost is the host (and port) of the skill's endpoint.
func endpointHost(d *skillcat.SkillDescriptor) string {
	u, err := url.Parse(d.Endpoint.URL)
	if err != nil {
		return ""
	}
	return u.Host
}

// Body returns the Markdown after the front matter: everything an agent
// needs to call the skill (Instructions), then the links to the descriptor
// and the docs page (Links).
func Body(s *Skill) ([]byte, error) {
	ins, err := Instructions(s)
	if err != nil {
		return nil, err
	}
	return append(ins, Links(s)...), nil
}

// linksHeading starts the last section of a body, the only one holding
// URLs that depend on where the document is.
const linksHeading = "## Links\n\n"

// Links is the last section of a body: the descriptor (with its digest)
// and the docs page, linked from where the document holding it is. It
// needs only the Skill's URLs and digest, not its descriptor.
func Links(s *Skill) []byte {
	return fmt.Appendf([]byte(linksHeading), "- [Descriptor](%s) (JSON, digest `%s`)\n- [Documentation page](%s)\n", s.DescriptorURL, s.Digest, s.PageURL)
}

// InstructionsOf returns the Instructions part of a SKILL.md that Document
// made: what lies between the front matter and the Links section, which
// does not depend on where the document is. ok is false for anything else.
func InstructionsOf(doc []byte) (ins []byte, ok bool) {
	if !bytes.HasPrefix(doc, []byte("---\n")) {
		return nil, false
	}
	end := bytes.Index(doc[4:], []byte("\n---\n\n"))
	if end < 0 {
		return nil, false
	}
	body := doc[4+end+len("\n---\n\n"):]
	i := bytes.LastIndex(body, []byte("\n"+linksHeading))
	if i < 0 {
		return nil, false
	}
	return body[:i+1], true
}

// Instructions is the body without its Links: how to call the skill, what
// it takes and returns, and examples. It holds no URL of the site, so it is
// the same wherever the document is.
func Instructions(s *Skill) ([]byte, error) { return AppendInstructions(nil, s) }

// AppendInstructions appends the skill's Instructions to dst, so that a
// caller that makes many can reuse one buffer.
func AppendInstructions(dst []byte, s *Skill) ([]byte, error) {
	d := s.Descriptor
	b := *bytes.NewBuffer(dst)
	b.Grow(instructionsSize(s))
	fmt.Fprintf(&b, "# %s\n\n", skillcat.MarkdownText(d.Name))
	if s.Summary != "" {
		fmt.Fprintf(&b, "%s\n\n", skillcat.MarkdownText(s.Summary))
	}
	fmt.Fprintf(&b, "- Skill id: `%s`, version %s, %s skill (Skill Sharing Protocol %s)\n", d.ID, d.Version, article(typeWord(d.CapabilityType)), skillcat.CurrentVersion)
	fmt.Fprintf(&b, "- Provider: %s", skillcat.MarkdownText(d.Provider.Name))
	if d.Provider.URL != "" {
		fmt.Fprintf(&b, " <%s>", d.Provider.URL)
	}
	if d.Provider.Email != "" {
		fmt.Fprintf(&b, ", %s", d.Provider.Email)
	}
	if d.DocumentationURL != "" {
		fmt.Fprintf(&b, "; documentation: <%s>", d.DocumentationURL)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "- Access: %s\n\n", accessWords(d.Access))

	method := d.Endpoint.EffectiveMethod()
	b.WriteString("## How to call it\n\n")
	fmt.Fprintf(&b, "Endpoint: %s\n\n", code(method+" "+d.Endpoint.URL))
	if hasBody(method) {
		fmt.Fprintf(&b, "Send an InvocationRequest as the JSON body (`Content-Type: application/json`): "+
			"`caller` (who is calling), `skill_id` (`%s`), `inputs` (below), and optionally `request_id` "+
			"(your idempotency key) and `context`.", d.ID)
	} else {
		fmt.Fprintf(&b, "%s carries no body: send the InvocationRequest's members as query parameters, "+
			"`skill_id` (`%s`) and `request_id` as plain text, `caller`, `inputs` and `context` as compact JSON text.", method, d.ID)
	}
	b.WriteString(" The reply is an InvocationResponse: `status` is `accepted` or `running` while the work goes on, " +
		"`succeeded` with the `output` (below), or `failed` with an `error` holding `code` and `message`.\n\n")

	b.WriteString("## Authentication\n\n")
	writeAuth(&b, d.Auth)

	b.WriteString("## Inputs\n\n`inputs` must be valid against this JSON Schema:\n\n")
	if err := fencedJSON(&b, d.Inputs); err != nil {
		return nil, fmt.Errorf("inputs: %w", err)
	}
	b.WriteString("## Output\n\nOn success, `output` is valid against this JSON Schema:\n\n")
	if err := fencedJSON(&b, d.Output); err != nil {
		return nil, fmt.Errorf("output: %w", err)
	}
	for i, ex := range d.Examples {
		if err := writeExample(&b, d, ex, i); err != nil {
			return nil, err
		}
	}
	return b.Bytes(), nil
}

// instructionsSize is about the length of a skill's Instructions, so that
// its buffer is allocated once: the fixed text and the skill's names, its
// schemas (indented from their published form, which is already indented
// deeper) and each example's request and response around its values.
func instructionsSize(s *Skill) int {
	d := s.Descriptor
	n := 1536 + len(s.Summary) + len(d.Name) + 3*len(d.ID) + len(d.Endpoint.URL) + len(d.Auth.Instructions) + len(d.Inputs) + len(d.Output)
	for _, ex := range d.Examples {
		n += 512 + len(ex.Title) + len(ex.Inputs) + len(ex.Output)
	}
	return n
}

// accessWords says who may call a skill.
func accessWords(a skillcat.Access) string {
	if a == skillcat.Restricted {
		return "restricted: only callers the provider has granted access may call it; ask the provider for credentials."
	}
	return "public: anyone may call it."
}

// writeAuth says in words how a call is authenticated.
func writeAuth(b *bytes.Buffer, a skillcat.Auth) {
	switch a.Type {
	case skillcat.AuthAPIKey:
		if a.In == "query" {
			fmt.Fprintf(b, "An API key, sent as the query parameter %s.\n\n", code(a.Name))
		} else {
			fmt.Fprintf(b, "An API key, sent in the request header %s.\n\n", code(a.Name))
		}
	case skillcat.AuthOAuth2:
		fmt.Fprintf(b, "OAuth 2.0: get an access token from <%s>", a.TokenURL)
		if a.AuthorizationURL != "" {
			fmt.Fprintf(b, " (authorize at <%s>)", a.AuthorizationURL)
		}
		b.WriteString(" and send it as `Authorization: Bearer <token>`.\n\n")
		if len(a.Scopes) > 0 {
			names := make([]string, 0, len(a.Scopes))
			for name := range a.Scopes {
				names = append(names, name)
			}
			sort.Strings(names)
			b.WriteString("Scopes:\n\n")
			for _, name := range names {
				fmt.Fprintf(b, "- %s: %s\n", code(name), skillcat.MarkdownText(a.Scopes[name]))
			}
			b.WriteString("\n")
		}
	case skillcat.AuthCustom:
		b.WriteString("As the provider describes:\n\n")
		for _, line := range strings.Split(skillcat.Printable(strings.TrimSpace(a.Instructions)), "\n") {
			b.WriteString(strings.TrimRight("> "+line, " ") + "\n")
		}
		b.WriteString("\n")
	default:
		b.WriteString("None: no credentials are needed.\n\n")
	}
}

// The example responses' fixed times, as on the docs pages.
const (
	exampleCreated   = "2026-01-01T12:00:00Z"
	exampleStarted   = "2026-01-01T12:00:00.120Z"
	exampleCompleted = "2026-01-01T12:00:00.480Z"
)

// writeExample writes one example as a ready InvocationRequest and, when
// the example shows an output, the InvocationResponse that carries it.
func writeExample(b *bytes.Buffer, d *skillcat.SkillDescriptor, ex skillcat.Example, i int) error {
	title := skillcat.MarkdownText(ex.Title)
	if title == "" {
		title = fmt.Sprintf("Example %d", i+1)
	}
	req := skillcat.InvocationRequest{
		Caller:    skillcat.Caller{ID: "my-agent", Type: skillcat.CallerAgent},
		SkillID:   d.ID,
		Inputs:    ex.Inputs,
		Protocol:  &skillcat.ProtocolVersion{Version: skillcat.CurrentVersion},
		RequestID: fmt.Sprintf("example-%d", i+1),
	}
	data, err := req.Encode()
	if err != nil {
		return fmt.Errorf("example %d request: %w", i, err)
	}
	fmt.Fprintf(b, "## Example: %s\n\nRequest:\n\n", title)
	fence(b, data)
	if ex.Output == nil {
		return nil
	}
	resp := skillcat.InvocationResponse{
		ExecutionID: fmt.Sprintf("exec-example-%d", i+1),
		Status:      skillcat.StatusSucceeded,
		SkillID:     d.ID,
		Timestamps:  skillcat.Timestamps{CreatedAt: exampleCreated, StartedAt: exampleStarted, CompletedAt: exampleCompleted},
		Output:      ex.Output,
	}
	if data, err = resp.Encode(); err != nil {
		return fmt.Errorf("example %d response: %w", i, err)
	}
	b.WriteString("Response:\n\n")
	fence(b, data)
	return nil
}

// fencedJSON writes a schema indented, numbers as written, in a fenced
// block.
//
// It is indented straight into b: indenting changes only the white space
// between tokens, so the runs of backticks (inside strings) that the fence
// must outrun are raw's. On an error, b is the caller's to drop.
func fencedJSON(b *bytes.Buffer, raw json.RawMessage) error {
	f := fenceOf(raw)
	b.WriteString(f)
	b.WriteString("json\n")
	if err := skillcat.IndentJSON(b, raw); err != nil {
		return err
	}
	b.WriteByte('\n')
	b.WriteString(f)
	b.WriteString("\n\n")
	return nil
}

// fence writes code (ending in a newline) in a fenced json block whose
// fence is longer than any run of backticks inside it.
func fence(b *bytes.Buffer, code []byte) {
	f := fenceOf(code)
	b.WriteString(f)
	b.WriteString("json\n")
	b.Write(code)
	b.WriteString(f)
	b.WriteString("\n\n")
}

// fenceOf is the fence for code: longer than any run of backticks in it,
// and at least three.
func fenceOf(code []byte) string {
	longest, run := 0, 0
	for _, c := range code {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	if longest < 3 {
		return "```"
	}
	return strings.Repeat("`", longest+1)
}

// hasBody reports whether the HTTP binding sends the InvocationRequest as
// a JSON body with method (POST, PUT, PATCH) rather than as query
// parameters (GET, DELETE).
func hasBody(method string) bool { return method != "GET" && method != "DELETE" }

// code writes s as a Markdown code span, with a fence of backticks longer
// than any run inside it.
func code(s string) string {
	s = skillcat.Printable(s)
	longest, run := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", longest+1)
	if longest > 0 {
		return f + " " + s + " " + f
	}
	return f + s + f
}
