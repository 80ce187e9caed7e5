package main

import (
	"context"
	"fmt"
	"strings"

	skillcat "github.com/skillcat/skillcat"
)

func init() {
	commands["version"] = command{summary: "print the skillcat and protocol versions", run: runVersion}
}

func runVersion(_ context.Context, e *env, args []string) int {
	fs := newFlags(e, "version", "")
	if code := parseFlags(e, fs, args); code >= 0 {
		return code
	}
	v := Version
	if iv, dev := installVersion(); !dev {
		v = strings.TrimPrefix(iv, "v")
	}
	fmt.Fprintf(e.stdout, "skillcat %s (Skill Sharing Protocol %s)\n", v, skillcat.CurrentVersion)
	return exitOK
}
