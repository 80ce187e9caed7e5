package build

import (
	"context"
	"io/fs"
	"strings"

	skillcat "github.com/skillcat/skillcat"
)

// SourceIDs returns the id that each skill source in fsys declares, by
// source path, finding the sources as the build does (the same names
// skipped, links followed, sizes bounded) and reading each id as the build
// would: a JSON source's "id" member, a Markdown source's id in its front
// matter. A source whose id cannot be read, or is not a string, is left
// out: validation reports it.
func SourceIDs(ctx context.Context, fsys fs.FS) map[string]string {
	files, _ := readSources(fsys, func(p string) string { return p }, "")
	ids := make(map[string]string, len(files))
	for i := range files {
		if ctx.Err() != nil {
			break
		}
		f := &files[i]
		if f.load(fsys) != nil {
			continue
		}
		src := &skillcat.Source{Name: f.Path, Data: f.Data}
		var root *skillcat.Node
		if strings.HasSuffix(f.Path, ".md") {
			root, _, _, _ = parseFrontMatter(src)
		} else {
			root, _ = skillcat.ParseSource(src)
		}
		f.Data = nil
		if id := root.Get("id"); id != nil && id.Kind == skillcat.String {
			ids[f.Path] = id.Text
		}
	}
	return ids
}
