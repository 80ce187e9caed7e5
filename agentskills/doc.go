// Package agentskills writes a catalog's skills in the Agent Skills format
// (https://agentskills.io/specification): one SKILL.md per skill, in a
// folder named after the skill, and the discovery index of the Agent Skills
// Discovery RFC v0.2.0, /.well-known/agent-skills/index.json.
//
// It knows the protocol's types and nothing of how a site is laid out: the
// caller gives every URL a document carries, and decides where each
// document goes.
//
// # Names
//
// An Agent Skills name is 1–64 characters of [a-z0-9-], with no leading,
// trailing or doubled hyphen, and equal to its folder's name. Names derives
// one from each skill id: "." and "_" become "-", and a name longer than 64
// characters is cut. Ids that give the same name (weather.forecast and
// weather_forecast) are told apart deterministically: the id that already
// is the name, or else the smallest id, keeps it, and each other one gets
// "-" and the first hex digits of the SHA-256 of its id. Only the ids
// passed in take part, so a caller that passes the listed skills alone
// makes names that say nothing of any other skill.
//
// # SKILL.md
//
// The front matter holds only the members the reference validator
// (skills-ref) accepts: name, description, compatibility and metadata,
// every value a double-quoted YAML string, and never the three hyphens
// that both validators take for the end of the front matter. The protocol's
// own members go into metadata as strings: protocol, id, version,
// capability_type, access, descriptor_url and digest (of the descriptor).
// The body tells an agent how to call the skill: the endpoint and method,
// authentication in words, the inputs and output schemas as fenced JSON,
// example requests and responses, and links to the descriptor and the docs
// page.
package agentskills
