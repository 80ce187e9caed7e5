package build

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"runtime"
	"strings"
	"sync"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/store"
)

// Skill is one valid source after parsing: the descriptor, where it came
// from, and the bytes it is published as.
type Skill struct {
	Source     string // path relative to the content directory
	Display    string // the source's name in messages
	Descriptor *skillcat.SkillDescriptor
	Published  []byte // the descriptor as written to /skills/<id>.json
	Digest     string // "sha256:<hex>" of Published
	Summary    string
	IDLine     int // where the id member stands, for duplicate errors
	IDColumn   int
}

// parsed is the outcome of parsing one source.
type parsed struct {
	skill *Skill
	vs    skillcat.Violations
}

// parseSources parses and validates every source, in parallel across
// workers, and returns the valid skills and every violation (warnings
// included), each in source order.
func parseSources(files []SourceFile, display func(string) string, workers int) ([]*Skill, skillcat.Violations) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	results := make([]parsed, len(files))
	var wg sync.WaitGroup
	next := make(chan int, len(files))
	for i := range files {
		next <- i
	}
	close(next)
	for w := 0; w < min(workers, len(files)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = parseSource(files[i], display(files[i].Path))
			}
		}()
	}
	wg.Wait()
	var skills []*Skill
	var vs skillcat.Violations
	for _, r := range results {
		vs = append(vs, r.vs...)
		if r.skill != nil {
			skills = append(skills, r.skill)
		}
	}
	return skills, vs
}

// parseSource parses one .json or .md source into a Skill.
func parseSource(f SourceFile, name string) parsed {
	src := &skillcat.Source{Name: name, Data: f.Data}
	var root *skillcat.Node
	var vs skillcat.Violations
	if strings.HasSuffix(f.Path, ".md") {
		if v := skillcat.CheckText(src); v != nil {
			return parsed{vs: v}
		}
		root, vs = markdownNode(src)
	} else {
		root, vs = skillcat.ParseSource(src)
	}
	if vs.HasErrors() {
		return parsed{vs: vs}
	}
	d, dvs := skillcat.DecodeDescriptor(src, root)
	vs = append(vs, dvs...)
	if d == nil {
		return parsed{vs: vs}
	}
	published, err := d.Encode()
	if err != nil {
		line, col := src.Position(root)
		vs = append(vs, skillcat.Violation{File: name, Line: line, Column: col, Field: skillcat.FileField,
			Reason: fmt.Sprintf("cannot encode descriptor: %v", err), Severity: skillcat.SeverityError})
		return parsed{vs: vs}
	}
	sum := sha256.Sum256(published)
	s := &Skill{
		Source:     f.Path,
		Display:    name,
		Descriptor: d,
		Published:  published,
		Digest:     "sha256:" + hex.EncodeToString(sum[:]),
		Summary:    Summarize(d.Description),
	}
	s.IDLine, s.IDColumn = src.Position(root.Get("id"))
	return parsed{skill: s, vs: vs}
}

// row returns the store row of a skill.
func (s *Skill) row() store.Skill {
	d := s.Descriptor
	return store.Skill{
		ID:             d.ID,
		Name:           d.Name,
		Version:        d.Version,
		CapabilityType: string(d.CapabilityType),
		Access:         string(d.Access),
		Summary:        s.Summary,
		ProviderName:   d.Provider.Name,
		Tags:           d.Tags,
		Source:         s.Source,
		Descriptor:     s.Published,
		Digest:         s.Digest,
	}
}
