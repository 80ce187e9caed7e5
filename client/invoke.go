package client

import (
	"errors"

	skillcat "github.com/skillcat/skillcat"
)

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
