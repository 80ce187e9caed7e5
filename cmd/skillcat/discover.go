package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/client"
)

func init() {
	commands["discover"] = command{summary: "list and verify the skills a published catalog offers", run: runDiscover}
}

// discoveredSkill is one line of discover --format json.
type discoveredSkill struct {
	ID             string                  `json:"id"`
	Name           string                  `json:"name"`
	Version        string                  `json:"version"`
	CapabilityType skillcat.CapabilityType `json:"capability_type"`
	Access         skillcat.Access         `json:"access"`
	Summary        string                  `json:"summary"`
	DescriptorURL  string                  `json:"descriptor_url"`
	Digest         string                  `json:"digest"`
}

// discovered is what discover --format json (and show) says of a verified
// skill: its index entry, with the descriptor URL made absolute. The
// descriptor agrees with the entry on every member but the summary.
func discovered(s client.VerifiedSkill) discoveredSkill {
	e := s.Entry
	return discoveredSkill{
		ID: e.ID, Name: e.Name, Version: e.Version, CapabilityType: e.CapabilityType, Access: e.Access,
		Summary: e.Summary, DescriptorURL: s.URL, Digest: e.Digest,
	}
}

// runDiscover fetches a catalog's index and every descriptor it lists,
// verifies them, and prints the verified skills. Problems go to stderr, one
// line each, and exit 1; the good skills are still printed.
func runDiscover(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "discover", "URL [flags]")
	typ := fs.String("type", "", "list only skills of this capability `type`: plugin, api, knowledge or task")
	major := fs.Uint64("supported-major", skillcat.SupportedMajor, "the protocol `major` to accept; a document of a higher major is incompatible")
	format := fs.String("format", "text", "output `format`: text (a table) or json (an array of index entries with absolute descriptor URLs)")
	cf := addClientFlags(fs)
	concurrency := fs.Int("concurrency", client.DefaultConcurrency, "how many descriptors to fetch at once")
	deadline := fs.Duration("deadline", client.DefaultDeadline, "time allowed for the whole discovery (with --since, for following the feed); descriptors not verified by then are reported")
	maxFailures := fs.Int("max-failures", client.DefaultMaxFailures, "stop after this many descriptors in a row could not be fetched (0: never stop)")
	since := fs.Int64("since", -1, "print the change feed's events after sequence number `N` (0: the whole history) instead of the skills")
	epoch := fs.String("epoch", "", "with --since: the feed `epoch` N belongs to; a reset history is then an error")
	describe(fs, "URL [flags]",
		"Fetches URL/.well-known/skills.json (or URL itself when it ends in .json),\n"+
			"verifies every descriptor it lists (digest, validity, agreement with the index)\n"+
			"and prints the skills. URL must be https, or http on localhost.\n"+
			"With --verify-key, the index must carry a signature (.jws) by a pinned key.\n"+
			"With --since N, prints what changed after event N (the change feed) instead.")

	pos, code := parseArgs(e, fs, args)
	if code >= 0 {
		return code
	}
	usageErr := usageError(e, "discover")
	switch {
	case len(pos) == 0:
		return usageErr("missing the catalog URL")
	case len(pos) > 1:
		return usageErr("want one catalog URL; got %d arguments: %q", len(pos), pos)
	case *typ != "" && !slices.Contains(skillcat.CapabilityTypes, skillcat.CapabilityType(*typ)):
		return usageErr("--type must be one of plugin, api, knowledge, task; got %q", *typ)
	case *format != "text" && *format != "json":
		return usageErr("--format must be text or json; got %q", *format)
	case *epoch != "" && *since < 0:
		return usageErr("--epoch goes with --since")
	case *major == 0:
		return usageErr("--supported-major must be at least 1")
	case cf.problem() != "":
		return usageErr("%s", cf.problem())
	case *concurrency < 1:
		return usageErr("--concurrency must be at least 1; got %d", *concurrency)
	case *deadline <= 0:
		return usageErr("--deadline must be positive; got %v", *deadline)
	case *maxFailures < 0:
		return usageErr("--max-failures must be 0 or more; got %d", *maxFailures)
	}
	if err := catalogArg(pos[0]); err != nil {
		return usageErr("%v", err)
	}
	pinned, code := cf.pinned(e)
	if code >= 0 {
		return code
	}

	c := cf.client()
	c.SupportedMajor, c.Concurrency, c.Deadline, c.MaxFailures = *major, *concurrency, *deadline, *maxFailures
	if *maxFailures == 0 {
		c.MaxFailures = -1
	}
	if *since >= 0 {
		return followChanges(ctx, e, c, pos[0], client.ChangesOptions{Since: *since, Epoch: *epoch}, *format)
	}
	opts := client.DiscoverOptions{Type: skillcat.CapabilityType(*typ), VerifyKeys: pinned, CheckSignature: true}
	p := &progress{w: e.stderr}
	if isTerminal(e.stderr) {
		opts.Progress = p.report
	}
	cat, err := c.Discover(ctx, pos[0], opts)
	p.clear()
	if cat != nil {
		switch sig := cat.Signature; {
		case sig.Verified:
			fmt.Fprintf(e.stderr, "skillcat: discover: the index signature verifies with the pinned key %s\n", printable(sig.KID))
		case sig.Signed:
			fmt.Fprintf(e.stderr, "skillcat: discover: the index is signed by key %s (not verified: pin a key with --verify-key)\n", printable(sig.KID))
		default:
			fmt.Fprintln(e.stderr, "skillcat: discover: the index is not signed")
		}
	}
	if cat != nil {
		var werr error
		if *format == "json" {
			werr = writeSkillsJSON(e.stdout, cat.Skills)
		} else {
			werr = writeSkillsTable(e.stdout, cat.Skills)
		}
		if werr != nil {
			fmt.Fprintf(e.stderr, "skillcat: discover: write output: %v\n", werr)
			return exitInternal
		}
		for _, v := range cat.Warnings {
			fmt.Fprintf(e.stderr, "skillcat: discover: %s\n", printable(v.Error()))
		}
		for _, s := range cat.Skills {
			for _, v := range s.Warnings {
				fmt.Fprintf(e.stderr, "skillcat: discover: %s: %s\n", s.Entry.ID, printable(v.Error()))
			}
		}
	}
	if err == nil {
		return exitOK
	}
	var de *client.DiscoveryError
	stopped := 0
	if errors.As(err, &de) {
		// The descriptors never fetched are counted, not listed.
		var rest []client.Problem
		var why error
		for _, p := range de.Problems {
			if p.ID != "" && errors.Is(p.Err, client.ErrStopped) {
				stopped++
				why = p.Err
				continue
			}
			rest = append(rest, p)
		}
		if stopped > 0 {
			err = &client.DiscoveryError{IndexURL: de.IndexURL, Problems: rest}
			defer fmt.Fprintf(e.stderr, "skillcat: discover: %s %s\n", plural(stopped, "descriptor"), printable(why.Error()))
		}
	}
	if msg := err.Error(); msg != "" {
		for _, line := range strings.Split(msg, "\n") {
			fmt.Fprintf(e.stderr, "skillcat: discover: %s\n", printable(line))
		}
	}
	if cat != nil && errors.As(err, &de) {
		fmt.Fprintf(e.stderr, "skillcat: discover: %d of %d skills failed verification\n", len(de.Problems), len(de.Problems)+len(cat.Skills))
	}
	return exitInvalid
}

// writeSkillsTable prints an aligned table of the skills.
func writeSkillsTable(w io.Writer, skills []client.VerifiedSkill) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTYPE\tACCESS\tVERSION\tNAME")
	for _, s := range skills {
		e := s.Entry
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.ID, e.CapabilityType, e.Access, printable(e.Version), printable(e.Name))
	}
	return tw.Flush()
}

// writeSkillsJSON prints the skills as a JSON array of index entries whose
// descriptor_url is absolute.
func writeSkillsJSON(w io.Writer, skills []client.VerifiedSkill) error {
	out := make([]discoveredSkill, 0, len(skills))
	for _, s := range skills {
		out = append(out, discovered(s))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// printable replaces control characters, tabs included, and the
// bidirectional controls (U+202E and the like, which would show a name or
// a message reversed) in text from a remote catalog so it can neither
// break the table nor drive or mislead the terminal.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029' {
			return '\uFFFD'
		}
		return r
	}, s)
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progress shows on a terminal how many descriptors are done, on one line
// rewritten at most ten times a second.
type progress struct {
	w     io.Writer
	last  time.Time
	shown bool
}

func (p *progress) report(done, total int) {
	if now := time.Now(); done == total || now.Sub(p.last) >= 100*time.Millisecond {
		p.last = now
		p.shown = true
		fmt.Fprintf(p.w, "\r\x1b[Kskillcat: discover: %d of %d descriptors checked", done, total)
	}
}

func (p *progress) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
