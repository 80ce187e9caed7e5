package build

import (
	"slices"

	"github.com/skillcat/skillcat"
)

// printableDescriptor returns d for a page, or, when one of the texts a
// page shows as HTML text holds a control character (NUL, ESC, DEL, a C1
// control), a copy of d with each such character written U+FFFD
// (skillcat.Printable): HTML forbids them, and a browser would show
// nothing or garbage. A descriptor may hold them (JSON writes "\u001b");
// the published descriptor keeps them.
func printableDescriptor(d *skillcat.SkillDescriptor) *skillcat.SkillDescriptor {
	if printable(d) {
		return d
	}
	c := *d
	c.Name = skillcat.Printable(d.Name)
	c.Description = skillcat.Printable(d.Description)
	c.Provider.Name = skillcat.Printable(d.Provider.Name)
	c.Auth.Name = skillcat.Printable(d.Auth.Name)
	c.Auth.Instructions = skillcat.Printable(d.Auth.Instructions)
	if d.Auth.Scopes != nil {
		c.Auth.Scopes = make(map[string]string, len(d.Auth.Scopes))
		for scope, desc := range d.Auth.Scopes {
			c.Auth.Scopes[skillcat.Printable(scope)] = skillcat.Printable(desc)
		}
	}
	c.Examples = slices.Clone(d.Examples)
	for i := range c.Examples {
		c.Examples[i].Title = skillcat.Printable(c.Examples[i].Title)
	}
	return &c
}

// printable reports whether no text of d that a page shows holds a
// character that skillcat.Printable replaces.
func printable(d *skillcat.SkillDescriptor) bool {
	for _, s := range []string{d.Name, d.Description, d.Provider.Name, d.Auth.Name, d.Auth.Instructions} {
		if skillcat.Printable(s) != s {
			return false
		}
	}
	for scope, desc := range d.Auth.Scopes {
		if skillcat.Printable(scope) != scope || skillcat.Printable(desc) != desc {
			return false
		}
	}
	for _, ex := range d.Examples {
		if skillcat.Printable(ex.Title) != ex.Title {
			return false
		}
	}
	return true
}

// printable returns r with each control character of its texts written
// U+FFFD, as printableDescriptor does (textOf made its Description so;
// Default and Enum are JSON text, which escapes them).
func (r schemaRow) printable() schemaRow {
	r.Name = skillcat.Printable(r.Name)
	r.Parent = skillcat.Printable(r.Parent)
	r.Type = skillcat.Printable(r.Type)
	for i := range r.Constraints { // made for r alone, by constraints
		r.Constraints[i].Code = skillcat.Printable(r.Constraints[i].Code)
	}
	return r
}
