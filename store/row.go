package store

import "strings"

// The row, stated once. rowColumns are the columns of a Skill, in the order
// of the skills table (migrations/0001_init.sql, held to this list by a
// test), each with the SQL type the rebuild cache declares it with and the
// field it fills. The index's INSERT and SELECTs and the cache's sources
// table are all made from it, so the cache keeps the row the index keeps.
// Tags are a list, not a column: the index keeps them in skill_tags and the
// cache in source_tags, one row per tag, in order.
var rowColumns = []struct {
	name, decl string
	field      func(*Skill) any // a pointer to the field
}{
	{"id", "TEXT NOT NULL", func(s *Skill) any { return &s.ID }},
	{"name", "TEXT NOT NULL", func(s *Skill) any { return &s.Name }},
	{"version", "TEXT NOT NULL", func(s *Skill) any { return &s.Version }},
	{"capability_type", "TEXT NOT NULL", func(s *Skill) any { return &s.CapabilityType }},
	{"access", "TEXT NOT NULL", func(s *Skill) any { return &s.Access }},
	{"summary", "TEXT NOT NULL", func(s *Skill) any { return &s.Summary }},
	{"provider_name", "TEXT NOT NULL", func(s *Skill) any { return &s.ProviderName }},
	{"source", "TEXT NOT NULL", func(s *Skill) any { return &s.Source }},
	{"descriptor", "BLOB NOT NULL", func(s *Skill) any { return &s.Descriptor }},
	{"digest", "TEXT NOT NULL", func(s *Skill) any { return &s.Digest }},
}

// rowNames is the row's column list, "id, name, …", for SQL.
func rowNames() string {
	names := make([]string, len(rowColumns))
	for i, c := range rowColumns {
		names[i] = c.name
	}
	return strings.Join(names, ", ")
}

// rowDecls is the row's column definitions, "id TEXT NOT NULL, …", for a
// CREATE TABLE.
func rowDecls() string {
	decls := make([]string, len(rowColumns))
	for i, c := range rowColumns {
		decls[i] = c.name + " " + c.decl
	}
	return strings.Join(decls, ", ")
}

// placeholders is n "?" for SQL, comma-separated.
func placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

// dest returns pointers to s's fields in column order, for Scan.
func (s *Skill) dest() []any {
	out := make([]any, len(rowColumns))
	for i, c := range rowColumns {
		out[i] = c.field(s)
	}
	return out
}

// args returns s's fields in column order, for an INSERT.
func (s *Skill) args() []any {
	out := make([]any, len(rowColumns))
	for i, c := range rowColumns {
		switch p := c.field(s).(type) {
		case *string:
			out[i] = *p
		case *[]byte:
			out[i] = *p
		}
	}
	return out
}
