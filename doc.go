// Package skillcat implements the Skill Sharing Protocol 1.0: its documents
// (SkillDescriptor, SkillIndex, InvocationRequest, InvocationResponse), their
// JSON Schemas, validation with errors people can act on, deterministic
// serialization, and the protocol's version rules. The whole protocol, in
// words an implementer in another language can follow, is docs/protocol.md
// in this module; this comment and that page tell the same story.
//
// # Documents
//
// Every document is a UTF-8 JSON object with snake_case member names. The four
// JSON Schemas (draft 2020-12) embedded in this package are the single
// statement of structure; Go code adds only what a schema cannot say well:
// a descriptor's inputs and output must themselves compile as schemas, its
// examples must validate against them, and a response's timestamps must be in
// order.
//
// The schemas' $id URLs start with SchemaBaseURL, the schemas folder of this
// module's repository, which is also what a descriptor's "$schema" member
// should name; every catalog serves the same bytes under /schemas/v1/.
// Nothing ever fetches a "$schema": validation uses the embedded schemas.
//
// # Parsing
//
// ParseDescriptor, ParseIndex, ParseRequest and ParseResponse take a source
// name and bytes and return the typed value together with every violation
// found, each a Violation with line, column, JSON Pointer, dotted field path
// and a reason in plain words. A source that is not JSON (a Markdown file with
// YAML front matter, say) is converted into a Node tree that carries its own
// positions and handed to DecodeDescriptor.
//
// Members that a type does not name are kept in its Extra map and written back
// unchanged, so a document from a newer 1.x minor survives a round trip.
//
// # Serialization
//
// Encode writes known members in the order of the specification, unknown
// members after them sorted by name, with a two-space indent, a final newline
// and no HTML escaping. Numbers are kept exactly as written.
//
// # Versions
//
// A document whose protocol major is above the consumer's is rejected with an
// error matching ErrIncompatibleVersion and naming both versions; any other
// major is processed.
package skillcat
