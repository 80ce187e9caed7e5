package build

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestVersionMemo checks the memo of cacheVersion beside the cache: it is
// used only for an executable of the identity it was made of, never for
// one changed within the racy window, never when it is damaged, and never
// written beside a file that is not a cache.
func TestVersionMemo(t *testing.T) {
	dir := t.TempDir()
	exe, memo := filepath.Join(dir, "skillcat"), filepath.Join(dir, "cache.sqlite"+versionMemo)
	if err := os.WriteFile(exe, []byte("one build"), 0o755); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(2 * racyWindow) // the executable's change is past the racy window
	info, err := os.Stat(exe)
	if err != nil {
		t.Fatal(err)
	}
	if sourceStat(info, later) == "" {
		t.Skip("no file identities here")
	}
	digest := func(c byte) string { return strings.Repeat(string(c), 64) }
	calls := 0
	hashedAs := func(d string, now time.Time) func() versionOf {
		return func() versionOf {
			calls++
			info, err := os.Stat(exe)
			if err != nil {
				t.Fatal(err)
			}
			return versionOf{stat: sourceStat(info, now), digest: d}
		}
	}
	version := func(now time.Time, hashed func() versionOf) string {
		t.Helper()
		v, keep := versionAt(exe, memo, now, hashed)
		keep()
		return v
	}

	if v := version(later, hashedAs(digest('a'), later)); v != digest('a') || calls != 1 {
		t.Fatalf("no memo: got %q after %d hashes, want the hash", v, calls)
	}
	if v := version(later, hashedAs(digest('b'), later)); v != digest('a') || calls != 1 {
		t.Fatalf("memo of this executable: got %q after %d hashes, want the memo's %q without hashing", v, calls, digest('a'))
	}

	// The same executable looked at within the racy window: hashed, and no
	// memo kept of it.
	if v := version(time.Now(), hashedAs(digest('c'), time.Now())); v != digest('c') || calls != 2 {
		t.Fatalf("racy executable: got %q after %d hashes, want it hashed", v, calls)
	}
	if data, _ := os.ReadFile(memo); !strings.Contains(string(data), digest('a')) {
		t.Fatalf("a racy executable's hash replaced the memo: %q", data)
	}

	// Rewritten in place, same size: a new change time, so hashed again.
	time.Sleep(20 * time.Millisecond)
	if err := os.WriteFile(exe, []byte("two build"), 0o755); err != nil {
		t.Fatal(err)
	}
	later = time.Now().Add(2 * racyWindow)
	if v := version(later, hashedAs(digest('d'), later)); v != digest('d') || calls != 3 {
		t.Fatalf("rewritten executable: got %q after %d hashes, want it hashed", v, calls)
	}
	if v := version(later, hashedAs(digest('e'), later)); v != digest('d') || calls != 3 {
		t.Fatalf("memo of the rewritten executable: got %q after %d hashes, want %q", v, calls, digest('d'))
	}

	// A damaged memo is not used.
	data, err := os.ReadFile(memo)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{string(data[:len(data)-3]), "", strings.Replace(string(data), " ", "", 1)} {
		if err := os.WriteFile(memo, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		n := calls
		if v := version(later, hashedAs(digest('f'), later)); v != digest('f') || calls != n+1 {
			t.Fatalf("memo %q: got %q, want it hashed", bad, v)
		}
	}

	// Nothing is written beside a file that is not a cache.
	foreign := filepath.Join(dir, "notes.sqlite")
	if err := os.WriteFile(foreign, []byte("my notes, not a database\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := openCache(context.Background(), foreign); err == nil {
		t.Fatal("a foreign file opened as a cache")
	}
	if _, err := os.Stat(foreign + versionMemo); !os.IsNotExist(err) {
		t.Errorf("a version memo was written beside a foreign file (%v)", err)
	}
}
