package build

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillcat/skillcat/store"
	"github.com/skillcat/skillcat/synth"
)

// TestFullLayout holds the layout of llms-full.txt that the cache keeps
// (fullLayoutPart) to the file it describes, after a cold build and after
// a rebuild that copied the unchanged skills' blocks from it: one line per
// listed skill, in the file's order, each span a whole block of that
// skill (its "---", its name's heading, its digest in its links).
func TestFullLayout(t *testing.T) {
	defer SetRacyWindow(0)()
	dir := t.TempDir()
	content := filepath.Join(dir, "content")
	if err := synth.Write(content, 20, 3); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Content: os.DirFS(content), ContentLabel: content, ContentPath: content,
		Out: filepath.Join(dir, "out"), Cache: filepath.Join(dir, "cache.sqlite"), Workers: 2}
	check := func(t *testing.T) {
		t.Helper()
		full, err := os.ReadFile(filepath.Join(cfg.Out, "llms-full.txt"))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(full)
		ctx := context.Background()
		c, err := store.OpenCache(ctx, cfg.Cache, cacheVersion())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		tx, err := c.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		parts, err := tx.Parts(ctx, fullLayoutPart)
		if err != nil {
			t.Fatal(err)
		}
		if len(parts) != 1 {
			t.Fatalf("layouts kept: got %d, want 1", len(parts))
		}
		layout, ok := parts[hex.EncodeToString(sum[:])]
		if !ok {
			t.Fatal("the layout kept is not keyed by the hash of llms-full.txt")
		}
		_, rest, _ := strings.Cut(layout, "\n")
		spans, err := readLayout(rest, int64(len(full)))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(rest, "\n"); got != len(spans) || got < 15 {
			t.Fatalf("layout: %d lines, %d skills", got, len(spans))
		}
		end := int64(0)
		for _, line := range strings.Split(strings.TrimSuffix(rest, "\n"), "\n") {
			digest := "sha256:" + strings.Fields(line)[0]
			sp := spans[digest]
			if sp.off < end {
				t.Fatalf("%s: block at %d, before the end of the last one (%d)", digest, sp.off, end)
			}
			end = sp.off + sp.n
			block := full[sp.off:end]
			if !bytes.HasPrefix(block, []byte("---\n\n# ")) || !bytes.HasSuffix(block, []byte(")")) || !bytes.Contains(block, []byte(digest)) {
				t.Fatalf("%s: block %q is not that skill's", digest, block)
			}
		}
	}
	if _, err := Build(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	t.Run("Cold", check)
	name := filepath.Join(content, synth.Name(2))
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, bytes.Replace(data, []byte(`"description": "`), []byte(`"description": "Changed, `), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	t.Run("Rebuild", check)
}
