package build_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/build"
)

// TestInvalidErrorAs checks what ErrInvalidContent's doc promises a Go
// consumer: errors.Is finds the sentinel and errors.As with a
// skillcat.Violations yields every problem, even through more wrapping.
func TestInvalidErrorAs(t *testing.T) {
	fsys := mapFS(map[string]string{
		"a.json": `{"id": "a"}`,
		"b.json": `not json`,
	})
	_, err := build.Validate(context.Background(), config(fsys, filepath.Join(t.TempDir(), "out")))
	err = fmt.Errorf("catalog: %w", err)
	if !errors.Is(err, build.ErrInvalidContent) {
		t.Fatalf("errors.Is(%v, ErrInvalidContent) = false", err)
	}
	var vs skillcat.Violations
	if !errors.As(err, &vs) {
		t.Fatalf("errors.As(%v, &skillcat.Violations) = false", err)
	}
	files := map[string]bool{}
	for _, v := range vs {
		files[v.File] = true
	}
	if !files["content/a.json"] || !files["content/b.json"] {
		t.Errorf("errors.As gave violations of %v; want both sources: %s", files, vs.Error())
	}
}
