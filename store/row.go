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
// test), each with the field it fills. The index's INSERT and SELECTs are
// made from it, and the rebuild cache keeps the index in its own tables
// of that schema. Tags are a list, not a column: the index keeps them in
// skill_tags, one row per tag, in order.
var rowColumns = []struct {
	name  string
	field func(*Row) any // a pointer to the field
}{
	{"id", func(s *Row) any { return &s.ID }},
	{"name", func(s *Row) any { return &s.Name }},
	{"version", func(s *Row) any { return &s.Version }},
	{"capability_type", func(s *Row) any { return &s.CapabilityType }},
	{"access", func(s *Row) any { return &s.Access }},
	{"summary", func(s *Row) any { return &s.Summary }},
	{"provider_name", func(s *Row) any { return &s.ProviderName }},
	{"source", func(s *Row) any { return &s.Source }},
	{"descriptor", func(s *Row) any { return &s.Descriptor }},
	{"digest", func(s *Row) any { return &s.Digest }},
}

// descriptorAt is the descriptor's place in rowColumns.
var descriptorAt = func() int {
	for i, c := range rowColumns {
		if c.name == "descriptor" {
			return i
		}
	}
	panic("store: no descriptor column")
}()

// rowNames is the row's column list, "id, name, …", for SQL.
func rowNames() string {
	names := make([]string, len(rowColumns))
	for i, c := range rowColumns {
		names[i] = c.name
	}
	return strings.Join(names, ", ")
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
