package skillcat

import (
	"encoding/json"
	"errors"
	"maps"
	"net/url"
	"slices"
	"strconv"
)

// The HTTP binding (docs/protocol.md, "Invocation over HTTP") sends an
// InvocationRequest to a skill's endpoint.url as a JSON body with POST, PUT
// and PATCH, and as query parameters with GET and DELETE, which carry no
// body. This file holds the query form, which both ends need.

// QueryMembers are the query parameters of a GET or DELETE invocation, one
// per known member of InvocationRequest. skill_id and request_id carry the
// string itself; caller, inputs, protocol and context carry the member's
// value as compact JSON text.
var QueryMembers = []string{"caller", "skill_id", "inputs", "protocol", "request_id", "context"}

// HasBody reports whether an invocation with the HTTP method sends the
// request as a JSON body (POST, PUT, PATCH) rather than as query
// parameters (GET, DELETE).
func HasBody(method string) bool {
	return method != "GET" && method != "DELETE"
}

// RequestQuery returns the query parameters that carry r in a GET or DELETE
// invocation. A request with members the binding cannot carry in a query
// (unknown members, which need a body) is an error.
func RequestQuery(r *InvocationRequest) (url.Values, error) {
	if len(r.Extra) > 0 {
		names := slices.Sorted(maps.Keys(r.Extra))
		return nil, errors.New("request member " + strconv.Quote(names[0]) + " cannot be sent in a query: only " +
			"caller, skill_id, inputs, protocol, request_id and context travel with GET and DELETE")
	}
	q := url.Values{}
	caller, err := marshalCompact(&r.Caller)
	if err != nil {
		return nil, err
	}
	q.Set("caller", string(caller))
	q.Set("skill_id", r.SkillID)
	if r.Inputs != nil {
		inputs, err := compactJSON(r.Inputs)
		if err != nil {
			return nil, errors.New("inputs: " + err.Error())
		}
		q.Set("inputs", inputs)
	}
	if r.Protocol != nil {
		p, err := marshalCompact(r.Protocol)
		if err != nil {
			return nil, err
		}
		q.Set("protocol", string(p))
	}
	if r.RequestID != "" {
		q.Set("request_id", r.RequestID)
	}
	if r.Context != nil {
		c, err := compactJSON(r.Context)
		if err != nil {
			return nil, errors.New("context: " + err.Error())
		}
		q.Set("context", c)
	}
	return q, nil
}

// RequestFromQuery rebuilds the JSON document of the InvocationRequest that
// RequestQuery encoded into q, for ParseRequest to validate. Parameters
// other than QueryMembers (an API key, the endpoint's own parameters) are
// ignored. A member given twice, or a JSON member whose text is not JSON,
// is an error naming the parameter.
func RequestFromQuery(q url.Values) ([]byte, error) {
	b := []byte{'{'}
	for _, name := range QueryMembers {
		vals, ok := q[name]
		if !ok {
			continue
		}
		if len(vals) > 1 {
			return nil, errors.New("query parameter " + strconv.Quote(name) + " is given " + strconv.Itoa(len(vals)) + " times; want once")
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = appendString(b, name)
		b = append(b, ':')
		if name == "skill_id" || name == "request_id" {
			b = appendString(b, vals[0])
			continue
		}
		if !json.Valid([]byte(vals[0])) {
			return nil, errors.New("query parameter " + strconv.Quote(name) + " must be JSON text; got " + strconv.Quote(vals[0]))
		}
		b = append(b, vals[0]...)
	}
	return append(b, '}'), nil
}

// compactJSON returns raw JSON without insignificant white space, numbers
// as written.
func compactJSON(raw json.RawMessage) (string, error) {
	root, err := ParseJSON(raw)
	if err != nil {
		return "", err
	}
	return string(root.AppendJSON(nil)), nil
}
