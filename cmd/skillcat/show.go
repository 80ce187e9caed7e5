package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/client"
)

func init() {
	commands["show"] = command{summary: "show one skill of a published catalog: endpoint, auth, inputs, output, examples", run: runShow}
}

// shownSkill is show --format json.
type shownSkill struct {
	discoveredSkill
	DigestVerified bool                      `json:"digest_verified"`
	Signature      shownSignature            `json:"signature"`
	Endpoint       skillcat.Endpoint         `json:"endpoint"`
	Auth           shownAuth                 `json:"auth"`
	Inputs         []fieldRow                `json:"inputs"`
	Output         []fieldRow                `json:"output"`
	Examples       []skillcat.Example        `json:"examples"`
	Descriptor     *skillcat.SkillDescriptor `json:"descriptor"`
}

// shownSignature is what show --format json says of the index's signature.
type shownSignature struct {
	URL      string `json:"url"`
	Signed   bool   `json:"signed"`
	KID      string `json:"kid,omitempty"`
	Verified bool   `json:"verified"`
}

type shownAuth struct {
	skillcat.Auth
	Summary string `json:"summary"`
}

// MarshalJSON writes the auth object as the descriptor has it, with the
// summary in words added.
func (a shownAuth) MarshalJSON() ([]byte, error) {
	data, err := json.Marshal(a.Auth)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	m["summary"], _ = json.Marshal(a.Summary)
	return json.Marshal(m)
}

// runShow discovers one skill of a catalog, its digest verified, and
// prints what a person needs to call it.
func runShow(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "show", "URL ID [--format text|json]")
	format := fs.String("format", "text", "output `format`: text or json")
	cf := addClientFlags(fs)
	describe(fs, "URL ID [flags]",
		"Fetches the catalog's index at URL, then the descriptor of skill ID, verifies\n"+
			"its digest and validity, and prints its endpoint, auth, inputs, output and examples.")
	pos, code := parseArgs(e, fs, args)
	if code >= 0 {
		return code
	}
	usageErr := usageError(e, "show")
	switch {
	case len(pos) != 2:
		return usageErr("want a catalog URL and a skill id; got %d arguments", len(pos))
	case *format != "text" && *format != "json":
		return usageErr("--format must be text or json; got %q", *format)
	case cf.problem() != "":
		return usageErr("%s", cf.problem())
	}
	if err := catalogArg(pos[0]); err != nil {
		return usageErr("%v", err)
	}
	s, code := findSkill(ctx, e, "show", cf.client(), cf, pos[0], pos[1])
	if code >= 0 {
		return code
	}
	var err error
	if *format == "json" {
		err = writeShownJSON(e.stdout, s)
	} else {
		err = writeShown(e.stdout, s, pos[0])
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "skillcat: show: write output: %v\n", err)
		return exitInternal
	}
	return exitOK
}

func writeShownJSON(w io.Writer, s *client.VerifiedSkill) error {
	d := s.Descriptor
	out := shownSkill{
		discoveredSkill: discovered(*s), DigestVerified: true,
		Signature: shownSignature{URL: s.Signature.URL, Signed: s.Signature.Signed, KID: s.Signature.KID, Verified: s.Signature.Verified},
		Endpoint:  skillcat.Endpoint{URL: d.Endpoint.URL, Method: d.Endpoint.EffectiveMethod()},
		Auth:      shownAuth{Auth: d.Auth, Summary: authSummary(d.Auth)},
		Inputs:    schemaFields(d.Inputs), Output: schemaFields(d.Output),
		Examples: d.Examples, Descriptor: d,
	}
	if out.Examples == nil {
		out.Examples = []skillcat.Example{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// writeShown prints the skill for a person.
func writeShown(w io.Writer, s *client.VerifiedSkill, base string) error {
	d := s.Descriptor
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("%s — %s %s\n", d.ID, printable(d.Name), printable(d.Version))
	if s.Entry.Summary != "" {
		p("%s\n", printable(s.Entry.Summary))
	}
	p("\n")
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintf(tw, "Type\t%s, %s\n", d.CapabilityType, d.Access)
	fmt.Fprintf(tw, "Endpoint\t%s %s\n", d.Endpoint.EffectiveMethod(), printable(d.Endpoint.URL))
	fmt.Fprintf(tw, "Auth\t%s\n", printable(authSummary(d.Auth)))
	provider := d.Provider.Name
	if d.Provider.Email != "" {
		provider += " <" + d.Provider.Email + ">"
	}
	if d.Provider.URL != "" {
		provider += " " + d.Provider.URL
	}
	fmt.Fprintf(tw, "Provider\t%s\n", printable(provider))
	if d.DocumentationURL != "" {
		fmt.Fprintf(tw, "Docs\t%s\n", printable(d.DocumentationURL))
	}
	fmt.Fprintf(tw, "Descriptor\t%s\n", printable(s.URL))
	fmt.Fprintf(tw, "Digest\t%s (verified)\n", s.Entry.Digest)
	fmt.Fprintf(tw, "Signature\t%s\n", signatureSummary(s.Signature))
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, part := range []struct {
		title  string
		schema json.RawMessage
	}{{"Inputs", d.Inputs}, {"Output", d.Output}} {
		p("\n%s:\n", part.title)
		if err := writeFields(w, schemaFields(part.schema)); err != nil {
			return err
		}
	}
	if len(d.Examples) > 0 {
		p("\nExamples:\n")
	}
	for i, ex := range d.Examples {
		title := ex.Title
		if strings.TrimSpace(title) == "" {
			title = fmt.Sprintf("Example %d", i+1)
		}
		inputs := compactJSON(ex.Inputs)
		p("  %d. %s\n", i+1, printable(title))
		p("     inputs: %s\n", inputs)
		if ex.Output != nil {
			p("     output: %s\n", compactJSON(ex.Output))
		}
		p("     run:    echo %s | skillcat invoke %s %s --inputs -\n", shellWord(inputs), shellWord(base), d.ID)
	}
	return nil
}

// signatureSummary says in words what the index's signature is.
func signatureSummary(sig client.Signature) string {
	switch {
	case sig.Verified:
		return "the index is signed by the pinned key " + printable(sig.KID)
	case sig.Signed:
		return "the index is signed by key " + printable(sig.KID) + " (not verified: pin a key with --verify-key)"
	}
	return "the index is not signed"
}

// authSummary says in words how a consumer authenticates.
func authSummary(a skillcat.Auth) string {
	switch a.Type {
	case skillcat.AuthAPIKey:
		where := "header " + a.Name
		if a.In == "query" {
			where = "query parameter " + a.Name
		}
		return "API key (api_key) in the " + where + "; invoke reads it from $" + DefaultCredentialEnv
	case skillcat.AuthOAuth2:
		s := "OAuth 2.0 (oauth2) bearer token from " + a.TokenURL
		if a.AuthorizationURL != "" {
			s += " (authorize at " + a.AuthorizationURL + ")"
		}
		if len(a.Scopes) > 0 {
			s += "; scopes " + strings.Join(sortedKeys(a.Scopes), ", ")
		}
		return s + "; invoke sends $" + DefaultCredentialEnv + " as \"Authorization: Bearer …\""
	case skillcat.AuthCustom:
		return "custom: " + strings.Join(strings.Fields(a.Instructions), " ") + " (invoke sends the header lines of $" + DefaultCredentialEnv + ")"
	}
	return "none: no credentials needed"
}

func compactJSON(raw json.RawMessage) string {
	n, err := skillcat.ParseJSON(raw)
	if err != nil {
		return string(raw)
	}
	return printable(string(n.AppendJSON(nil)))
}

// shellWord quotes s for a POSIX shell when it needs it.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@%+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
