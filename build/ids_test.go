package build_test

import (
	"context"
	"maps"
	"testing"
	"testing/fstest"

	"github.com/skillcat/skillcat/build"
)

// TestSourceIDs checks that SourceIDs finds sources by the build's rule and
// reads ids as the build does: drafts, hidden files and other extensions are
// not sources, a Markdown id comes from the front matter only, and a source
// without a string id is left out.
func TestSourceIDs(t *testing.T) {
	fsys := fstest.MapFS{
		"a.json":          {Data: []byte(`{"id": "alpha", "name": "A"}`)},
		"sub/b.md":        {Data: []byte("---\nid: beta\nname: B\n---\nid: not-this\n")},
		"sub/c.md":        {Data: []byte("---\nname: C\n---\n\n---\nid: gamma\n---\n")},
		"d.json":          {Data: []byte(`{"id": 7}`)},
		"_drafts/e.json":  {Data: []byte(`{"id": "draft"}`)},
		".git/f.json":     {Data: []byte(`{"id": "hidden"}`)},
		"notes.txt":       {Data: []byte(`{"id": "text"}`)},
		"broken.json":     {Data: []byte(`{"id": "broken",`)},
		"_index.md":       {Data: []byte("---\ntitle: T\n---\n")},
		"sub/deep/g.json": {Data: []byte(`{"name": "G", "id": "delta"}`)},
	}
	got := build.SourceIDs(context.Background(), fsys)
	want := map[string]string{"a.json": "alpha", "sub/b.md": "beta", "sub/deep/g.json": "delta"}
	if !maps.Equal(got, want) {
		t.Errorf("SourceIDs = %v; want %v", got, want)
	}
}
