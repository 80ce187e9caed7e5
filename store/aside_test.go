package store_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/skillcat/skillcat/store"
)

// TestDescriptorsAside holds an index that keeps its descriptors aside to
// one that keeps them: the same descriptors from Descriptor, EachDescriptor
// and Listed, and a byte-identical export; the caller is never asked for a
// private skill's descriptor, and its failure is the export's, naming the
// skill.
func TestDescriptorsAside(t *testing.T) {
	ctx := context.Background()
	rows := []store.Row{
		newSkill("b", "api", "public", "b.json", "x", "y"),
		newSkill("a", "task", "restricted", "a.json"),
		newSkill("secret", "api", "private", "secret.json", "z"),
		newSkill("c", "plugin", "public", "c.json", "y"),
	}
	byID := map[string][]byte{}
	for _, r := range rows {
		byID[r.ID] = r.Descriptor
	}
	var mu sync.Mutex
	var asked []string
	var fail error
	aside := openDSN(t, "file:")
	aside.KeepDescriptorsAside(func(id string) ([]byte, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, id)
		return byID[id], fail
	})
	kept := openDSN(t, "file:")
	for _, db := range []*store.DB{aside, kept} {
		if dups, err := db.Load(ctx, slices.Clone(rows)); err != nil || dups != nil {
			t.Fatalf("Load: %v, %v", dups, err)
		}
	}

	for _, id := range []string{"a", "b", "c"} {
		got, err := aside.Descriptor(ctx, id)
		if err != nil || !bytes.Equal(got, byID[id]) {
			t.Errorf("Descriptor(%q): got %q, %v, want %q", id, got, err, byID[id])
		}
	}
	if _, err := aside.Descriptor(ctx, "secret"); err == nil {
		t.Errorf("Descriptor of a private skill: got no error")
	}
	var each []string
	if err := aside.EachDescriptor(ctx, func(id string, d []byte) error {
		if !bytes.Equal(d, byID[id]) {
			t.Errorf("EachDescriptor %q: got %q, want %q", id, d, byID[id])
		}
		each = append(each, id)
		return nil
	}); err != nil || !slices.Equal(each, []string{"a", "b", "c"}) {
		t.Errorf("EachDescriptor: got %q, %v, want a, b, c", each, err)
	}
	listedAside, err1 := aside.Listed(ctx, "")
	listedKept, err2 := kept.Listed(ctx, "")
	if err1 != nil || err2 != nil || len(listedAside) != 3 {
		t.Fatalf("Listed: %v, %v", err1, err2)
	}
	for i := range listedAside {
		if !bytes.Equal(listedAside[i].Descriptor, listedKept[i].Descriptor) {
			t.Errorf("Listed %s: got %q, want %q", listedKept[i].ID, listedAside[i].Descriptor, listedKept[i].Descriptor)
		}
	}

	dir := t.TempDir()
	a, k := filepath.Join(dir, "aside.sqlite"), filepath.Join(dir, "kept.sqlite")
	if err := aside.Export(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := kept.Export(ctx, k); err != nil {
		t.Fatal(err)
	}
	da, _ := os.ReadFile(a)
	dk, _ := os.ReadFile(k)
	if len(da) == 0 || !bytes.Equal(da, dk) {
		t.Errorf("the export of descriptors kept aside (%d bytes) is not the export of the index that keeps them (%d bytes)", len(da), len(dk))
	}
	if slices.Contains(asked, "secret") {
		t.Errorf("asked for the private skill's descriptor: %q", asked)
	}

	fail = errors.New("gone")
	err := aside.Export(ctx, filepath.Join(dir, "failed.sqlite"))
	if err == nil || !strings.Contains(err.Error(), `descriptor "a"`) || !strings.Contains(err.Error(), "gone") {
		t.Errorf("export with the descriptor's reader failing: got %v, want an error naming skill a and the reason", err)
	}
}
