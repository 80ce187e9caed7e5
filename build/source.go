package build

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"reflect"
	"sort"
	"strings"
	"time"

	skillcat "github.com/skillcat/skillcat"
)

// MaxSourceSize is the largest skill source accepted, in bytes.
const MaxSourceSize = 1 << 20

// maxLinkHops bounds how many symbolic links one path may pass through.
const maxLinkHops = 40

// SourceFile is one skill source as found: its slash-separated path
// relative to the content directory, where to read it in the file system
// (the same path, unless a symbolic link led there), and its identity for
// the rebuild cache (sourceStat). Data is read when the source is parsed.
type SourceFile struct {
	Path string
	Data []byte // nil until loaded
	at   string
	stat string
}

// load reads the source's bytes, checking the size limit again.
func (f *SourceFile) load(fsys fs.FS) error {
	if f.Data != nil {
		return nil
	}
	var data []byte
	var err error
	if name, ok := onDisk(fsys, f.at); ok {
		data, err = readFile(name)
	} else {
		// Opening a FIFO blocks until a writer comes, so it is never
		// opened, even if one replaced the file since the walk.
		if info, err := fs.Stat(fsys, f.at); err == nil && !info.Mode().IsRegular() {
			return errNotRegular
		}
		data, err = fs.ReadFile(fsys, f.at)
	}
	if errors.Is(err, errNotRegular) {
		return errNotRegular
	}
	if err != nil {
		return errors.New("cannot read file: " + plainErr(err))
	}
	if len(data) > MaxSourceSize {
		return fmt.Errorf("file is over the %d-byte limit for a skill source", MaxSourceSize)
	}
	f.Data = data
	return nil
}

// onDisk returns the path os.DirFS(dir) opens for name when fsys is
// os.DirFS(dir), the content directory on disk (a value of os's string
// type dirFS, whose Open checks name as below and opens dir + "/" +
// name), and where readFile reads such a path (readsDirect): a source is
// then read by readFile, in half the system calls of fs.ReadFile.
func onDisk(fsys fs.FS, name string) (string, bool) {
	v := reflect.ValueOf(fsys)
	if !readsDirect || v.Kind() != reflect.String || v.Type().PkgPath() != "os" || v.Type().Name() != "dirFS" || v.Len() == 0 ||
		!fs.ValidPath(name) || strings.ContainsRune(name, 0) {
		return "", false
	}
	return strings.TrimSuffix(v.String(), "/") + "/" + name, true
}

// statSource is fs.Stat of name in fsys (links followed): on disk
// (onDisk), one stat call (statFile).
func statSource(fsys fs.FS, name string) (fs.FileInfo, error) {
	if p, ok := onDisk(fsys, name); ok {
		return statFile(p)
	}
	return fs.Stat(fsys, name)
}

// The source rule, the one place that says what counts as a skill source
// (readSources walks by it; `skillcat new` finds ids through SourceIDs and
// `skillcat serve` watches by Ignored): a regular file, or a link to one
// inside the content directory, whose name ends in .json or .md, with no
// name on its path beginning with "_" or ".".

// isSourceName reports whether a file name is a skill source by its
// extension.
func isSourceName(name string) bool {
	return strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".md")
}

// isSourcePath reports whether a slash-separated path inside the content
// directory names a source by the rule above (its type aside): a source's
// name, and no name on the way that is skipped.
func isSourcePath(rel string) bool {
	parts := strings.Split(rel, "/")
	for _, name := range parts {
		if name == "." || name == ".." || skipped(name) {
			return false
		}
	}
	return isSourceName(parts[len(parts)-1])
}

// skipped reports whether a file or folder name is left out of the sources,
// with its whole subtree: names beginning with "_" (drafts, and SiteFile,
// which is read as the site's settings) or ignored ones.
func skipped(name string) bool {
	return strings.HasPrefix(name, "_") || Ignored(name)
}

// Ignored reports whether a file or folder name is outside the build
// altogether, with its whole subtree: names beginning with "." (version
// control, editor files). The build reads nothing of them, so a watcher
// need not look at them either.
func Ignored(name string) bool { return strings.HasPrefix(name, ".") }

// readSources walks fsys and returns every skill source in path order, and a
// violation for each that cannot be read: too large, a symbolic link leading
// outside fsys, a link cycle. display turns a source path into the name
// shown in messages. skip, when not "", is a folder left out (the output
// directory, when it lies inside the content directory).
func readSources(fsys fs.FS, display func(string) string, skip string) ([]SourceFile, skillcat.Violations) {
	r := reader{fsys: fsys, display: display, visited: map[string]bool{}, skip: skip}
	r.walk(".", 0)
	r.readAll()
	sort.Slice(r.files, func(i, j int) bool { return r.files[i].Path < r.files[j].Path })
	r.vs.Sort()
	return r.files, r.vs
}

type reader struct {
	fsys    fs.FS
	display func(string) string
	files   []SourceFile
	vs      skillcat.Violations
	visited map[string]bool // directories entered, by resolved path
	skip    string          // a folder not to enter, or ""
	found   []foundSource   // sources the walk found, looked at by readAll
}

// foundSource is a source the walk found: its path and where it is read
// (they differ when it was reached through a link).
type foundSource struct{ logical, at string }

func (r *reader) fail(p, reason string) {
	r.vs = append(r.vs, skillcat.Violation{
		File: r.display(p), Line: 1, Column: 1, Field: skillcat.FileField,
		Reason: reason, Severity: skillcat.SeverityError,
	})
}

// walk reads the directory dir (whose resolved location is real) and its
// subtree.
func (r *reader) walk(dir string, depth int) {
	r.walkAs(dir, dir, depth)
}

// walkAs reads the directory at real, reporting its entries under the
// logical path dir (they differ when dir was reached through a link).
func (r *reader) walkAs(dir, real string, depth int) {
	if r.visited[real] || depth > 64 {
		return
	}
	r.visited[real] = true
	entries, err := fs.ReadDir(r.fsys, real)
	if err != nil {
		r.fail(dir, "cannot read directory: "+plainErr(err))
		return
	}
	for _, e := range entries {
		name := e.Name()
		if skipped(name) {
			continue
		}
		logical, at := path.Join(dir, name), path.Join(real, name)
		if r.skip != "" && (logical == r.skip || at == r.skip) {
			continue
		}
		typ := e.Type()
		if typ&fs.ModeSymlink != 0 {
			target, isDir, err := r.resolve(at)
			if err != nil {
				if isSourceName(name) || errors.Is(err, errOutside) {
					r.fail(logical, err.Error())
				}
				continue
			}
			if isDir {
				r.walkAs(logical, target, depth+1)
			} else if isSourceName(name) {
				r.read(logical, target)
			}
			continue
		}
		switch {
		case e.IsDir() && (routes{}).isBuiltSite(r.fsys, at):
			// A site skillcat built (an old --out copied in) holds
			// published descriptors, never sources.
			r.vs = append(r.vs, skillcat.Violation{File: r.display(logical), Field: skillcat.FileField, Severity: skillcat.SeverityWarning,
				Reason: "folder holds a site skillcat built (" + (routes{}).index() + "), so none of its files is read as a source; move it out of the content folder, or rename it to start with _ to keep it"})
		case e.IsDir():
			r.walkAs(logical, at, depth+1)
		case isSourceName(name):
			r.read(logical, at) // a FIFO or socket is reported, never opened
		}
	}
}

var errOutside = errors.New("symbolic link leads outside the content directory")

// resolve follows the symbolic link at p and returns where it leads inside
// fsys, resolving every link on the way component by component (a target
// such as "docs/x.json" where docs is itself a link is followed through
// docs), so no path through a link can step outside. p's folder was reached
// by the walk and holds no link. A target outside fsys (an absolute one, or
// one climbing above the root) is an error wrapping errOutside.
func (r *reader) resolve(p string) (target string, isDir bool, err error) {
	rl, ok := r.fsys.(fs.ReadLinkFS)
	if !ok {
		return "", false, errors.New("cannot follow symbolic links in this file system")
	}
	cur := path.Dir(p)             // resolved so far: a folder with no link in its path
	rest := []string{path.Base(p)} // components still to resolve
	dest := ""                     // the last link's target, for messages
	for hops := 0; len(rest) > 0; {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if cur == "." {
				return "", false, fmt.Errorf("%w (it points to %q)", errOutside, dest)
			}
			cur = path.Dir(cur)
			continue
		}
		next := path.Join(cur, c)
		info, err := rl.Lstat(next)
		if err != nil {
			return "", false, fmt.Errorf("symbolic link is broken: %q does not exist", dest)
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > maxLinkHops {
			return "", false, errors.New("too many levels of symbolic links")
		}
		if dest, err = rl.ReadLink(next); err != nil {
			return "", false, fmt.Errorf("cannot read symbolic link: %s", plainErr(err))
		}
		if path.IsAbs(dest) || strings.HasPrefix(dest, `\`) || (len(dest) > 1 && dest[1] == ':') {
			return "", false, fmt.Errorf("%w (it points to %q)", errOutside, dest)
		}
		rest = append(strings.Split(dest, "/"), rest...)
	}
	info, err := fs.Stat(r.fsys, cur)
	if err != nil {
		return "", false, fmt.Errorf("cannot read symbolic link target: %s", plainErr(err))
	}
	return cur, info.IsDir(), nil
}

var errNotRegular = errors.New("is not a regular file (a FIFO, socket or device, or a link to one); only regular files are read as sources")

// read notes a source file the walk found, for readAll, which checks its
// type and size. Only regular files are read: a FIFO would block the build
// for ever.
func (r *reader) read(logical, at string) {
	r.found = append(r.found, foundSource{logical, at})
}

// readAll looks at every source the walk found, a stat each, on every
// core: a file that is not a regular one, or is over MaxSourceSize, is a
// violation.
func (r *reader) readAll() {
	files := make([]SourceFile, len(r.found))
	fails := make([]string, len(r.found))
	onWorkers(len(r.found), func(i int) error {
		f := r.found[i]
		info, err := statSource(r.fsys, f.at)
		switch {
		case err != nil:
			fails[i] = "cannot read file: " + plainErr(err)
		case !info.Mode().IsRegular():
			fails[i] = errNotRegular.Error()
		case info.Size() > MaxSourceSize:
			fails[i] = fmt.Sprintf("file is %d bytes, over the %d-byte limit for a skill source", info.Size(), MaxSourceSize)
		default:
			files[i] = SourceFile{Path: f.logical, at: f.at, stat: sourceStat(info, time.Now())}
		}
		return nil
	})
	for i, f := range r.found {
		if fails[i] != "" {
			r.fail(f.logical, fails[i])
		} else {
			r.files = append(r.files, files[i])
		}
	}
}

// plainErr strips the operation and path that fs errors repeat.
func plainErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
