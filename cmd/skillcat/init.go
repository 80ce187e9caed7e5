package main

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	skillcat "github.com/skillcat/skillcat"
)

func init() {
	commands["init"] = command{summary: "start a new catalog repository: content, CI workflow, Netlify settings, README", run: runInit}
}

// initFiles are the files init writes, with placeholders such as
// @SKILLCAT_VERSION@. A leading "gitignore" or "github/" stands for the
// dotted name, which would mean something to this repository's own git and
// GitHub.
//
//go:embed all:initfiles
var initFiles embed.FS

// skillcatModule is the package path that go install builds skillcat from.
const skillcatModule = "github.com/skillcat/skillcat/cmd/skillcat"

// minGoVersion is the Go release the recipes set up; it is go.mod's.
const minGoVersion = "1.26"

// exampleID is the id of the example skill init writes.
const exampleID = "example.echo"

// runInit writes a new catalog repository into DIR (default "."): the
// content folder with _index.md and one example skill, .gitignore,
// netlify.toml, the GitHub Actions workflow and a README. Every recipe
// installs the skillcat release that runs init. A folder that holds anything
// but .git is refused unless --force, which writes only the files that do
// not exist yet.
func runInit(_ context.Context, e *env, args []string) int {
	flags := newFlags(e, "init", "[DIR] [--force] [--pin VERSION] [--title TITLE]")
	force := flags.Bool("force", false, "write into a folder that is not empty; files that already exist are kept")
	pin := flags.String("pin", "", "the skillcat `version` the recipes install, such as v1.2.0; default: this binary's version")
	title := flags.String("title", "", "the catalog's `title`; derived from the folder name when empty")
	var dirs []string
	for rest := args; ; {
		if code := parseFlags(e, flags, rest); code >= 0 {
			return code
		}
		if flags.NArg() == 0 {
			break
		}
		dirs = append(dirs, flags.Arg(0))
		rest = flags.Args()[1:]
	}
	if len(dirs) > 1 {
		fmt.Fprintf(e.stderr, "skillcat init: unexpected argument %q; give one folder\n", dirs[1])
		return exitUsage
	}
	dir := "."
	if len(dirs) == 1 {
		dir = dirs[0]
	}
	version, dev := *pin, false
	if version == "" {
		version, dev = installVersion()
	}
	if version != "latest" && !validModuleVersion(version) {
		fmt.Fprintf(e.stderr, "skillcat init: --pin must be a release such as v1.2.0, or latest; got %q\n", version)
		return exitUsage
	}
	if code := checkInitDir(e, dir, *force); code >= 0 {
		return code
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		fmt.Fprintf(e.stderr, "skillcat init: %v\n", err)
		return exitInternal
	}
	if *title == "" {
		*title = nameFromID(strings.ToLower(filepath.Base(abs)))
		if strings.TrimSpace(*title) == "" {
			*title = "My Skills"
		}
	}
	exampleFile := "content/" + exampleID + ".md"
	replacer := strings.NewReplacer(
		"@SKILLCAT_VERSION@", version,
		"@SKILLCAT_MODULE@", skillcatModule,
		"@GO_VERSION@", minGoVersion,
		"@TITLE@", strings.ReplaceAll(*title, `"`, `'`),
		"@EXAMPLE_FILE@", exampleFile,
	)
	files := map[string][]byte{
		exampleFile: newSkill(exampleID, "Echo", skillcat.Plugin, skillcat.Public).markdown(),
	}
	err = fs.WalkDir(initFiles, "initfiles", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := initFiles.ReadFile(p)
		if err != nil {
			return err
		}
		name := strings.TrimPrefix(p, "initfiles/")
		if name == "gitignore" || strings.HasPrefix(name, "github/") {
			name = "." + name
		}
		files[name] = []byte(replacer.Replace(string(data)))
		return nil
	})
	if err != nil {
		fmt.Fprintf(e.stderr, "skillcat init: %v\n", err)
		return exitInternal
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		target := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			fmt.Fprintf(e.stderr, "skillcat init: %v\n", err)
			return exitInternal
		}
		f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			fmt.Fprintf(e.stdout, "  kept    %s (it exists)\n", path.Join(filepath.ToSlash(dir), name))
			continue
		}
		if err == nil {
			_, err = f.Write(files[name])
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "skillcat init: write %s: %v\n", target, err)
			return exitInternal
		}
		fmt.Fprintf(e.stdout, "  wrote   %s\n", path.Join(filepath.ToSlash(dir), name))
	}
	if dev {
		fmt.Fprintf(e.stderr, "skillcat init: this skillcat is a development build with no release version, so the recipes install @latest; pin a release with --pin vX.Y.Z (or edit the version in .github/workflows/catalog.yml and netlify.toml)\n")
	}
	fmt.Fprintf(e.stdout, "\nA new catalog; its recipes install skillcat %s. Next:\n", version)
	if dir != "." {
		fmt.Fprintf(e.stdout, "  cd %s\n", shellQuote(dir))
	}
	fmt.Fprintf(e.stdout, "  skillcat validate    # lists the example skill's placeholders as warnings\n  skillcat serve       # preview on http://127.0.0.1:1313/\nEdit %s into your first skill (or delete it), then commit and push.\n", exampleFile)
	return exitOK
}

// checkInitDir refuses a DIR that is a file, or a folder that holds
// anything but .git, unless force.
func checkInitDir(e *env, dir string, force bool) int {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return -1
	case err != nil:
		fmt.Fprintf(e.stderr, "skillcat init: %q is not a folder skillcat can write into: %v\n", dir, err)
		return exitUsage
	}
	for _, en := range entries {
		if en.Name() != ".git" && !force {
			fmt.Fprintf(e.stderr, "skillcat init: %s is not empty (it holds %s); give a new or empty folder, or --force to add the files that are missing and keep the rest\n", dir, en.Name())
			return exitUsage
		}
	}
	return -1
}

// installVersion returns the version go install should fetch to get this
// skillcat: the release set with -ldflags -X main.Version, or the module
// version go install recorded. A development build (built from a checkout,
// "(devel)") has neither, and gets "latest" with dev set.
func installVersion() (version string, dev bool) {
	if !strings.HasSuffix(Version, "-dev") && Version != "" {
		return "v" + strings.TrimPrefix(Version, "v"), false
	}
	if bi, ok := debug.ReadBuildInfo(); ok && validModuleVersion(bi.Main.Version) {
		return bi.Main.Version, false
	}
	return "latest", true
}

// validModuleVersion reports whether v is a Go module version that go
// install can fetch: "v" and a semantic version (a pseudo-version is one).
func validModuleVersion(v string) bool {
	core, ok := strings.CutPrefix(v, "v")
	if !ok {
		return false
	}
	if i := strings.IndexAny(core, "-+"); i >= 0 {
		core = core[:i]
	}
	_, err := skillcat.ParseVersion(core)
	return err == nil && !strings.ContainsAny(v, " \t\"'$`\\")
}
