package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/skillcat/skillcat/build"
)

func init() {
	commands["validate"] = command{summary: "check every skill source and report all problems", run: runValidate}
}

func runValidate(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "validate", "[--content DIR] [--format text|json|github] [--strict] [--quiet]")
	content := fs.String("content", "content", "the content `directory` of skill sources")
	format := fs.String("format", "text", "output `format`: text (stderr), json or github (stdout)")
	strict := fs.Bool("strict", false, "treat warnings as errors")
	quiet := fs.Bool("quiet", false, "print nothing but problems")
	if code := parseFlags(e, fs, args); code >= 0 {
		return code
	}
	if *format != "text" && *format != "json" && *format != "github" {
		fmt.Fprintf(e.stderr, "skillcat validate: --format must be text, json or github; got %q\n", *format)
		return exitUsage
	}
	cfg, code := contentConfig(e, fs, *content, *strict)
	if code >= 0 {
		return code
	}
	res, err := build.Validate(ctx, cfg)
	var invalid *build.InvalidError
	switch {
	case errors.As(err, &invalid):
		printViolations(e, *format, invalid.Violations)
		if *format == "text" {
			fmt.Fprintf(e.stderr, "skillcat: %s, %s in %s\n",
				plural(countSeverity(invalid.Violations, "error"), "error"),
				plural(countSeverity(invalid.Violations, "warning"), "warning"), plural(res.Sources, "source"))
		}
		return exitInvalid
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(e.stderr, "skillcat: validate interrupted")
		return exitInternal
	case err != nil:
		fmt.Fprintf(e.stderr, "skillcat: validate: %v\n", err)
		return exitInternal
	}
	printViolations(e, *format, logWarnings(e, res))
	if !*quiet && *format == "text" {
		sources, private := plural(res.Sources, "source"), ", "+plural(res.Private, "skill")+" private"
		if publicLog(e) {
			sources, private = "all sources", "" // a public CI log says nothing of private skills
		}
		fmt.Fprintf(e.stderr, "%s valid: %s listed%s (%s)\n", sources,
			plural(res.Published, "skill"), private, plural(len(res.Warnings), "warning"))
	}
	return exitOK
}
