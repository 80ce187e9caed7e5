package main

import (
	"bytes"
	"os"
	"testing"
)

// TestHighlightCSSIsFresh holds the committed style sheet to what cssgen
// makes now: a chroma upgrade that changes the colours must be followed
// by go generate ./....
func TestHighlightCSSIsFresh(t *testing.T) {
	want, err := highlightCSS()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../templates/assets/highlight.css")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("templates/assets/highlight.css is stale: run go generate ./... and commit it")
	}
	for _, class := range []string{".chroma .nt {", ".chroma .s2 {", ".chroma .kc {", "@media (prefers-color-scheme: dark)"} {
		if !bytes.Contains(got, []byte(class)) {
			t.Errorf("highlight.css lacks %q", class)
		}
	}
}
