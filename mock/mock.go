// Package mock is a reference endpoint of the Skill Sharing Protocol's HTTP
// binding (docs/protocol.md, "Invocation over HTTP"): it answers
// invocations of a catalog's skills from the examples their descriptors
// hold, so that a consumer can try the whole loop locally and tests have a
// real server to talk to. skillcat serve --mock mounts it under MountPath.
//
// # Paths
//
// Relative to where the Handler is mounted:
//
//	/skills/<id>        the endpoint of skill <id>, with the descriptor's method
//	/executions/<exec>  the status URL of an execution (GET)
//
// # Answers
//
// A request is read as the binding says (a JSON body, or query parameters
// for GET and DELETE) and checked like any endpoint should: the
// credential where the skill's auth puts it, then the InvocationRequest
// and its inputs against the skill's inputs schema. A refused request gets
// an error status and a failed InvocationResponse whose error.message
// lists every problem (code "unknown_skill", "unauthorized",
// "invalid_request", "method_not_allowed", "unsupported_media_type"). A valid request whose
// inputs equal an example's inputs (as JSON values) succeeds with that
// example's output; other inputs fail with code "no_matching_example"
// (HTTP 501), since the mock knows no other answers.
//
// With Handler.Polls above zero an execution is first accepted (HTTP 202
// with a Location) and answers running to the polls before the last, to
// exercise a client's polling.
//
// Every answer allows any origin (CORS), and a preflight OPTIONS request
// is answered for any method and the headers it asks for, so a consumer in
// a browser can call the mock as it calls the catalog.
//
// The mock checks that an api_key or oauth2 credential is present (and
// equals Handler.Credential when that is set); it cannot follow a custom
// auth's instructions, so a custom skill is called without a check.
package mock

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	skillcat "github.com/skillcat/skillcat"
)

// MountPath is where skillcat serve --mock mounts the mock on the preview
// site.
const MountPath = "/_mock"

// MaxRequestBytes caps the body of an invocation.
const MaxRequestBytes = 1 << 20

// maxExecutions caps the executions kept for polling; the oldest go first.
const maxExecutions = 10000

// Handler answers invocations of the skills Skill returns. Its exported
// fields must be set before it serves; it is safe for concurrent use.
type Handler struct {
	// Skill returns the descriptor of the skill id, or nil when there is
	// no such skill.
	Skill func(id string) *skillcat.SkillDescriptor

	// Credential, when set, is the only api_key or oauth2 credential
	// accepted; otherwise any non-empty one is.
	Credential string

	// Polls is how many polls an execution takes: above zero, an
	// invocation is accepted (202 with a Location), its earlier polls
	// answer running and poll number Polls answers succeeded; 0 answers
	// every invocation at once.
	Polls int

	// RetryAfter, when above zero, is the Retry-After (in seconds) sent
	// with every answer that is not final.
	RetryAfter int

	// Now is the clock of the timestamps; nil means time.Now.
	Now func() time.Time

	mu    sync.Mutex
	execs map[string]*execution
	order []string // execution ids, oldest first
}

// execution is one accepted invocation, answered from its example.
type execution struct {
	skill   *skillcat.SkillDescriptor
	created string
	output  json.RawMessage
	polls   int // polls still to answer running
}

// New returns a Handler for a fixed set of skills.
func New(skills ...*skillcat.SkillDescriptor) *Handler {
	byID := make(map[string]*skillcat.SkillDescriptor, len(skills))
	for _, d := range skills {
		byID[d.ID] = d
	}
	return &Handler{Skill: func(id string) *skillcat.SkillDescriptor { return byID[id] }}
}

// SkillPath is the path of skill id's endpoint, relative to the mount.
func SkillPath(id string) string { return "/skills/" + id }

// ServeHTTP answers an invocation at /skills/<id> or a poll at
// /executions/<exec>.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if cors(w, r) {
		return
	}
	switch {
	case strings.HasPrefix(r.URL.Path, "/skills/"):
		h.invoke(w, r, strings.TrimPrefix(r.URL.Path, "/skills/"))
	case strings.HasPrefix(r.URL.Path, "/executions/"):
		h.status(w, r, strings.TrimPrefix(r.URL.Path, "/executions/"))
	default:
		http.NotFound(w, r)
	}
}

// cors lets a page of any origin read the answer, and answers a CORS
// preflight request (OPTIONS with Access-Control-Request-Method) itself,
// reporting whether it did.
func cors(w http.ResponseWriter, r *http.Request) bool {
	hd := w.Header()
	hd.Set("Access-Control-Allow-Origin", "*")
	hd.Set("Access-Control-Expose-Headers", "Location, Retry-After, WWW-Authenticate")
	method := r.Header.Get("Access-Control-Request-Method")
	if r.Method != http.MethodOptions || method == "" {
		return false
	}
	hd.Set("Access-Control-Allow-Methods", method)
	if asked := r.Header.Get("Access-Control-Request-Headers"); asked != "" {
		hd.Set("Access-Control-Allow-Headers", asked)
	}
	hd.Set("Access-Control-Max-Age", "600")
	hd.Add("Vary", "Access-Control-Request-Method, Access-Control-Request-Headers")
	w.WriteHeader(http.StatusNoContent)
	return true
}

func (h *Handler) invoke(w http.ResponseWriter, r *http.Request, id string) {
	if !skillcat.ValidID(id) {
		http.NotFound(w, r)
		return
	}
	var d *skillcat.SkillDescriptor
	if h.Skill != nil {
		d = h.Skill(id)
	}
	if d == nil {
		h.fail(w, http.StatusNotFound, id, "unknown_skill", "the mock serves no skill "+strconv.Quote(id)+" (private skills are never served)")
		return
	}
	method := d.Endpoint.EffectiveMethod()
	if r.Method != method {
		w.Header().Set("Allow", method)
		h.fail(w, http.StatusMethodNotAllowed, d.ID, "method_not_allowed",
			"skill "+strconv.Quote(d.ID)+" is invoked with "+method+"; got "+r.Method)
		return
	}
	if msg := h.checkAuth(r, d); msg != "" {
		if d.Auth.Type == skillcat.AuthOAuth2 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="skillcat mock"`)
		}
		h.fail(w, http.StatusUnauthorized, d.ID, "unauthorized", msg)
		return
	}
	data, status, msg := readRequest(r, method)
	if msg != "" {
		code := "invalid_request"
		if status == http.StatusUnsupportedMediaType {
			code = "unsupported_media_type"
		}
		h.fail(w, status, d.ID, code, msg)
		return
	}
	req, vs := skillcat.ParseRequest("request", data)
	if !vs.HasErrors() {
		if err := req.ValidateInputs(d); err != nil {
			if evs, ok := skillcat.AsViolations(err); ok {
				vs = append(vs, evs...)
			} else {
				vs = append(vs, skillcat.Violation{Field: "inputs", Reason: err.Error(), Severity: skillcat.SeverityError})
			}
		}
	}
	if vs.HasErrors() {
		vs.Sort()
		h.fail(w, http.StatusBadRequest, d.ID, "invalid_request", describe(vs))
		return
	}
	ex, ok := matchExample(d, req.Inputs)
	if !ok {
		h.fail(w, http.StatusNotImplemented, d.ID, "no_matching_example",
			"the mock answers only the inputs of the skill's examples, and these inputs equal none of its "+
				strconv.Itoa(len(d.Examples))+" example(s) with an output")
		return
	}
	now := h.now()
	e := &execution{skill: d, created: now, output: ex.Output, polls: h.Polls - 1}
	execID := newExecutionID()
	if h.Polls <= 0 {
		h.write(w, http.StatusOK, e.response(execID, now))
		return
	}
	h.keep(execID, e)
	w.Header().Set("Location", "../executions/"+execID)
	h.retryAfter(w)
	h.write(w, http.StatusAccepted, &skillcat.InvocationResponse{
		ExecutionID: execID, Status: skillcat.StatusAccepted, SkillID: d.ID,
		Timestamps: skillcat.Timestamps{CreatedAt: now},
	})
}

func (h *Handler) status(w http.ResponseWriter, r *http.Request, execID string) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	h.mu.Lock()
	e := h.execs[execID]
	h.mu.Unlock()
	if e == nil {
		http.NotFound(w, r)
		return
	}
	if msg := h.checkAuth(r, e.skill); msg != "" {
		h.fail(w, http.StatusUnauthorized, e.skill.ID, "unauthorized", msg)
		return
	}
	h.mu.Lock()
	left := e.polls
	if e.polls > 0 {
		e.polls--
	}
	h.mu.Unlock()
	now := h.now()
	if left > 0 {
		h.retryAfter(w)
		h.write(w, http.StatusOK, &skillcat.InvocationResponse{
			ExecutionID: execID, Status: skillcat.StatusRunning, SkillID: e.skill.ID,
			Timestamps: skillcat.Timestamps{CreatedAt: e.created, StartedAt: e.created},
		})
		return
	}
	h.write(w, http.StatusOK, e.response(execID, now))
}

func (h *Handler) retryAfter(w http.ResponseWriter) {
	if h.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(h.RetryAfter))
	}
}

// response is the execution's succeeded answer.
func (e *execution) response(execID, now string) *skillcat.InvocationResponse {
	return &skillcat.InvocationResponse{
		ExecutionID: execID, Status: skillcat.StatusSucceeded, SkillID: e.skill.ID,
		Timestamps: skillcat.Timestamps{CreatedAt: e.created, StartedAt: e.created, CompletedAt: now},
		Output:     e.output,
	}
}

// keep stores an execution for polling, dropping the oldest beyond
// maxExecutions.
func (h *Handler) keep(execID string, e *execution) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.execs == nil {
		h.execs = map[string]*execution{}
	}
	h.execs[execID] = e
	h.order = append(h.order, execID)
	if len(h.order) > maxExecutions {
		delete(h.execs, h.order[0])
		h.order = h.order[1:]
	}
}

// checkAuth returns why the request's credential is refused, or "".
func (h *Handler) checkAuth(r *http.Request, d *skillcat.SkillDescriptor) string {
	a := d.Auth
	var got, where string
	switch a.Type {
	case skillcat.AuthAPIKey:
		if a.In == "query" {
			got, where = r.URL.Query().Get(a.Name), "query parameter "+strconv.Quote(a.Name)
		} else {
			got, where = r.Header.Get(a.Name), "header "+strconv.Quote(a.Name)
		}
	case skillcat.AuthOAuth2:
		where = `"Authorization: Bearer <token>" header`
		if scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Bearer") {
			got = strings.TrimSpace(token)
		}
	default:
		return ""
	}
	switch {
	case got == "":
		return "missing credential: skill " + strconv.Quote(d.ID) + " takes it in the " + where
	case h.Credential != "" && got != h.Credential:
		return "wrong credential in the " + where
	}
	return ""
}

// readRequest returns the request document: the body, or the query for
// GET and DELETE. On failure it returns the status and why.
func readRequest(r *http.Request, method string) ([]byte, int, string) {
	if !skillcat.HasBody(method) {
		data, err := skillcat.RequestFromQuery(r.URL.Query())
		if err != nil {
			return nil, http.StatusBadRequest, err.Error()
		}
		return data, 0, ""
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "application/json" && !strings.HasSuffix(mt, "+json") {
		return nil, http.StatusUnsupportedMediaType, "the request body must be JSON (Content-Type: application/json); got " + strconv.Quote(r.Header.Get("Content-Type"))
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, MaxRequestBytes+1))
	if err != nil {
		return nil, http.StatusBadRequest, "read request: " + err.Error()
	}
	if len(data) > MaxRequestBytes {
		return nil, http.StatusRequestEntityTooLarge, "the request body is larger than " + strconv.Itoa(MaxRequestBytes) + " bytes"
	}
	return data, 0, ""
}

// matchExample returns the first example with an output whose inputs equal
// inputs as JSON values.
func matchExample(d *skillcat.SkillDescriptor, inputs json.RawMessage) (skillcat.Example, bool) {
	for _, ex := range d.Examples {
		if ex.Output == nil {
			continue
		}
		diffs, err := skillcat.DiffJSON("inputs", inputs, ex.Inputs, false)
		if err == nil && len(diffs) == 0 {
			return ex, true
		}
	}
	return skillcat.Example{}, false
}

// describe joins violations into one message: "field: reason; …".
func describe(vs skillcat.Violations) string {
	var parts []string
	for _, v := range vs {
		if v.Severity != skillcat.SeverityError {
			continue
		}
		field := v.Field
		if field == "" || field == skillcat.FileField {
			field = "request"
		}
		parts = append(parts, field+": "+v.Reason)
	}
	return strings.Join(parts, "; ")
}

// fail answers a failed InvocationResponse with an HTTP error status.
func (h *Handler) fail(w http.ResponseWriter, status int, skillID, code, msg string) {
	now := h.now()
	h.write(w, status, &skillcat.InvocationResponse{
		ExecutionID: newExecutionID(), Status: skillcat.StatusFailed, SkillID: skillID,
		Timestamps: skillcat.Timestamps{CreatedAt: now, CompletedAt: now},
		Error:      &skillcat.InvocationError{Code: code, Message: msg},
	})
}

func (h *Handler) write(w http.ResponseWriter, status int, resp *skillcat.InvocationResponse) {
	data, err := resp.Encode()
	if err != nil {
		http.Error(w, "encode response: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(data)
}

func (h *Handler) now() string {
	t := time.Now()
	if h.Now != nil {
		t = h.Now()
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func newExecutionID() string {
	var b [8]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return "mock-" + hex.EncodeToString(b[:])
}
