package store

import "strings"

// Row is one row of the index: what the build knows of one valid source.
type Row struct {
	ID             string
	Name           string
	Version        string
	CapabilityType string // plugin | api | knowledge | task
	Access         string // public | restricted | private
	Summary        string
	ProviderName   string
	Tags           []string // in source order; stored in a skill_tags table
	Source         string   // source path relative to the content dir, slash-separated
	Descriptor     []byte   // the published descriptor bytes
	Digest         string   // "sha256:<hex>" of Descriptor
}

// The row, stated once. rowColumns are the columns of a Row, in the order
// of the skills table (migrations/0001_init.sql, held to this list by a
// test), each with the SQL type the rebuild cache declares it with and the
// field it fills. The index's INSERT and SELECTs and the cache's sources
// table are all made from it, so the cache keeps the row the index keeps.
// Tags are a list, not a column: the index keeps them in skill_tags and the
// cache in source_tags, one row per tag, in order.
var rowColumns = []struct {
	name, decl string
	field      func(*Row) any // a pointer to the field
}{
	{"id", "TEXT NOT NULL", func(s *Row) any { return &s.ID }},
	{"name", "TEXT NOT NULL", func(s *Row) any { return &s.Name }},
	{"version", "TEXT NOT NULL", func(s *Row) any { return &s.Version }},
	{"capability_type", "TEXT NOT NULL", func(s *Row) any { return &s.CapabilityType }},
	{"access", "TEXT NOT NULL", func(s *Row) any { return &s.Access }},
	{"summary", "TEXT NOT NULL", func(s *Row) any { return &s.Summary }},
	{"provider_name", "TEXT NOT NULL", func(s *Row) any { return &s.ProviderName }},
	{"source", "TEXT NOT NULL", func(s *Row) any { return &s.Source }},
	{"descriptor", "BLOB NOT NULL", func(s *Row) any { return &s.Descriptor }},
	{"digest", "TEXT NOT NULL", func(s *Row) any { return &s.Digest }},
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
func (s *Row) dest() []any {
	out := make([]any, len(rowColumns))
	for i, c := range rowColumns {
		out[i] = c.field(s)
	}
	return out
}

// args returns s's fields in column order, for an INSERT.
func (s *Row) args() []any {
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
