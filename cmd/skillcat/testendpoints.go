package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/build"
	"github.com/skillcat/skillcat/client"
)

func init() {
	commands["test-endpoints"] = command{summary: "call every example of the content's skills on their live endpoints and check the answers", run: runTestEndpoints}
}

// exampleResult is the outcome of one example, a line of
// test-endpoints --format json.
type exampleResult struct {
	ID       string           `json:"id"`
	Example  int              `json:"example"`
	Title    string           `json:"title"`
	File     string           `json:"file"`
	Line     int              `json:"line"`
	Column   int              `json:"column"`
	Endpoint string           `json:"endpoint"`
	Passed   bool             `json:"passed"`
	Problems []exampleProblem `json:"problems"`

	network  bool
	duration time.Duration
}

// exampleProblem is one reason an example failed.
type exampleProblem struct {
	Field  string `json:"field"`
	Reason string `json:"reason"`
}

// envFlags collects repeated --auth-env [ID=]VAR flags.
type envFlags struct {
	all   string
	perID map[string]string
}

func (f *envFlags) String() string { return f.all }
func (f *envFlags) Set(v string) error {
	id, name, ok := strings.Cut(v, "=")
	if !ok {
		f.all = v
		return nil
	}
	if !skillcat.ValidID(id) || name == "" {
		return fmt.Errorf("want VAR or ID=VAR; got %q", v)
	}
	f.perID[id] = name
	return nil
}

func (f *envFlags) name(id string) string {
	if n, ok := f.perID[id]; ok {
		return n
	}
	return f.all
}

// runTestEndpoints turns the examples of the content's skills into
// contract tests of their live endpoints: each example's inputs are sent,
// and the answer must be a valid, succeeded InvocationResponse whose
// output validates and equals the example's output (or has its shape).
// Private skills are tested only with --include-private, so that a public
// CI log tells nothing of them.
func runTestEndpoints(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "test-endpoints", "[--content DIR] [--only ID] [--auth-env [ID=]VAR] [flags]")
	content := fs.String("content", "content", "the content `directory` of skill sources")
	var only inputFlags
	fs.Var(&only, "only", "test only the skill `ID` (repeatable)")
	auth := &envFlags{all: DefaultCredentialEnv, perID: map[string]string{}}
	fs.Var(auth, "auth-env", "the environment `variable` holding the credential; ID=VAR for one skill's (repeatable)")
	endpoint := fs.String("endpoint", "", "call this `URL` instead of each endpoint.url; {id} is replaced by the skill's id and {path} by its endpoint's path and query (https://staging.example.com{path})")
	match := fs.String("match", "exact", "how an output must agree with the example's: exact (equal JSON values) or shape (the same members and types)")
	format := fs.String("format", "text", "output `format`: text, json or github")
	timeout := fs.Duration("timeout", client.DefaultTimeout, "time allowed for each request, body included")
	wait := fs.Duration("wait", client.DefaultWait, "how long to poll an accepted or running execution")
	includePrivate := fs.Bool("include-private", false, "test private skills too (their ids and endpoints are then printed: not for a public CI log)")
	describe(fs, "[flags]",
		"Validates the content, then sends every example's inputs to its skill's endpoint\n"+
			"and checks that the answer is a valid InvocationResponse that succeeded, whose\n"+
			"output validates against the output schema and equals the example's output.\n"+
			"\nExit codes: 0 every example passed; 1 an example failed or the content is\n"+
			"invalid; 2 usage; 3 an endpoint could not be reached (and nothing else failed).")
	if code := parseFlags(e, fs, args); code >= 0 {
		return code
	}
	usageErr := usageError(e, "test-endpoints")
	switch {
	case *format != "text" && *format != "json" && *format != "github":
		return usageErr("--format must be text, json or github; got %q", *format)
	case *match != "exact" && *match != "shape":
		return usageErr("--match must be exact or shape; got %q", *match)
	case *timeout <= 0:
		return usageErr("--timeout must be positive; got %v", *timeout)
	case *wait < 0:
		return usageErr("--wait must not be negative; got %v", *wait)
	}
	if *endpoint != "" {
		if err := endpointArg(*endpoint); err != nil {
			return usageErr("--endpoint: %v", err)
		}
	}
	cfg, code := contentConfig(e, fs, *content, false)
	if code >= 0 {
		return code
	}
	skills, _, err := build.Skills(ctx, cfg)
	var invalid *build.InvalidError
	switch {
	case errors.As(err, &invalid):
		printViolations(e, *format, invalid.Violations)
		fmt.Fprintf(e.stderr, "skillcat: test-endpoints: the content is invalid (%s); run skillcat validate\n", plural(countSeverity(invalid.Violations, "error"), "error"))
		return exitInvalid
	case err != nil:
		fmt.Fprintf(e.stderr, "skillcat: test-endpoints: %v\n", err)
		return exitInternal
	}
	for _, id := range only {
		i := slices.IndexFunc(skills, func(s build.SourceSkill) bool { return s.Descriptor.ID == id })
		switch {
		case i < 0 || skills[i].Descriptor.Access == skillcat.Private && !*includePrivate && publicLog(e):
			return usageErr("--only %q: no such skill in %s", id, *content)
		case skills[i].Descriptor.Access == skillcat.Private && !*includePrivate:
			return usageErr("--only %q: the skill is private; pass --include-private to test it (its id and endpoint are then printed)", id)
		}
	}

	c := &client.Client{Timeout: *timeout, UserAgent: client.UserAgent(Version)}
	var results []exampleResult
	var secretList []string
	untested := 0
	for _, s := range skills {
		d := s.Descriptor
		// Private skills stay out of what is printed (a CI log may be
		// public) unless asked for.
		if len(only) > 0 && !slices.Contains(only, d.ID) || d.Access == skillcat.Private && !*includePrivate {
			continue
		}
		if len(d.Examples) == 0 {
			untested++
			continue
		}
		cred, hide, cerr := credential(ctx, e, c, d.Auth, auth.name(d.ID), nil)
		secretList = append(secretList, hide...)
		target := endpointFor(*endpoint, d)
		for i, ex := range d.Examples {
			if ctx.Err() != nil {
				fmt.Fprintln(e.stderr, "skillcat: test-endpoints interrupted")
				return exitInternal
			}
			r := exampleResult{ID: d.ID, Example: i, Title: ex.Title, File: s.File, Endpoint: target, Problems: []exampleProblem{}}
			if i < len(s.Examples) {
				r.Line, r.Column = s.Examples[i].Line, s.Examples[i].Column
			}
			if cerr != nil {
				r.Problems = append(r.Problems, exampleProblem{"auth", cerr.Error()})
			} else {
				start := time.Now()
				opts := client.InvokeOptions{
					RequestID: fmt.Sprintf("test-endpoints-%s-%d", d.ID, i+1), Credential: cred, Wait: *wait,
				}
				if *endpoint != "" {
					opts.Endpoint = target
				}
				resp, err := c.Invoke(ctx, d, ex.Inputs, opts)
				r.duration = time.Since(start)
				r.Problems, r.network = checkExample(resp, err, ex, *match == "shape", auth.name(d.ID))
			}
			r.Passed = len(r.Problems) == 0
			results = append(results, r)
		}
	}
	out := &redactor{w: e.stdout, secrets: secretList}
	errOut := &redactor{w: e.stderr, secrets: secretList}
	switch *format {
	case "json":
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if results == nil {
			results = []exampleResult{}
		}
		enc.Encode(results)
	case "github":
		for _, r := range results {
			for _, p := range r.Problems {
				fmt.Fprintf(out, "::error file=%s,line=%d,col=%d,title=%s::%s\n", ghProperty(r.File), r.Line, r.Column,
					ghProperty(fmt.Sprintf("%s examples[%d]", r.ID, r.Example)), ghData(p.Field+": "+p.Reason))
			}
		}
	default:
		writeExampleResults(out, results)
	}
	passed, failed, network := 0, 0, 0
	for _, r := range results {
		switch {
		case r.Passed:
			passed++
		case r.network:
			network++
		default:
			failed++
		}
	}
	summary := fmt.Sprintf("skillcat: test-endpoints: %s: %d passed, %d failed", plural(len(results), "example"), passed, failed+network)
	if network > 0 {
		summary += fmt.Sprintf(" (%d could not reach the endpoint)", network)
	}
	if untested > 0 {
		summary += fmt.Sprintf("; %s without examples not tested", plural(untested, "skill"))
	}
	fmt.Fprintln(errOut, summary)
	switch {
	case failed > 0:
		return exitInvalid
	case network > 0:
		return exitNetwork
	}
	return exitOK
}

// endpointFor is the URL an example of d is sent to: the --endpoint
// template with {id} and {path} replaced, or endpoint.url.
func endpointFor(template string, d *skillcat.SkillDescriptor) string {
	if template == "" {
		return d.Endpoint.URL
	}
	p := "/"
	if u, err := url.Parse(d.Endpoint.URL); err == nil {
		p = u.EscapedPath()
		if u.RawQuery != "" {
			p += "?" + u.RawQuery
		}
	}
	return strings.NewReplacer("{id}", d.ID, "{path}", p).Replace(template)
}

// checkExample lists what is wrong with the answer to an example, and
// whether the endpoint could not be reached at all.
func checkExample(resp *skillcat.InvocationResponse, err error, ex skillcat.Example, shape bool, authEnv string) ([]exampleProblem, bool) {
	var ps []exampleProblem
	if err != nil {
		var re *client.ResponseError
		switch {
		case errors.As(err, &re):
			if vs, ok := re.Err.(skillcat.Violations); ok {
				for _, v := range vs {
					field := v.Field
					if field == "" || field == skillcat.FileField {
						field = "response"
					}
					ps = append(ps, exampleProblem{field, v.Reason})
				}
				return ps, false
			}
			return []exampleProblem{{"response", "HTTP " + strconv.Itoa(re.StatusCode) + ": " + re.Err.Error()}}, false
		case errors.Is(err, client.ErrCredential):
			return []exampleProblem{{"auth", err.Error() + "; set $" + authEnv}}, false
		}
		if vs, ok := skillcat.AsViolations(err); ok {
			for _, v := range vs {
				ps = append(ps, exampleProblem{v.Field, v.Reason})
			}
			return ps, false
		}
		return []exampleProblem{{"endpoint", err.Error()}}, isNetwork(err) && !errors.Is(err, client.ErrStillRunning)
	}
	if resp.Status != skillcat.StatusSucceeded {
		reason := fmt.Sprintf("got %q, want \"succeeded\"", resp.Status)
		if resp.Error != nil {
			reason += " (" + resp.Error.Code + ": " + resp.Error.Message + ")"
		}
		return []exampleProblem{{"status", reason}}, false
	}
	if ex.Output == nil {
		return nil, false
	}
	diffs, derr := skillcat.DiffJSON("output", resp.Output, ex.Output, shape)
	if derr != nil {
		return []exampleProblem{{"output", derr.Error()}}, false
	}
	for _, df := range diffs {
		s := df.String()
		ps = append(ps, exampleProblem{df.Field, strings.TrimPrefix(s, df.Field+": ")})
	}
	return ps, false
}

// writeExampleResults prints the results as a table per skill.
func writeExampleResults(w io.Writer, results []exampleResult) {
	prev := ""
	for _, r := range results {
		if r.ID != prev {
			if prev != "" {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "%s  %s\n", r.ID, printable(r.Endpoint))
			prev = r.ID
		}
		title := r.Title
		if title == "" {
			title = "Example " + strconv.Itoa(r.Example+1)
		}
		mark := "ok  "
		if !r.Passed {
			mark = "FAIL"
		}
		line := fmt.Sprintf("  %s  examples[%d] %s", mark, r.Example, printable(title))
		if d := r.duration.Round(time.Millisecond); d > 0 {
			line += fmt.Sprintf(" (%v)", d)
		}
		fmt.Fprintln(w, line)
		for _, p := range r.Problems {
			fmt.Fprintf(w, "          %s: %s\n", printable(p.Field), printable(p.Reason))
		}
	}
}
