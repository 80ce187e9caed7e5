//go:build linux

package main

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/internal/treetest"
	"github.com/skillcat/skillcat/synth"
)

// TestKillDuringBuild is the fault-injection test of "the output is the
// old site or the new one, whatever kills the build": it builds catalog A
// with the cache, starts a build of catalog B (then of A again, and so
// on; every other one without the cache, which makes each skill's files
// while it loads the index), kills it with SIGKILL at random moments and
// exactly when the first file of the new tree appears, and checks after
// every kill that
//
//   - the output is byte for byte a cold build of A or of B;
//   - the next build succeeds and equals a cold build;
//   - nothing is left beside the output, and nothing in the temporary
//     folder (TMPDIR), where the index of private skills once lingered.
//
// SKILLCAT_KILL_SKILLS (default 24) and SKILLCAT_KILL_ROUNDS (default 8)
// set its size; scripts/kill-test runs it on a few thousand skills.
func TestKillDuringBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("kills builds: not in -short")
	}
	killRounds(t, envInt("SKILLCAT_KILL_SKILLS", 24), envInt("SKILLCAT_KILL_ROUNDS", 8), false)
}

// TestKillDuringInPlaceBuild kills builds into an --out that is a mount
// point (a tmpfs), which is updated file by file: after a kill the output
// is the old site, the new one, or one whose every file is whole (old or
// new) and whose Well-Known index lists only descriptors that are there;
// the next build completes it.
func TestKillDuringInPlaceBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("kills builds: not in -short")
	}
	killRounds(t, 24, 6, true)
}

// killRounds runs the kill test on n skills for the given rounds; with
// mount, the output is a tmpfs mounted for the test.
func killRounds(t *testing.T, n, rounds int, mount bool) {
	bin := skillcatBinary(t)
	dir := t.TempDir()
	contents := [2]string{filepath.Join(dir, "a"), filepath.Join(dir, "b")}
	if err := synth.Write(contents[0], n, 1); err != nil {
		t.Fatal(err)
	}
	catalogB(t, contents[0], contents[1], n)
	tmp := filepath.Join(dir, "tmp")
	os.Mkdir(tmp, 0o700)
	site := filepath.Join(dir, "site")
	os.Mkdir(site, 0o755)
	out := filepath.Join(site, "public")
	if mount {
		os.Mkdir(out, 0o755)
		if err := syscall.Mount("tmpfs", out, "tmpfs", 0, "size=256m,mode=0755"); err != nil {
			t.Skipf("SKIPPED: cannot mount a tmpfs for --out (%v); this test needs root with CAP_SYS_ADMIN: sudo go test ./cmd/skillcat -run %s", err, t.Name())
		}
		t.Cleanup(func() { syscall.Unmount(out, syscall.MNT_DETACH) })
	}
	environ := append(os.Environ(), "TMPDIR="+tmp, "SOURCE_DATE_EPOCH=1700000000", "SQLITE_TMPDIR="+tmp)

	run := func(content, out string, extra ...string) (*exec.Cmd, error) {
		cmd := exec.Command(bin, append([]string{"build", "--content", content, "--out", out, "--quiet"}, extra...)...)
		cmd.Env = environ
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		if err != nil {
			err = fmt.Errorf("%v: %s", err, stderr.String())
		} else if stderr.Len() > 0 {
			// A quiet build prints nothing: not even a note that the kill
			// left the cache damaged.
			err = fmt.Errorf("printed %q", stderr.String())
		}
		return cmd, err
	}
	// The cold builds every state is compared with: A, then B after A
	// (whose change feed continues A's), then A after B, and so on. The
	// history of a site killed while it went from one to the other is
	// one of the two.
	type state struct {
		name string
		tree map[string]string
	}
	cold := filepath.Join(dir, "cold")
	var states []state
	coldNext := func(i int) state {
		if _, err := run(contents[i%2], cold, "--no-cache"); err != nil {
			t.Fatalf("cold build: %v", err)
		}
		return state{fmt.Sprintf("%c%d", "AB"[i%2], i), treetest.Files(t, cold)}
	}
	states = append(states, coldNext(0))
	start := time.Now()
	if _, err := run(contents[0], out); err != nil {
		t.Fatalf("first build: %v", err)
	}
	full := time.Since(start)
	if got := treetest.Files(t, out); !maps.Equal(got, states[0].tree) {
		t.Fatalf("first build differs from a cold build:\n%s", treetest.Diff(got, states[0].tree))
	}

	seen := map[string]int{}
	rng := rand.New(rand.NewPCG(uint64(n), uint64(rounds)))
	kills, rebuilds := 0, 0
	for r := 1; r <= rounds; r++ {
		from := states[len(states)-1]
		states = append(states, coldNext(r))
		to := states[len(states)-1]
		// Every other killed build runs without the cache: it makes each
		// skill's files as it parses it, into a tree made before its load.
		args := []string{"build", "--content", contents[r%2], "--out", out, "--quiet"}
		cache := "with the cache"
		if r%2 == 0 {
			args, cache = append(args, "--no-cache"), "without the cache"
		}
		cmd := exec.Command(bin, args...)
		cmd.Env = environ
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		how := "random"
		if r%3 == 0 {
			how = "first file"
			waitFirstFile(site, out)
		} else {
			time.Sleep(time.Duration(rng.Int64N(int64(full)*3/2 + 1))) // some finish: kills near the exchange
		}
		cmd.Process.Signal(syscall.SIGKILL)
		err := cmd.Wait()
		killed := err != nil && strings.Contains(err.Error(), "killed")
		if killed {
			kills++
		}
		got := treetest.Files(t, out)
		switch {
		case maps.Equal(got, from.tree):
			seen["old site"]++
		case maps.Equal(got, to.tree):
			seen["new site"]++
		case mount && consistentMix(t, out, got, from.tree, to.tree):
			seen["consistent mix"]++
		default:
			t.Fatalf("round %d (%s, %s, killed %v): the output is neither %s nor %s:\nagainst the new site:\n%s", r, cache, how, killed, from.name, to.name, treetest.Diff(got, to.tree))
		}
		t.Logf("round %d: %s → %s %s, kill %s, killed before the end: %v, output after the kill: %s", r, from.name, to.name, cache, how, killed, stateOf(got, from.tree, to.tree))
		rebuild := time.Now()
		if _, err := run(contents[r%2], out); err != nil {
			t.Fatalf("round %d: the build after the kill failed: %v", r, err)
		}
		// The next kill falls within a rebuild's time (a rebuild from the
		// spare is much shorter than the first build).
		full = time.Since(rebuild)
		rebuilds++
		if got := treetest.Files(t, out); !maps.Equal(got, to.tree) {
			t.Fatalf("round %d: the build after the kill differs from a cold build:\n%s", r, treetest.Diff(got, to.tree))
		}
		if left := leftovers(site, tmp); len(left) > 0 {
			t.Fatalf("round %d: left after a kill and a rebuild: %v", r, left)
		}
	}
	kind := "beside the output, exchanged"
	if mount {
		kind = "in place (a mount point)"
	}
	t.Logf("kill test (%s): %d skills, %d rounds, %d builds killed, states seen after a kill: %d old site, %d new site, %d consistent mix (in place only), 0 other; %d rebuilds, all equal to a cold build; the last took %s",
		kind, n, rounds, kills, seen["old site"], seen["new site"], seen["consistent mix"], rebuilds, full.Round(time.Millisecond))
	if kills == 0 {
		t.Error("no build was killed before it finished: the test proved nothing")
	}
}

// stateOf names the state of the output got between the old site and the
// new one.
func stateOf(got, old, new map[string]string) string {
	switch {
	case maps.Equal(got, old):
		return "old site"
	case maps.Equal(got, new):
		return "new site"
	}
	return "consistent mix"
}

// consistentMix reports whether the tree got of the output out is made of
// whole files of the old and the new site (the in-place tree aside) and its
// Well-Known index lists only descriptors that are there.
func consistentMix(t *testing.T, out string, got, old, new map[string]string) bool {
	t.Helper()
	for p, h := range got {
		if !strings.HasPrefix(p, ".skillcat-new-") && h != old[p] && h != new[p] {
			t.Logf("%s is neither the old file nor the new one", p)
			return false
		}
	}
	data, err := os.ReadFile(filepath.Join(out, ".well-known", "skills.json"))
	if err != nil {
		return false
	}
	x, vs := skillcat.ParseIndex("skills.json", data)
	if vs.HasErrors() {
		return false
	}
	for _, e := range x.Skills {
		if _, err := os.Stat(filepath.Join(out, ".well-known", filepath.FromSlash(e.DescriptorURL))); err != nil {
			t.Logf("the index lists %s, which is missing", e.DescriptorURL)
			return false
		}
	}
	return true
}

// catalogB writes catalog B from A: a quarter of the skills changed, some
// removed, some added.
func catalogB(t *testing.T, a, b string, n int) {
	t.Helper()
	if err := os.CopyFS(b, os.DirFS(a)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		name := filepath.Join(b, synth.Name(i))
		switch {
		case i%7 == 3:
			os.Remove(name)
		case i%4 == 0:
			_, data := synth.Source(i, 2)
			if err := os.WriteFile(name, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for i := n; i < n+n/10+1; i++ {
		name, data := synth.Source(i, 1)
		p := filepath.Join(b, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// waitFirstFile returns as soon as a new tree beside out, or inside it,
// holds its first file.
func waitFirstFile(site, out string) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for _, pattern := range []string{filepath.Join(site, "."+filepath.Base(out)+".new-*", "*"), filepath.Join(out, ".skillcat-new-*", "*")} {
			if m, _ := filepath.Glob(pattern); len(m) > 0 {
				return
			}
		}
		time.Sleep(200 * time.Microsecond)
	}
}

// leftovers lists what a build left beside the output (anything but the
// output, its spare and the cache folder), in the cache folder (anything but the
// cache and its WAL files) and in the temporary folder.
func leftovers(site, tmp string) []string {
	var left []string
	entries, _ := os.ReadDir(site)
	for _, e := range entries {
		if e.Name() != "public" && e.Name() != ".public.spare" && e.Name() != ".cache" {
			left = append(left, e.Name())
		}
	}
	cached, _ := os.ReadDir(filepath.Join(site, ".cache", "skillcat"))
	for _, e := range cached {
		if !strings.HasPrefix(e.Name(), "public.sqlite") {
			left = append(left, ".cache/skillcat/"+e.Name())
		}
	}
	inTmp, _ := os.ReadDir(tmp)
	for _, e := range inTmp {
		left = append(left, "TMPDIR/"+e.Name())
	}
	return left
}

// skillcatBinary builds the skillcat command into the test's temporary
// folder.
func skillcatBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "skillcat")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v: %s", err, out)
	}
	return bin
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}
