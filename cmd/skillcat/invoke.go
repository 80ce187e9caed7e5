package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/client"
)

func init() {
	commands["invoke"] = command{summary: "call a skill of a published catalog and print its output", run: runInvoke}
}

// maxInputsBytes caps an --inputs file.
const maxInputsBytes = 10 << 20

// inputFlags collects repeated --input NAME=VALUE flags.
type inputFlags []string

func (f *inputFlags) String() string     { return strings.Join(*f, " ") }
func (f *inputFlags) Set(v string) error { *f = append(*f, v); return nil }

// runInvoke discovers a skill, builds and checks an InvocationRequest from
// the inputs given, sends it over the HTTP binding with the credential from
// the environment, polls until the execution ends, and prints the output.
// Exit codes: 0 succeeded; 1 an invalid request, response or output, or the
// skill failed; 2 usage; 3 network.
func runInvoke(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "invoke", "URL ID [flags]")
	var inputs inputFlags
	fs.Var(&inputs, "input", "an input `NAME=VALUE` (repeatable): a string where the schema wants one, JSON otherwise; NAME:=JSON forces JSON; a.b=V sets a nested member")
	inputsFile := fs.String("inputs", "", "a `file` holding the inputs as a JSON object, or - for stdin; --input values are set on top")
	requestID := fs.String("request-id", "", "the request's idempotency `key`")
	authEnv := fs.String("auth-env", DefaultCredentialEnv, "the environment `variable` holding the credential: the API key, the OAuth 2.0 access token (or set $"+ClientIDEnv+" and $"+ClientSecretEnv+" to obtain one from token_url), or for a custom auth header lines \"Name: value\"")
	format := fs.String("format", "text", "output `format`: text (the output) or json (the final InvocationResponse)")
	endpoint := fs.String("endpoint", "", "call this `URL` instead of the skill's endpoint.url (a staging deployment); {id} and {path} are replaced as test-endpoints does")
	wait := fs.Duration("wait", client.DefaultWait, "how long to poll an accepted or running execution")
	cf := addClientFlags(fs)
	callerID := fs.String("caller", client.DefaultCaller.ID, "the caller `id` sent in the request")
	pollURL := fs.String("poll", "", "send nothing: follow the execution at this status `URL` (the Location of an earlier answer, on the endpoint's origin) until it ends")
	var scopes inputFlags
	fs.Var(&scopes, "scope", "an OAuth 2.0 `scope` to request when invoke obtains the token itself ($"+ClientIDEnv+" and $"+ClientSecretEnv+"); repeatable")
	describe(fs, "URL ID [--input NAME=VALUE ...] [--inputs FILE|-] [flags]",
		"Discovers skill ID in the catalog at URL (digest verified), checks the inputs\n"+
			"against its inputs schema before anything is sent, calls its endpoint as\n"+
			"docs/protocol.md (\"Invocation over HTTP\") says, polls until the execution ends,\n"+
			"checks the response and its output, and prints the output.\n"+
			"\nExit codes: 0 succeeded; 1 invalid request, response or output, or the skill\n"+
			"failed; 2 usage or a missing credential; 3 network.")
	pos, code := parseArgs(e, fs, args)
	if code >= 0 {
		return code
	}
	usageErr := usageError(e, "invoke")
	switch {
	case len(pos) != 2:
		return usageErr("want a catalog URL and a skill id; got %d arguments", len(pos))
	case *format != "text" && *format != "json":
		return usageErr("--format must be text or json; got %q", *format)
	case cf.problem() != "":
		return usageErr("%s", cf.problem())
	case *wait < 0:
		return usageErr("--wait must not be negative; got %v", *wait)
	case *authEnv == "":
		return usageErr("--auth-env needs a variable name")
	case *pollURL != "" && (len(inputs) > 0 || *inputsFile != "" || *requestID != ""):
		return usageErr("--poll sends no request: it takes no --input, --inputs or --request-id")
	}
	if err := catalogArg(pos[0]); err != nil {
		return usageErr("%v", err)
	}
	if *endpoint != "" {
		if err := endpointArg(*endpoint); err != nil {
			return usageErr("--endpoint: %v", err)
		}
	}
	var base json.RawMessage
	baseName := "inputs"
	if *inputsFile != "" {
		data, err := readInputs(e, *inputsFile)
		if err != nil {
			return usageErr("--inputs: %v", err)
		}
		base = data
		if *inputsFile != "-" {
			baseName = *inputsFile
		}
	}

	c := cf.client()
	s, code := findSkill(ctx, e, "invoke", c, cf, pos[0], pos[1])
	if code >= 0 {
		return code
	}
	d := s.Descriptor
	in, err := buildInputs(d.Inputs, base, inputs)
	if err != nil {
		return usageErr("%v", err)
	}
	if len(inputs) > 0 {
		baseName = "inputs"
	}
	cred, hide, err := credential(ctx, e, c, d.Auth, *authEnv, scopes)
	if errors.Is(err, client.ErrToken) || isNetwork(err) {
		fmt.Fprintf(&redactor{w: e.stderr, secrets: hide}, "skillcat: invoke: %s: %v\n", d.ID, err)
		if isNetwork(err) {
			return exitNetwork
		}
		return exitInvalid
	}
	if err != nil {
		return usageErr("%v", err)
	}
	stdout := &redactor{w: e.stdout, secrets: hide}
	stderr := &redactor{w: e.stderr, secrets: hide}
	say := func(format string, a ...any) { fmt.Fprintf(stderr, "skillcat: invoke: "+format+"\n", a...) }

	target := ""
	if *endpoint != "" {
		target = endpointFor(*endpoint, d)
	}
	start := time.Now()
	statusURL := *pollURL
	opts := client.InvokeOptions{
		Caller:     skillcat.Caller{ID: *callerID, Type: skillcat.CallerAgent},
		RequestID:  *requestID,
		Credential: cred,
		Endpoint:   target,
		Wait:       *wait,
		OnWarnings: func(vs skillcat.Violations) {
			for _, v := range vs {
				say("%s", printable(v.Error()))
			}
		},
		OnResponse: func(r *skillcat.InvocationResponse, next string) {
			if !r.Status.Terminal() {
				statusURL = next
				say("%s: %s (execution %s); polling %s", d.ID, r.Status, printable(r.ExecutionID), printable(next))
			}
		},
	}
	var resp *skillcat.InvocationResponse
	if *pollURL != "" {
		resp, err = c.Poll(ctx, d, *pollURL, opts)
	} else {
		resp, err = c.Invoke(ctx, d, in, opts)
	}
	if err != nil {
		code := invokeError(e, stderr, d, *authEnv, baseName, resp, err)
		if errors.Is(err, client.ErrStillRunning) && statusURL != "" {
			say("resume with: skillcat invoke %s %s --poll %s", shellWord(pos[0]), d.ID, shellWord(statusURL))
		}
		return code
	}
	if *format == "json" {
		data, err := resp.Encode()
		if err != nil {
			say("encode response: %v", err)
			return exitInternal
		}
		stdout.Write(data)
	}
	elapsed := time.Since(start).Round(time.Millisecond)
	switch resp.Status {
	case skillcat.StatusSucceeded:
		if *format == "text" {
			writeJSONValue(stdout, resp.Output)
		}
		say("%s: succeeded in %v (execution %s)", d.ID, elapsed, printable(resp.ExecutionID))
		return exitOK
	case skillcat.StatusFailed:
		say("%s: failed (execution %s): %s: %s", d.ID, printable(resp.ExecutionID), printable(resp.Error.Code), printable(resp.Error.Message))
	default:
		say("%s: %s (execution %s)", d.ID, resp.Status, printable(resp.ExecutionID))
	}
	return exitInvalid
}

// invokeError prints why Invoke failed and returns the exit code.
func invokeError(e *env, w io.Writer, d *skillcat.SkillDescriptor, authEnv, inputsName string, last *skillcat.InvocationResponse, err error) int {
	if vs, ok := skillcat.AsViolations(err); ok {
		// Violations of the answer (a *client.ResponseError) come after
		// the request went out: saying nothing was sent would invite a
		// second call of a skill that may have acted.
		var answer *client.ResponseError
		if errors.As(err, &answer) {
			printViolations(&env{stderr: w, getenv: e.getenv}, "text", vs)
			fmt.Fprintf(w, "skillcat: invoke: %s: the request was sent, and the answer from %s is invalid (%s)\n", d.ID, printable(answer.URL), plural(len(vs), "problem"))
			return exitInvalid
		}
		for i := range vs {
			if strings.HasPrefix(vs[i].Field, "inputs") || vs[i].Field == "inputs" {
				vs[i].File = inputsName
			}
		}
		printViolations(&env{stderr: w, getenv: e.getenv}, "text", vs)
		fmt.Fprintf(w, "skillcat: invoke: %s: the request is invalid (%s); nothing was sent\n", d.ID, plural(len(vs), "problem"))
		return exitInvalid
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(w, "skillcat: invoke interrupted")
		return exitInternal
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		fmt.Fprintf(w, "skillcat: invoke: %s: %s\n", d.ID, printable(line))
	}
	switch {
	case errors.Is(err, client.ErrCredential):
		fmt.Fprintf(w, "skillcat: invoke: set $%s (or name another variable with --auth-env) to the credential\n", authEnv)
		return exitUsage
	case errors.Is(err, client.ErrStillRunning):
		return exitNetwork
	case errors.Is(err, client.ErrInvalidResponse), errors.Is(err, client.ErrHTTPStatus),
		errors.Is(err, client.ErrContentType), errors.Is(err, client.ErrTooLarge):
		return exitInvalid
	case isNetwork(err):
		return exitNetwork
	}
	return exitInvalid
}

// endpointArg checks an --endpoint URL.
func endpointArg(raw string) error {
	if !strings.Contains(raw, "://") {
		return fmt.Errorf("%q has no scheme; want an absolute URL", raw)
	}
	_, err := client.IndexURL(strings.ReplaceAll(strings.ReplaceAll(raw, "{id}", "x"), "{path}", "/x"))
	return err
}

// readInputs reads an --inputs file, or stdin for "-".
func readInputs(e *env, name string) ([]byte, error) {
	var r io.Reader
	if name == "-" {
		r = e.stdin
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, maxInputsBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxInputsBytes {
		return nil, fmt.Errorf("larger than %d bytes", maxInputsBytes)
	}
	if !json.Valid(data) {
		return nil, errors.New("not valid JSON; want a JSON object of the inputs")
	}
	return data, nil
}

// buildInputs sets each NAME=VALUE of pairs on the inputs object base (an
// empty object when nil). A value is a string where the inputs schema
// wants a string at NAME, and JSON otherwise (a string when it is not
// JSON); NAME:=VALUE is always JSON. Without pairs base is returned as it
// is, so that violations point into the file it came from.
func buildInputs(schema, base json.RawMessage, pairs []string) (json.RawMessage, error) {
	if len(pairs) == 0 {
		if base == nil {
			return json.RawMessage("{}"), nil
		}
		return base, nil
	}
	obj := map[string]any{}
	if base != nil {
		dec := json.NewDecoder(strings.NewReader(string(base)))
		dec.UseNumber()
		if err := dec.Decode(&obj); err != nil {
			return nil, fmt.Errorf("--inputs: want a JSON object to set --input values on: %v", err)
		}
	}
	root, _ := skillcat.ParseJSON(schema)
	for _, p := range pairs {
		name, value, forceJSON := "", "", false
		if i := strings.Index(p, ":="); i >= 0 && (strings.IndexByte(p, '=') == i+1) {
			name, value, forceJSON = p[:i], p[i+2:], true
		} else if n, v, ok := strings.Cut(p, "="); ok {
			name, value = n, v
		} else {
			return nil, fmt.Errorf("--input %q: want NAME=VALUE", p)
		}
		path := strings.Split(name, ".")
		for _, seg := range path {
			if seg == "" {
				return nil, fmt.Errorf("--input %q: empty member name", p)
			}
		}
		var v any = value
		if forceJSON || !wantsString(root, path) && json.Valid([]byte(value)) {
			dec := json.NewDecoder(strings.NewReader(value))
			dec.UseNumber()
			if err := dec.Decode(&v); err != nil {
				return nil, fmt.Errorf("--input %q: %v", p, err)
			}
		}
		cur := obj
		for _, seg := range path[:len(path)-1] {
			next, ok := cur[seg].(map[string]any)
			if !ok {
				next = map[string]any{}
				cur[seg] = next
			}
			cur = next
		}
		cur[path[len(path)-1]] = v
	}
	data, err := json.Marshal(obj)
	return data, err
}

// wantsString reports whether the schema's property at path takes a
// string: its type is "string" or includes it, or it is an enum of strings.
func wantsString(schema *skillcat.Node, path []string) bool {
	n := schema
	for _, seg := range path {
		if n == nil {
			return false
		}
		n = n.Get("properties").Get(seg)
	}
	if n == nil || n.Kind != skillcat.Object {
		return false
	}
	switch t := n.Get("type"); {
	case t != nil && t.Kind == skillcat.String:
		return t.Text == "string"
	case t != nil && t.Kind == skillcat.Array:
		for _, it := range t.Items {
			if it.Text == "string" {
				return true
			}
		}
		return false
	}
	if en := n.Get("enum"); en != nil && len(en.Items) > 0 {
		for _, it := range en.Items {
			if it.Kind != skillcat.String {
				return false
			}
		}
		return true
	}
	return false
}

// writeJSONValue prints a JSON value indented, numbers as written.
func writeJSONValue(w io.Writer, raw json.RawMessage) {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		fmt.Fprintln(w, string(raw))
		return
	}
	b.WriteByte('\n')
	w.Write(b.Bytes())
}
