package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	skillcat "github.com/skillcat/skillcat"
)

// Defaults of InvokeOptions whose fields are left zero.
const (
	// DefaultWait is how long Invoke polls an accepted or running
	// execution before it gives up.
	DefaultWait = 2 * time.Minute

	// DefaultPollInterval is the pause between polls when the endpoint
	// sends no Retry-After.
	DefaultPollInterval = time.Second

	// MaxRetryAfter caps the pause an endpoint may ask for with
	// Retry-After.
	MaxRetryAfter = time.Minute

	// MaxURLBytes caps the length of the URL of a GET or DELETE
	// invocation, whose request travels in the query: RFC 9110 asks
	// every server to accept at least 8,000 octets.
	MaxURLBytes = 8000
)

// DefaultCaller is who calls a skill when InvokeOptions.Caller is zero.
var DefaultCaller = skillcat.Caller{ID: "skillcat", Type: skillcat.CallerAgent}

// The errors an invocation problem may wrap, besides those of Discover
// (ErrHTTPSRequired, ErrRedirect, ErrContentType, ErrTooLarge), for
// errors.Is.
var (
	// ErrCredential means the skill's auth type needs a credential that
	// InvokeOptions.Credential does not give.
	ErrCredential = errors.New("credential missing")

	// ErrInvalidResponse means the endpoint's answer is not a valid
	// InvocationResponse for the request: not JSON, invalid, for another
	// skill or execution, or with an output its schema refuses.
	ErrInvalidResponse = errors.New("invalid invocation response")

	// ErrHTTPStatus means the endpoint answered an unexpected HTTP status,
	// such as an error status without a failed InvocationResponse saying
	// why.
	ErrHTTPStatus = errors.New("unexpected HTTP status")

	// ErrStillRunning means the execution had not ended when
	// InvokeOptions.Wait ran out.
	ErrStillRunning = errors.New("execution still running")
)

// InvokeOptions says who calls a skill, with which credential, where, and
// how long to wait for the result.
type InvokeOptions struct {
	// Caller identifies who calls; zero means DefaultCaller.
	Caller skillcat.Caller

	// RequestID is the request's idempotency key; "" sends none.
	RequestID string

	// Context is the request's context member (a JSON object); nil sends
	// none.
	Context json.RawMessage

	// Credential is presented as the skill's auth type says.
	Credential Credential

	// Endpoint, when set, is called instead of the descriptor's
	// endpoint.url, with the descriptor's method: a staging deployment or
	// a mock. It must be an absolute https URL (http only on loopback).
	Endpoint string

	// Wait bounds how long an accepted or running execution is polled;
	// 0 means DefaultWait. A negative Wait returns the first response
	// without polling.
	Wait time.Duration

	// PollInterval is the pause between polls when the endpoint sends no
	// Retry-After; 0 means DefaultPollInterval. A Retry-After is followed
	// up to MaxRetryAfter, but never below the smaller of PollInterval and
	// 100 ms.
	PollInterval time.Duration

	// OnResponse, when set, is called with every valid response, the first
	// and each poll's, and the URL to poll next ("" once the status is
	// terminal).
	OnResponse func(resp *skillcat.InvocationResponse, statusURL string)

	// OnWarnings, when set, is called with the warnings of a valid
	// response, such as an unknown member, when it has any.
	OnWarnings func(vs skillcat.Violations)
}

// Credential is what a consumer presents to a skill's endpoint. Which
// fields apply depends on the skill's auth.type:
//
//   - api_key: Secret, sent in the header or query parameter auth.name;
//   - oauth2: Secret, an access token the consumer obtained from
//     auth.token_url, sent as "Authorization: Bearer <Secret>" (RFC 6750);
//   - custom: Header, the header fields auth.instructions ask for, and Sign
//     for a scheme that must see each request (a signature of the body);
//   - none: nothing is sent, whatever the Credential holds.
//
// A credential is sent only to the endpoint's origin: a redirect or a
// status URL on another origin (scheme, host and port) never receives it.
type Credential struct {
	Secret string
	Header http.Header
	Sign   func(req *http.Request, body []byte) error
}

// ResponseError is an answer that is not what the binding promises. It
// wraps ErrInvalidResponse, or ErrHTTPStatus, ErrContentType or
// ErrTooLarge; Err may be skillcat.Violations, one per problem, with
// fields such as "output.temp_c" or "skill_id".
type ResponseError struct {
	URL        string // where the answer came from, without credentials
	StatusCode int
	Err        error
}

// Error reads "url: HTTP status: reason", one line per violation.
func (e *ResponseError) Error() string {
	prefix := e.URL + ": HTTP " + strconv.Itoa(e.StatusCode)
	if vs, ok := e.Err.(skillcat.Violations); ok && len(vs) > 0 {
		lines := make([]string, len(vs))
		for i, v := range vs {
			field := v.Field
			if field == "" || field == skillcat.FileField {
				field = "response"
			}
			lines[i] = prefix + ": " + field + ": " + v.Reason
		}
		return strings.Join(lines, "\n")
	}
	return prefix + ": " + e.Err.Error()
}

// Unwrap returns Err, and ErrInvalidResponse too unless Err is about the
// HTTP status, the content type or the size.
func (e *ResponseError) Unwrap() []error {
	if errors.Is(e.Err, ErrHTTPStatus) || errors.Is(e.Err, ErrContentType) || errors.Is(e.Err, ErrTooLarge) {
		return []error{e.Err}
	}
	return []error{ErrInvalidResponse, e.Err}
}

// Invoke calls the skill d describes with inputs, over the HTTP binding of
// docs/protocol.md, and returns its final response.
//
// The request is built from opts and checked with CheckRequest first: an
// invalid one returns skillcat.Violations and nothing is sent. A missing
// credential (ErrCredential) or a refused endpoint URL (ErrHTTPSRequired)
// is also an error before any network access. The response must be a
// valid InvocationResponse for d (a *ResponseError otherwise), and a
// succeeded one's output must validate against d's output schema. An
// accepted or running execution is polled at its Location until its status
// is terminal; when opts.Wait runs out first, Invoke returns the last
// response and an error wrapping ErrStillRunning.
//
// A failed or cancelled execution is not an error: the response says so
// (its Error member tells why), whatever HTTP status it came with.
func (c *Client) Invoke(ctx context.Context, d *skillcat.SkillDescriptor, inputs json.RawMessage, opts InvokeOptions) (resp *skillcat.InvocationResponse, err error) {
	defer func() {
		if r := recover(); r != nil {
			resp, err = nil, fmt.Errorf("invoke %s: %w: %v", d.ID, ErrInternal, r)
		}
	}()
	if d == nil {
		return nil, errors.New("invoke: nil descriptor")
	}
	caller := opts.Caller
	if caller.ID == "" && caller.Type == "" {
		caller = DefaultCaller
	}
	proto := skillcat.CurrentProtocol()
	req := &skillcat.InvocationRequest{
		Caller: caller, SkillID: d.ID, Inputs: inputs, Protocol: &proto,
		RequestID: opts.RequestID, Context: opts.Context,
	}
	if err := CheckRequest(d, req); err != nil {
		return nil, err
	}
	inv, err := c.newInvocation(d, opts)
	if err != nil {
		return nil, err
	}
	hreq, body, err := inv.request(ctx, req)
	if err != nil {
		return nil, err
	}
	resp, next, err := inv.exchange(ctx, hreq, body, nil, false)
	if err != nil || inv.opts.Wait < 0 || resp.Status.Terminal() {
		return resp, err
	}
	return inv.poll(ctx, resp, next)
}

// Poll follows an execution of the skill d describes at statusURL (the
// Location of an earlier answer) until its status is terminal or
// opts.Wait runs out, and returns the last response; the first request is
// sent at once. statusURL must have the origin of the skill's endpoint
// (opts.Endpoint when set), the only origin the credential goes to. The
// errors are those of Invoke.
func (c *Client) Poll(ctx context.Context, d *skillcat.SkillDescriptor, statusURL string, opts InvokeOptions) (resp *skillcat.InvocationResponse, err error) {
	defer func() {
		if r := recover(); r != nil {
			resp, err = nil, fmt.Errorf("poll %s: %w: %v", statusURL, ErrInternal, r)
		}
	}()
	if d == nil {
		return nil, errors.New("poll: nil descriptor")
	}
	inv, err := c.newInvocation(d, opts)
	if err != nil {
		return nil, err
	}
	u, err := inv.statusURL(inv.endpoint, statusURL)
	if err != nil {
		return nil, err
	}
	return inv.poll(ctx, nil, u)
}

// invocation is one call of a skill: its endpoint, credential and limits.
type invocation struct {
	c        *Client
	hc       *http.Client
	d        *skillcat.SkillDescriptor
	opts     InvokeOptions
	method   string
	endpoint *url.URL
	output   *skillcat.SkillSchema

	retryAfter time.Duration // the last answer's Retry-After, or -1
}

// newInvocation checks the endpoint URL and the credential before anything
// is sent.
func (c *Client) newInvocation(d *skillcat.SkillDescriptor, opts InvokeOptions) (*invocation, error) {
	raw := d.Endpoint.URL
	if opts.Endpoint != "" {
		raw = opts.Endpoint
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return nil, fmt.Errorf("endpoint %q: not an absolute URL", raw)
	}
	u.Fragment, u.RawFragment = "", ""
	if err := checkURL(u); err != nil {
		return nil, fmt.Errorf("endpoint %s: %w", u.Redacted(), err)
	}
	if u.User != nil {
		return nil, fmt.Errorf("endpoint %s: a URL with user information is refused; credentials go where auth.type says", u.Redacted())
	}
	switch d.Auth.Type {
	case skillcat.AuthAPIKey:
		if opts.Credential.Secret == "" {
			return nil, &detailError{ErrCredential, "skill " + strconv.Quote(d.ID) + " needs an API key (auth.type api_key); none was given"}
		}
		if d.Auth.In == "query" && slices.Contains(skillcat.QueryMembers, d.Auth.Name) {
			return nil, fmt.Errorf("skill %q: auth.name %q is a query parameter of the binding itself; the key cannot be sent", d.ID, d.Auth.Name)
		}
	case skillcat.AuthOAuth2:
		if opts.Credential.Secret == "" {
			return nil, &detailError{ErrCredential, "skill " + strconv.Quote(d.ID) + " needs an OAuth 2.0 access token (auth.type oauth2, from " + d.Auth.TokenURL + "); none was given"}
		}
	case skillcat.AuthCustom:
		if len(opts.Credential.Header) == 0 && opts.Credential.Sign == nil {
			return nil, &detailError{ErrCredential, "skill " + strconv.Quote(d.ID) + " needs a custom credential (auth.type custom): the header fields its auth.instructions ask for; none was given"}
		}
	}
	out, err := skillcat.CompileSkillSchema("output", d.Output)
	if err != nil {
		return nil, fmt.Errorf("skill %q: %w", d.ID, err)
	}
	if opts.Wait == 0 {
		opts.Wait = DefaultWait
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = DefaultPollInterval
	}
	inv := &invocation{c: c, d: d, opts: opts, method: d.Endpoint.EffectiveMethod(), endpoint: u, output: out, retryAfter: -1}
	inv.hc = c.httpClient()
	policy := inv.hc.CheckRedirect
	inv.hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if err := policy(req, via); err != nil {
			return err
		}
		if !sameOrigin(req.URL, via[0].URL) {
			stripCredentials(req.Header)
		}
		return nil
	}
	return inv, nil
}

// request builds the HTTP request that carries r to the endpoint: a JSON
// body, or query parameters for GET and DELETE.
func (inv *invocation) request(ctx context.Context, r *skillcat.InvocationRequest) (*http.Request, []byte, error) {
	u := *inv.endpoint
	var body []byte
	if skillcat.HasBody(inv.method) {
		var err error
		if body, err = json.Marshal(r); err != nil {
			return nil, nil, fmt.Errorf("encode request: %w", err)
		}
	} else {
		q, err := skillcat.RequestQuery(r)
		if err != nil {
			return nil, nil, err
		}
		have := u.Query()
		for _, name := range skillcat.QueryMembers {
			if have.Has(name) {
				return nil, nil, fmt.Errorf("endpoint %s already has a query parameter %q, which the binding uses for the request", u.Redacted(), name)
			}
		}
		u.RawQuery = joinQuery(u.RawQuery, q.Encode())
		if n := len(u.String()); n > MaxURLBytes {
			return nil, nil, fmt.Errorf("the %s request's URL would be %d bytes, more than %d: the inputs are too large for a query; ask the provider for a POST endpoint", inv.method, n, MaxURLBytes)
		}
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	hreq, err := http.NewRequestWithContext(ctx, inv.method, u.String(), rd)
	if err != nil {
		return nil, nil, err
	}
	if body != nil {
		hreq.Header.Set("Content-Type", "application/json")
	}
	return hreq, body, nil
}

func joinQuery(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	return a + "&" + b
}

// authorize adds the credential to a request for the endpoint's origin.
func (inv *invocation) authorize(req *http.Request, body []byte) error {
	cred := inv.opts.Credential
	a := inv.d.Auth
	switch a.Type {
	case skillcat.AuthAPIKey:
		if a.In == "query" {
			q := url.Values{a.Name: {cred.Secret}}
			req.URL.RawQuery = joinQuery(req.URL.RawQuery, q.Encode())
		} else {
			req.Header.Set(a.Name, cred.Secret)
		}
	case skillcat.AuthOAuth2:
		req.Header.Set("Authorization", "Bearer "+cred.Secret)
	case skillcat.AuthCustom:
		for name, vals := range cred.Header {
			for _, v := range vals {
				req.Header.Add(name, v)
			}
		}
		if cred.Sign != nil {
			if err := cred.Sign(req, body); err != nil {
				return fmt.Errorf("sign request: %w", err)
			}
		}
	}
	return nil
}

// exchange sends one request (the invocation, or a poll when polling)
// and returns its valid response and the URL to poll next. prev, when
// set, is the execution's earlier response, which this one must continue.
func (inv *invocation) exchange(ctx context.Context, req *http.Request, body []byte, prev *skillcat.InvocationResponse, polling bool) (*skillcat.InvocationResponse, *url.URL, error) {
	c := inv.c
	display := inv.show(req.URL)
	rctx, cancel := context.WithTimeout(ctx, c.timeout())
	defer cancel()
	req = req.WithContext(rctx)
	u := *req.URL
	req.URL = &u // authorize may add to the query
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent())
	if err := inv.authorize(req, body); err != nil {
		return nil, nil, err
	}
	resp, err := inv.hc.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: %w", req.Method, display, c.requestError(ctx, rctx, err))
	}
	defer resp.Body.Close()
	if final := resp.Request.URL; final != req.URL {
		display = inv.show(final)
	}
	rerr := func(err error) error { return &ResponseError{URL: display, StatusCode: resp.StatusCode, Err: err} }

	if err := checkContentType(resp.Header.Get("Content-Type")); err != nil {
		if resp.StatusCode >= 400 {
			return nil, nil, rerr(fmt.Errorf("%w %d %s", ErrHTTPStatus, resp.StatusCode, http.StatusText(resp.StatusCode)))
		}
		return nil, nil, rerr(err)
	}
	data, err := readLimited(resp, c.maxBytes())
	if err != nil {
		if errors.Is(err, ErrTooLarge) {
			return nil, nil, rerr(err)
		}
		return nil, nil, fmt.Errorf("%s %s: %w", req.Method, display, c.requestError(ctx, rctx, err))
	}
	r, vs := skillcat.ParseResponse(display, data)
	if vs.HasErrors() {
		if resp.StatusCode >= 400 {
			return nil, nil, rerr(fmt.Errorf("%w %d %s, and its body is not an InvocationResponse", ErrHTTPStatus, resp.StatusCode, http.StatusText(resp.StatusCode)))
		}
		return nil, nil, rerr(vs.Err())
	}
	if err := inv.check(r, prev); err != nil {
		return nil, nil, rerr(err)
	}
	switch {
	case resp.StatusCode >= 400 && r.Status != skillcat.StatusFailed:
		return nil, nil, rerr(fmt.Errorf("%w %d %s with status %q; an error status must come with a failed response", ErrHTTPStatus, resp.StatusCode, http.StatusText(resp.StatusCode), r.Status))
	case resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusAccepted && resp.StatusCode < 400:
		return nil, nil, rerr(fmt.Errorf("%w %d %s; want 200, 201 or 202", ErrHTTPStatus, resp.StatusCode, http.StatusText(resp.StatusCode)))
	}
	var next *url.URL
	if !r.Status.Terminal() {
		loc := resp.Header.Get("Location")
		switch {
		case loc != "":
			if next, err = inv.statusURL(resp.Request.URL, loc); err != nil {
				return nil, nil, rerr(err)
			}
		case polling:
			v := *req.URL // polled here, poll here again
			next = &v
		default:
			return nil, nil, rerr(fmt.Errorf("%w: status %q without a Location header to poll", ErrInvalidResponse, r.Status))
		}
		next.RawQuery = stripParam(next.RawQuery, inv.d.Auth)
		inv.retryAfter = retryAfter(resp.Header.Get("Retry-After"), time.Now())
	}
	if len(vs) > 0 && inv.opts.OnWarnings != nil {
		inv.opts.OnWarnings(vs)
	}
	if inv.opts.OnResponse != nil {
		s := ""
		if next != nil {
			s = inv.show(next)
		}
		inv.opts.OnResponse(r, s)
	}
	return r, next, nil
}

// check holds a valid response to what the binding promises beyond its
// schema: it is for the skill called, continues the execution polled, and
// a succeeded one's output validates against the skill's output schema.
func (inv *invocation) check(r *skillcat.InvocationResponse, prev *skillcat.InvocationResponse) error {
	var vs skillcat.Violations
	add := func(field, reason string) {
		vs = append(vs, skillcat.Violation{File: "response", Pointer: "/" + field, Field: field, Reason: reason, Severity: skillcat.SeverityError})
	}
	if r.SkillID != inv.d.ID {
		add("skill_id", fmt.Sprintf("must be %q, the skill called; got %q", inv.d.ID, r.SkillID))
	}
	if prev != nil && r.ExecutionID != prev.ExecutionID {
		add("execution_id", fmt.Sprintf("must be %q, the execution polled; got %q", prev.ExecutionID, r.ExecutionID))
	}
	if r.Status == skillcat.StatusSucceeded {
		vs = append(vs, inv.output.Validate("response", r.Output, "output")...)
	}
	return vs.Err()
}

// statusURL resolves a Location against base and checks that the
// credential may follow it: the same origin as the endpoint.
func (inv *invocation) statusURL(base *url.URL, loc string) (*url.URL, error) {
	ref, err := url.Parse(loc)
	if err != nil {
		return nil, fmt.Errorf("%w: Location %q is not a URL", ErrInvalidResponse, loc)
	}
	u := base.ResolveReference(ref)
	u.Fragment, u.RawFragment = "", ""
	if err := checkURL(u); err != nil {
		return nil, fmt.Errorf("status URL %s: %w", inv.show(u), err)
	}
	if !sameOrigin(u, inv.endpoint) {
		return nil, fmt.Errorf("%w: status URL %s is not on the endpoint's origin %s; it is not polled, so that the credential stays with the endpoint",
			ErrInvalidResponse, inv.show(u), origin(inv.endpoint))
	}
	return u, nil
}

// poll GETs next until the execution's status is terminal or Wait runs
// out. first is the response that sent us to next, or nil to poll at once.
func (inv *invocation) poll(ctx context.Context, first *skillcat.InvocationResponse, next *url.URL) (*skillcat.InvocationResponse, error) {
	deadline := time.Now().Add(inv.opts.Wait)
	last := first
	for {
		if last != nil {
			wait := inv.pause()
			if time.Until(deadline) < wait {
				return last, &detailError{ErrStillRunning, fmt.Sprintf("execution %q still %s when the wait of %v ends (next poll due in %v); poll %s later",
					last.ExecutionID, last.Status, inv.opts.Wait, wait, inv.show(next))}
			}
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return last, context.Cause(ctx)
			case <-t.C:
			}
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, next.String(), nil)
		if err != nil {
			return last, err
		}
		r, n, err := inv.exchange(ctx, req, nil, last, true)
		if err != nil {
			return last, err
		}
		if r.Status.Terminal() {
			return r, nil
		}
		last, next = r, n
	}
}

// pause is how long to wait before the next poll: the Retry-After of the
// last answer, within bounds, or PollInterval.
func (inv *invocation) pause() time.Duration {
	ra := inv.retryAfter
	if ra < 0 {
		return inv.opts.PollInterval
	}
	return max(min(ra, MaxRetryAfter), min(inv.opts.PollInterval, 100*time.Millisecond))
}

// retryAfter reads a Retry-After header, delta-seconds or an HTTP-date,
// relative to now; -1 when absent or unreadable.
func retryAfter(h string, now time.Time) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return -1
	}
	if n, err := strconv.ParseUint(h, 10, 32); err == nil {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil {
		return max(t.Sub(now), 0)
	}
	return -1
}

// show returns u as messages show it: without a password, an api_key
// query credential, or the query parameters that carry a GET or DELETE
// request (the request is known; the URL stays readable).
func (inv *invocation) show(u *url.URL) string {
	v := *u
	v.RawQuery = stripParam(v.RawQuery, inv.d.Auth)
	if v.RawQuery != "" && !skillcat.HasBody(inv.method) {
		if q, err := url.ParseQuery(v.RawQuery); err == nil && q.Has("skill_id") {
			for _, name := range skillcat.QueryMembers {
				q.Del(name)
			}
			v.RawQuery = q.Encode()
		}
	}
	return v.Redacted()
}

// stripParam removes an api_key query credential from a query: from a URL
// shown in a message, and from a status URL the endpoint handed back (the
// poll adds it again).
func stripParam(rawQuery string, a skillcat.Auth) string {
	if a.Type != skillcat.AuthAPIKey || a.In != "query" || rawQuery == "" {
		return rawQuery
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil || !q.Has(a.Name) {
		return rawQuery
	}
	q.Del(a.Name)
	return q.Encode()
}

// readLimited reads a response body of at most limit bytes.
func readLimited(resp *http.Response, limit int64) ([]byte, error) {
	tooLarge := &detailError{ErrTooLarge, "response larger than " + strconv.FormatInt(limit, 10) + " bytes"}
	if resp.ContentLength > limit {
		return nil, tooLarge
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(body)) > limit {
		return nil, tooLarge
	}
	return body, nil
}

// origin is a URL's scheme, host and port, the port made explicit.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

func sameOrigin(a, b *url.URL) bool { return origin(a) == origin(b) }

// keptOnRedirect are the header fields a redirect to another origin keeps;
// every other one may hold a credential (Referer may hold a query key) and
// is dropped.
var keptOnRedirect = map[string]bool{"Accept": true, "User-Agent": true, "Content-Type": true}

func stripCredentials(h http.Header) {
	for name := range h {
		if !keptOnRedirect[http.CanonicalHeaderKey(name)] {
			delete(h, name)
		}
	}
}

// CheckRequest checks an invocation request before it is sent to the skill
// d describes: that the request is well formed (caller, skill_id, inputs
// and the optional members, as the InvocationRequest schema says), that it
// calls d, and that its inputs validate against d's inputs schema. The
// error, if any, is skillcat.Violations, every problem with its field
// ("inputs.city").
func CheckRequest(d *skillcat.SkillDescriptor, r *skillcat.InvocationRequest) error {
	if d == nil || r == nil {
		return errors.New("check request: nil descriptor or request")
	}
	data, err := r.Encode()
	if err != nil {
		return err
	}
	if _, vs := skillcat.ParseRequest("request", data); vs.HasErrors() {
		return vs.Err()
	}
	return r.ValidateInputs(d)
}
