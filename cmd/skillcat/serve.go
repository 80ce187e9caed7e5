package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/skillcat/skillcat/build"
	"github.com/skillcat/skillcat/preview"
)

func init() {
	commands["serve"] = command{summary: "preview the site locally, rebuilding and reloading on every change", run: runServe}
}

// Tests shorten the poll interval and keep the temporary build directory
// where they can see it.
var (
	servePoll    time.Duration // zero: preview.DefaultInterval
	serveTempDir string        // empty: os.TempDir()
)

// runServe builds the site with live reload into a private temporary
// directory (never --out, so no live-reload script can reach a deploy),
// serves it and rebuilds on every change to the content or templates until
// ctx is cancelled. A broken edit is reported on stderr in the format of
// build and, in the browser, as an error page in place of every HTML page;
// the JSON documents stay those of the last good build.
func runServe(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "serve", "[--content DIR] [--addr HOST:PORT] [--templates DIR] [--strict] [--mock]")
	content := fs.String("content", "content", "the content `directory` of skill sources, watched for changes")
	addr := fs.String("addr", "127.0.0.1:1313", "the `address` to listen on; port 0 picks a free port")
	templates := fs.String("templates", "", "a `directory` of templates and assets overriding the built-in ones, watched for changes")
	strict := fs.Bool("strict", false, "treat warnings as errors")
	mockEndpoints := fs.Bool("mock", false, "also answer invocations of every listed skill from its examples under /_mock/, and point the served descriptors there")
	if code := parseFlags(e, fs, args); code >= 0 {
		return code
	}
	bcfg, code := contentConfig(e, fs, *content, *strict)
	if code >= 0 {
		return code
	}
	cfg := preview.Config{
		Build:    bcfg,
		Watch:    []string{*content},
		Interval: servePoll,
		TempDir:  serveTempDir,
		Mock:     *mockEndpoints,
	}
	first := true
	cfg.OnBuild = func(r preview.Report) {
		reportServeBuild(e, r, first)
		first = false
	}
	if *templates != "" {
		if info, err := os.Stat(*templates); err != nil || !info.IsDir() {
			fmt.Fprintf(e.stderr, "skillcat: --templates %q: not a directory\n", *templates)
			return exitUsage
		}
		cfg.Build.Templates = os.DirFS(*templates)
		cfg.Watch = append(cfg.Watch, *templates)
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(e.stderr, "skillcat serve: cannot listen on %s: %v; pass --addr with another port, or port 0 for any free one\n", *addr, err)
		return exitUsage
	}
	srv, err := preview.New(cfg)
	if err != nil {
		ln.Close()
		fmt.Fprintln(e.stderr, "skillcat serve:", err)
		return exitInternal
	}
	rep := srv.Build(ctx)
	if ctx.Err() != nil {
		ln.Close()
		srv.Close()
		return exitOK
	}
	published := 0
	if rep.Err == nil {
		published = rep.Result.Published
	}
	fmt.Fprintf(e.stdout, "Serving %s at %s — Ctrl-C to stop\n", plural(published, "skill"), siteURL(ln.Addr()))
	if *mockEndpoints {
		fmt.Fprintf(e.stdout, "Mock endpoints at %s_mock/skills/<id>, answering from each skill's examples; the descriptors served here point there\n", siteURL(ln.Addr()))
	}
	if err := srv.Run(ctx, ln); err != nil {
		fmt.Fprintln(e.stderr, "skillcat serve:", err)
		return exitInternal
	}
	return exitOK
}

// reportServeBuild prints the outcome of one of serve's builds: problems
// to stderr in the format of build, a line per good rebuild to stdout.
// The first build's success is told by the "Serving" line instead.
func reportServeBuild(e *env, r preview.Report, first bool) {
	var invalid *build.InvalidError
	switch {
	case errors.As(r.Err, &invalid):
		printViolations(e, "text", invalid.Violations)
		fmt.Fprintf(e.stderr, "skillcat: build failed: %s, %s in %s; serving the last good build and an error page until fixed\n",
			plural(countSeverity(invalid.Violations, "error"), "error"),
			plural(countSeverity(invalid.Violations, "warning"), "warning"),
			plural(r.Result.Sources, "source"))
	case r.Err != nil:
		fmt.Fprintf(e.stderr, "skillcat: build failed: %v; serving the last good build and an error page until fixed\n", r.Err)
	default:
		printViolations(e, "text", r.Result.Warnings)
		if first {
			return
		}
		verb := "Rebuilt"
		if r.Recovered {
			verb = "Fixed, rebuilt"
		}
		fmt.Fprintf(e.stdout, "%s %s in %s: %s published\n", time.Now().Format("15:04:05"), verb,
			r.Result.Duration.Round(time.Millisecond), plural(r.Result.Published, "skill"))
	}
}

// siteURL is the URL a browser opens for a listening address: an
// unspecified host (":1313", "0.0.0.0:1313") reads as localhost.
func siteURL(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return "http://" + a.String() + "/"
	}
	if host == "" {
		host = "localhost"
	} else if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port) + "/"
}
