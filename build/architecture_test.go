package build

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestArchitecturePicture holds the pipeline picture in
// docs/architecture.md to the code: every "file name" pair in it names a
// function (or a method, type.method) declared in that file. It also checks
// that the package documentation names only functions that exist.
func TestArchitecturePicture(t *testing.T) {
	doc, err := os.ReadFile("../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	start := strings.Index(text, "## A build, one arrow at a time")
	if start < 0 {
		t.Fatal(`docs/architecture.md has no "A build, one arrow at a time" section`)
	}
	block := text[start:]
	block = block[strings.Index(block, "```")+3:]
	block = block[:strings.Index(block, "```")]
	pair := regexp.MustCompile(`((?:build|store)/[a-z]+\.go|[a-z]+\.go)\s+([A-Za-z]+(?:\.[A-Za-z]+)?)`)
	decls := map[string]map[string]bool{} // file → declared names
	declared := func(file string) map[string]bool {
		if d, ok := decls[file]; ok {
			return d
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", file), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("docs/architecture.md names %s: %v", file, err)
			decls[file] = map[string]bool{}
			return decls[file]
		}
		d := map[string]bool{}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			name := fn.Name.Name
			if fn.Recv != nil && len(fn.Recv.List) == 1 {
				typ := fn.Recv.List[0].Type
				if st, ok := typ.(*ast.StarExpr); ok {
					typ = st.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					name = id.Name + "." + name
				}
			}
			d[name] = true
		}
		decls[file] = d
		return d
	}
	n := 0
	for _, m := range pair.FindAllStringSubmatch(block, -1) {
		n++
		if !declared(m[1])[m[2]] {
			t.Errorf("docs/architecture.md: %s declares no %s", m[1], m[2])
		}
	}
	if n < 10 {
		t.Errorf("found %d file/function pairs in the picture; want the whole pipeline", n)
	}

	// The package documentation's picture names functions of this package.
	pkgDoc, err := os.ReadFile("build.go")
	if err != nil {
		t.Fatal(err)
	}
	head := string(pkgDoc)[:strings.Index(string(pkgDoc), "package build")]
	all := map[string]bool{}
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") {
			for name := range declared("build/" + f) {
				all[name] = true
			}
		}
	}
	for _, name := range []string{"readSources", "parseCached", "orderedMap", "indexer.add", "indexer.finish", "render", "output.write", "output.finish"} {
		if !strings.Contains(head, name) {
			t.Errorf("the package documentation no longer names %s", name)
		}
		if !all[name] {
			t.Errorf("the package documentation names %s, which build does not declare", name)
		}
	}
}
