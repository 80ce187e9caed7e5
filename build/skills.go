package build

import (
	"context"
	"path"
	"path/filepath"
	"sort"
	"strings"

	skillcat "github.com/skillcat/skillcat"
)

// SourceSkill is one valid skill of the content and where it came from,
// for tools that act on the sources (skillcat test-endpoints).
type SourceSkill struct {
	// File is the source as messages name it ("content/weather/forecast.json").
	File string
	// Descriptor is the parsed descriptor.
	Descriptor *skillcat.SkillDescriptor
	// Examples holds where each of the descriptor's examples starts in
	// File, in order.
	Examples []Position
}

// Position is a line and column of a source, counted from 1 (columns in
// code points).
type Position struct {
	Line, Column int
}

// Skills validates the content as Validate does and returns every skill,
// private ones included, ordered by id. When the content is invalid it
// returns Validate's error and no skill.
func Skills(ctx context.Context, cfg Config) ([]SourceSkill, *Result, error) {
	res, err := Validate(ctx, cfg)
	if err != nil {
		return nil, res, err
	}
	display := sourceName(cfg)
	skip, _ := outputWithin(cfg)
	files, _ := readSources(cfg.Content, display, skip)
	var skills []SourceSkill
	for i := range files {
		if err := ctx.Err(); err != nil {
			return nil, res, err
		}
		f := &files[i]
		if f.load(cfg.Content) != nil {
			continue // Validate has just read it; it went away since
		}
		src := &skillcat.Source{Name: display(f.Path), Data: f.Data}
		var root *skillcat.Node
		var vs skillcat.Violations
		if strings.HasSuffix(f.Path, ".md") {
			root, vs = markdownNode(src)
		} else {
			root, vs = skillcat.ParseSource(src)
		}
		if vs.HasErrors() {
			continue
		}
		d, _ := skillcat.DecodeDescriptor(src, root)
		if d == nil {
			continue
		}
		s := SourceSkill{File: src.Name, Descriptor: d}
		if exs := root.Get("examples"); exs != nil {
			for _, ex := range exs.Items {
				line, col := src.Position(ex)
				s.Examples = append(s.Examples, Position{line, col})
			}
		}
		skills = append(skills, s)
		f.Data = nil
	}
	sort.Slice(skills, func(i, j int) bool { return skills[i].Descriptor.ID < skills[j].Descriptor.ID })
	return skills, res, nil
}

// sourceName returns how messages name a source of cfg's content: its
// path joined to cfg.ContentLabel.
func sourceName(cfg Config) func(string) string {
	return func(p string) string {
		if cfg.ContentLabel == "" {
			return p
		}
		return filepath.ToSlash(path.Join(filepath.ToSlash(cfg.ContentLabel), p))
	}
}
