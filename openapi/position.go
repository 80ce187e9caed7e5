package openapi

import (
	"bytes"
	"strconv"

	skillcat "github.com/skillcat/skillcat"
	"go.yaml.in/yaml/v3"
)

// positions finds where a JSON Pointer of the document lies in its text,
// so that a warning names a line and column. The text is parsed again
// only when the first warning asks.
type positions struct {
	data   []byte
	parsed bool
	src    *skillcat.Source // a JSON document, and its tree
	json   *skillcat.Node
	yml    *yaml.Node // a YAML document's top node
}

// at returns the line and column of the deepest node the pointer reaches
// in the document's text (the node itself when it is there, else the
// nearest one holding it: a Swagger 2.0 document's pointers are of its
// OpenAPI 3.0 conversion), or 0, 0 when there is none.
func (p *positions) at(pointer string) (line, col int) {
	if !p.parsed {
		p.parse()
	}
	toks := skillcat.ParsePointer(pointer)
	switch {
	case p.json != nil:
		n := p.json
		for _, tok := range toks {
			next := n.Lookup([]string{tok})
			if next == nil {
				break
			}
			n = next
		}
		return p.src.Position(n)
	case p.yml != nil:
		n := p.yml
		for _, tok := range toks {
			next := yamlChild(n, tok)
			if next == nil {
				break
			}
			n = next
		}
		return n.Line, n.Column
	}
	return 0, 0
}

// parse reads the text again, as toJSON did.
func (p *positions) parse() {
	p.parsed = true
	if t := bytes.TrimSpace(p.data); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		p.src = &skillcat.Source{Name: "openapi", Data: p.data}
		if n, vs := skillcat.ParseSource(p.src); vs == nil {
			p.json = n
		}
		return
	}
	var root yaml.Node
	if yaml.Unmarshal(p.data, &root) == nil && root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		p.yml = root.Content[0]
	}
}

// yamlChild returns the value of a mapping's member tok, or the item tok
// of a sequence, aliases followed, or nil.
func yamlChild(n *yaml.Node, tok string) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := len(n.Content) - 2; i >= 0; i -= 2 {
			if n.Content[i].Value == tok {
				return n.Content[i+1]
			}
		}
	case yaml.SequenceNode:
		if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(n.Content) && strconv.Itoa(i) == tok {
			return n.Content[i]
		}
	}
	return nil
}
