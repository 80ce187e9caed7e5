package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// costlySource is a descriptor whose example would take exponential time to
// check against its inputs schema (a "oneOf" of two recursive branches that
// both apply, nested 40 deep).
func costlySource(id string) string {
	return `{"protocol": {"version": "1.0.0"}, "id": "` + id + `", "name": "Costly", "version": "1.0.0",
  "capability_type": "task", "description": "A costly schema.", "provider": {"name": "Acme"},
  "endpoint": {"url": "https://api.example.com/costly"},
  "inputs": {"type": "object", "properties": {"x": {"$ref": "#/$defs/n"}}, "$defs": {"n": {"oneOf": [
    {"type": "array", "items": {"$ref": "#/$defs/n"}}, {"type": "array", "items": {"$ref": "#/$defs/n"}, "maxItems": 1}]}}},
  "output": true, "auth": {"type": "none"}, "access": "public",
  "examples": [{"title": "deep", "inputs": {"x": ` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}}]}`
}

// TestSIGTERMDuringValidation runs the real binary on sources whose checks
// are costly, sends SIGTERM while it validates, and expects it to stop
// promptly with exit 3 and its "interrupted" message.
func TestSIGTERMDuringValidation(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "skillcat")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	content := filepath.Join(dir, "content")
	if err := os.Mkdir(content, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		if err := os.WriteFile(filepath.Join(content, fmt.Sprintf("s%03d.json", i)), []byte(costlySource(fmt.Sprintf("costly.s%03d", i))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, sub := range []string{"build", "validate"} {
		t.Run(sub, func(t *testing.T) {
			args := []string{sub, "--content", content}
			if sub == "build" {
				args = append(args, "--out", filepath.Join(dir, "public"), "--no-cache")
			}
			cmd := exec.Command(bin, args...)
			cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// SIGTERM before main has set up its handler would just kill
			// it: wait until it has spent CPU time validating.
			waitCPU(t, cmd.Process.Pid, 500*time.Millisecond)
			sent := time.Now()
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("%s went on for 20 s after SIGTERM", sub)
			}
			took := time.Since(sent)
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != exitInternal {
				t.Fatalf("%s: got %v after SIGTERM, want exit %d; stderr:\n%s", sub, err, exitInternal, stderr.String())
			}
			if took > 10*time.Second {
				t.Errorf("%s took %v to stop after SIGTERM", sub, took)
			}
			if !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("%s: stderr does not say it was interrupted:\n%s", sub, stderr.String())
			}
		})
	}
}

// TestCostlySourceReported checks that a build over a costly source
// finishes, reporting the source, with exit 1.
func TestCostlySourceReported(t *testing.T) {
	content := t.TempDir()
	if err := os.WriteFile(filepath.Join(content, "costly.json"), []byte(costlySource("costly.one")), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCmd(t, "build", "--content", content, "--out", filepath.Join(t.TempDir(), "public"), "--no-cache")
	if code != exitInvalid || !strings.Contains(stderr, "costly.json:7:44:") || !strings.Contains(stderr, "examples[0].inputs: is too costly to check") {
		t.Errorf("got exit %d, stderr:\n%s\nwant exit 1 and the example reported", code, stderr)
	}
}

// waitCPU waits until process pid has used d of CPU time (from
// /proc/PID/stat), or two seconds where there is no /proc.
func waitCPU(t *testing.T, pid int, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			time.Sleep(2 * time.Second)
			return
		}
		// Fields after the command name (which ends with ")"): utime is
		// the 12th, stime the 13th, in clock ticks (100 a second).
		_, rest, _ := strings.Cut(string(data), ") ")
		f := strings.Fields(rest)
		var utime, stime int
		if len(f) > 12 {
			fmt.Sscan(f[11], &utime)
			fmt.Sscan(f[12], &stime)
		}
		if time.Duration(utime+stime)*10*time.Millisecond >= d {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("process %d did not get %v of CPU time in a minute", pid, d)
}
