package skillcat

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// CallerType is who calls a skill.
type CallerType string

// The caller types of the protocol.
const (
	CallerUser    CallerType = "user"
	CallerAgent   CallerType = "agent"
	CallerService CallerType = "service"
)

// Status is the state of an execution.
type Status string

// The execution states of the protocol. Succeeded, Failed and Cancelled are
// terminal.
const (
	StatusAccepted  Status = "accepted"
	StatusRunning   Status = "running"
	StatusSucceeded Status = "succeeded"
	StatusFailed    Status = "failed"
	StatusCancelled Status = "cancelled"
)

// Terminal reports whether the status ends an execution.
func (s Status) Terminal() bool {
	return s == StatusSucceeded || s == StatusFailed || s == StatusCancelled
}

// InvocationRequest is a consumer's call of a skill.
type InvocationRequest struct {
	Caller    Caller           `json:"caller"`
	SkillID   string           `json:"skill_id"`
	Inputs    json.RawMessage  `json:"inputs"`
	Protocol  *ProtocolVersion `json:"protocol"`
	RequestID string           `json:"request_id"`
	Context   json.RawMessage  `json:"context"`
	Extra     Extra
}

// Caller identifies who makes an InvocationRequest.
type Caller struct {
	ID    string     `json:"id"`
	Type  CallerType `json:"type"`
	Extra Extra
}

// InvocationResponse is a provider's answer to an InvocationRequest. Output
// is set when the status is succeeded, Error when it is failed.
type InvocationResponse struct {
	ExecutionID string           `json:"execution_id"`
	Status      Status           `json:"status"`
	SkillID     string           `json:"skill_id"`
	Timestamps  Timestamps       `json:"timestamps"`
	Output      json.RawMessage  `json:"output"`
	Error       *InvocationError `json:"error"`
	Extra       Extra
}

// Timestamps are RFC 3339 date-times of an execution, kept as written.
// CompletedAt is required once the status is terminal; none is earlier than
// the one before it.
type Timestamps struct {
	CreatedAt   string `json:"created_at"`
	StartedAt   string `json:"started_at"`
	CompletedAt string `json:"completed_at"`
	Extra       Extra
}

// InvocationError says why an execution failed.
type InvocationError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Extra   Extra
}

// Encode returns the request as JSON, in the form SkillDescriptor.Encode
// describes.
func (r *InvocationRequest) Encode() ([]byte, error) { return encode(r) }

// MarshalJSON writes the request as Encode does, compact.
func (r InvocationRequest) MarshalJSON() ([]byte, error) { return marshalCompact(&r) }

// UnmarshalJSON decodes a request, keeping unknown members; it checks JSON
// types only.
func (r *InvocationRequest) UnmarshalJSON(data []byte) error {
	*r = InvocationRequest{}
	return unmarshal(data, r)
}

// Encode returns the response as JSON, in the form SkillDescriptor.Encode
// describes.
func (r *InvocationResponse) Encode() ([]byte, error) { return encode(r) }

// MarshalJSON writes the response as Encode does, compact.
func (r InvocationResponse) MarshalJSON() ([]byte, error) { return marshalCompact(&r) }

// UnmarshalJSON decodes a response, keeping unknown members; it checks JSON
// types only.
func (r *InvocationResponse) UnmarshalJSON(data []byte) error {
	*r = InvocationResponse{}
	return unmarshal(data, r)
}

// ParseRequest parses and validates an InvocationRequest. Its inputs are
// checked against a skill's inputs schema by ValidateInputs. The
// violations of a valid request are warnings, such as an unknown member.
func ParseRequest(file string, data []byte) (*InvocationRequest, Violations) {
	src := &Source{Name: file, Data: data}
	root, vs := parseDocument(src, RequestSchemaFile)
	if vs.HasErrors() {
		return nil, vs
	}
	r := new(InvocationRequest)
	if err := decodeNode(root, r); err != nil {
		return nil, Violations{src.fileViolation(1, 1, err.Error())}
	}
	return r, append(vs, lintMembers(src, root, requestKind)...)
}

// ValidateInputs checks a request's inputs against the inputs schema of the
// skill it calls, and that it calls that skill.
func (r *InvocationRequest) ValidateInputs(d *SkillDescriptor) error {
	var vs Violations
	if r.SkillID != d.ID {
		vs = append(vs, Violation{File: "request", Pointer: "/skill_id", Field: "skill_id", Severity: SeverityError,
			Reason: "must be " + quoteString(d.ID) + ", the id of the skill called; got " + quoteString(r.SkillID)})
	}
	sch, err := CompileSkillSchema("inputs", d.Inputs)
	if err != nil {
		return err
	}
	vs = append(vs, sch.Validate("request", r.Inputs, "inputs")...)
	return vs.Err()
}

// ParseResponse parses and validates an InvocationResponse, including that
// created_at ≤ started_at ≤ completed_at. The violations of a valid
// response are warnings, such as an unknown member.
func ParseResponse(file string, data []byte) (*InvocationResponse, Violations) {
	src := &Source{Name: file, Data: data}
	root, vs := parseDocument(src, ResponseSchemaFile)
	if vs.HasErrors() {
		return nil, vs
	}
	ts := root.Get("timestamps")
	var prev instant
	var prevName string
	for _, name := range []string{"created_at", "started_at", "completed_at"} {
		n := ts.Get(name)
		if n == nil {
			continue
		}
		t, ok := parseInstant(n.Text)
		if !ok {
			continue // the schema has reported it
		}
		if prevName != "" && t.before(prev) {
			vs = append(vs, src.violation(n, Members("timestamps", name),
				"must not be earlier than timestamps."+prevName+" ("+quoteValue(ts.Get(prevName))+"); got "+quoteValue(n)))
		}
		prev, prevName = t, name
	}
	if vs.HasErrors() {
		return nil, vs
	}
	r := new(InvocationResponse)
	if err := decodeNode(root, r); err != nil {
		return nil, Violations{src.fileViolation(1, 1, err.Error())}
	}
	return r, append(vs, lintMembers(src, root, responseKind)...)
}

// instant is an RFC 3339 date-time as seconds since the epoch (UTC) and the
// digits of its fraction, so that any precision compares exactly.
type instant struct {
	sec  int64
	frac string // fraction digits, trailing zeros removed
}

func (a instant) before(b instant) bool {
	if a.sec != b.sec {
		return a.sec < b.sec
	}
	return a.frac < b.frac // equal-length prefixes compare as numbers once zeros are trimmed
}

var dateTimeRE = regexp.MustCompile(`^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?([Zz]|([+-])([0-9]{2}):([0-9]{2}))$`)

// parseInstant reads an RFC 3339 date-time: "t" and "z" in either case, a
// leap second (:60) as the second after :59, fractions of any length.
func parseInstant(s string) (instant, bool) {
	m := dateTimeRE.FindStringSubmatch(s)
	if m == nil {
		return instant{}, false
	}
	num := func(i int) int { n, _ := strconv.Atoi(m[i]); return n }
	t := time.Date(num(1), time.Month(num(2)), num(3), num(4), num(5), num(6), 0, time.UTC)
	sec := t.Unix()
	if m[9] != "" {
		off := int64(num(10)*3600 + num(11)*60)
		if m[9] == "+" {
			sec -= off
		} else {
			sec += off
		}
	}
	return instant{sec: sec, frac: strings.TrimRight(strings.TrimPrefix(m[7], "."), "0")}, true
}

func quoteString(s string) string { return string(appendString(nil, s)) }
