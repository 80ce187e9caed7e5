package build

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/skillcat/skillcat/store"
)

// output receives the files of a build and puts them in place, in one of
// two ways; both leave the previous output as it was on any failure:
//
//   - cold: every file goes into a fresh directory beside cfg.Out, which is
//     then swapped in whole (atomically where the system can exchange two
//     names);
//   - incremental, when the cache describes the previous output and the
//     directory still matches it: a file whose bytes are unchanged is not
//     written at all, a changed one is staged beside cfg.Out, and only once
//     everything is staged are the staged files renamed into place and the
//     files no longer produced removed, a step that is not interrupted.
type output struct {
	cfg     Config
	out     string
	dir     string                        // fresh or staging directory
	prev    map[string]store.CachedOutput // incremental only
	mu      sync.Mutex
	records map[string]store.CachedOutput
	staged  []string
	dirs    sync.Map
	written int
	done    bool
	// catalogKey is what catalog.sqlite holds (store.ListedKey), set by
	// render from the listing it already read.
	catalogKey string
}

// newOutput prepares a cold or an incremental write of cfg.Out.
func newOutput(cfg Config, prev map[string]store.CachedOutput) (*output, error) {
	out := filepath.Clean(cfg.Out)
	parent := filepath.Dir(out)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	removeStale(parent, filepath.Base(out))
	o := &output{cfg: cfg, out: out, records: map[string]store.CachedOutput{}}
	if len(prev) > 0 && matches(out, prev) {
		o.prev = prev
	}
	kind := ".new-"
	if o.prev != nil {
		kind = ".stage-"
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(out)+kind)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	o.dir = tmp
	return o, nil
}

// removeStale removes temporary directories that a killed build left
// beside the output.
func removeStale(parent, base string) {
	for _, kind := range []string{".new-", ".stage-"} {
		old, _ := filepath.Glob(filepath.Join(parent, "."+base+kind+"*"))
		for _, d := range old {
			if info, err := os.Stat(d); err == nil && time.Since(info.ModTime()) > time.Hour {
				os.RemoveAll(d)
			}
		}
	}
}

// matches reports whether the directory out holds exactly the files the
// cache recorded, with their sizes and times: nobody touched it since.
func matches(out string, prev map[string]store.CachedOutput) bool {
	n := 0
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(out, p)
		rec, ok := prev[filepath.ToSlash(rel)]
		info, ierr := d.Info()
		if !ok || ierr != nil || !info.Mode().IsRegular() || info.Size() != rec.Size || info.ModTime().UnixNano() != rec.ModTime {
			return errors.New("changed")
		}
		n++
		return nil
	})
	return err == nil && n == len(prev)
}

// fresh reports whether the previous build wrote path from the same key,
// so it need not be made again; it then keeps that file.
func (o *output) fresh(path, key string) bool {
	if o.prev == nil || key == "" {
		return false
	}
	rec, ok := o.prev[path]
	if !ok || rec.Key != key {
		return false
	}
	o.mu.Lock()
	o.records[path] = rec
	o.mu.Unlock()
	return true
}

// write puts one file of the output in place: skipped when its bytes are
// what the previous build wrote there, written otherwise.
func (o *output) write(path string, data []byte, key string) error {
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	rec := store.CachedOutput{Path: path, Key: key, Hash: hash, Size: int64(len(data))}
	if old, ok := o.prev[path]; ok && old.Hash == hash {
		rec.ModTime = old.ModTime
		o.mu.Lock()
		o.records[path] = rec
		o.mu.Unlock()
		return nil
	}
	full := filepath.Join(o.dir, filepath.FromSlash(path))
	if err := o.mkdir(filepath.Dir(full)); err != nil {
		return err
	}
	if err := os.WriteFile(full, data, 0o644); err != nil {
		return err
	}
	o.mu.Lock()
	o.records[path] = rec
	o.staged = append(o.staged, path)
	o.written++
	o.mu.Unlock()
	return nil
}

func (o *output) mkdir(dir string) error {
	if _, ok := o.dirs.Load(dir); ok {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	o.dirs.Store(dir, true)
	return nil
}

// exportCatalog writes catalog.sqlite unless the listed rows it holds are
// those of the previous build (key).
func (o *output) exportCatalog(ctx context.Context, cat *catalog, key string) error {
	name := routes{}.catalogDB()
	if o.fresh(name, key) {
		return nil
	}
	full := filepath.Join(o.dir, name)
	if err := cat.db.Export(ctx, full); err != nil {
		return fmt.Errorf("export %s: %w", name, err)
	}
	f, err := os.Open(full)
	if err != nil {
		return err
	}
	h := sha256.New()
	size, err := io.Copy(h, f)
	f.Close()
	if err != nil {
		return err
	}
	rec := store.CachedOutput{Path: name, Key: key, Hash: hex.EncodeToString(h.Sum(nil)), Size: size}
	o.mu.Lock()
	defer o.mu.Unlock()
	if old, ok := o.prev[name]; ok && old.Hash == rec.Hash {
		rec.ModTime = old.ModTime
		o.records[name] = rec
		return os.Remove(full)
	}
	o.records[name] = rec
	o.staged = append(o.staged, name)
	o.written++
	return nil
}

// finish exports catalog.sqlite and puts the output in place.
func (o *output) finish(ctx context.Context, cat *catalog) error {
	if err := o.exportCatalog(ctx, cat, o.catalogKey); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if o.prev == nil {
		if !o.cfg.Time.IsZero() {
			if err := stampTimes(o.dir, o.cfg.Time); err != nil {
				return err
			}
		}
		if err := swapDir(o.dir, o.out); err != nil {
			return err
		}
	} else if err := o.commit(); err != nil {
		return err
	}
	o.done = true
	return o.stat()
}

// commit moves the staged files into the output and removes the files the
// build no longer makes. It does not stop for a cancelled context: once
// begun, the output must not be left half old and half new.
func (o *output) commit() error {
	sort.Strings(o.staged)
	for _, p := range o.staged {
		from := filepath.Join(o.dir, filepath.FromSlash(p))
		to := filepath.Join(o.out, filepath.FromSlash(p))
		if !o.cfg.Time.IsZero() {
			if err := os.Chtimes(from, o.cfg.Time, o.cfg.Time); err != nil {
				return err
			}
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		if err := os.Rename(from, to); err != nil {
			return err
		}
	}
	var gone []string
	for p := range o.prev {
		if _, ok := o.records[p]; !ok {
			gone = append(gone, p)
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(gone)))
	defer func() {
		if !o.cfg.Time.IsZero() {
			stampTimes(o.out, o.cfg.Time) // new folders too, as a cold build stamps them
		}
	}()
	for _, p := range gone {
		full := filepath.Join(o.out, filepath.FromSlash(p))
		if err := os.Remove(full); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		// Remove folders left empty (a withdrawn skill's page folder).
		for d := filepath.Dir(full); d != o.out && strings.HasPrefix(d, o.out); d = filepath.Dir(d) {
			if os.Remove(d) != nil {
				break
			}
		}
	}
	return os.RemoveAll(o.dir)
}

// stat records the size and time of every written file, so the next build
// can tell that the output was left alone.
func (o *output) stat() error {
	for _, p := range o.staged {
		info, err := os.Stat(filepath.Join(o.out, filepath.FromSlash(p)))
		if err != nil {
			return err
		}
		rec := o.records[p]
		rec.ModTime = info.ModTime().UnixNano()
		o.records[p] = rec
	}
	return nil
}

// abandon removes the temporary directory of a build that did not finish.
func (o *output) abandon() {
	if !o.done {
		os.RemoveAll(o.dir)
	}
}

// stampTimes sets every file's and folder's modification time to t, so an
// archive of the output is reproducible too.
func stampTimes(dir string, t time.Time) error {
	return filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, t, t)
	})
}

// swapDir puts the directory tmp in place of out: atomically where the
// system can exchange two names, otherwise by moving out aside first. The
// old output is removed afterwards.
func swapDir(tmp, out string) error {
	info, err := os.Lstat(out)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return os.Rename(tmp, out)
	case err != nil:
		return err
	case !info.IsDir():
		return fmt.Errorf("%s exists and is not a directory", out)
	}
	if err := exchange(tmp, out); err == nil {
		return os.RemoveAll(tmp) // tmp now holds the old output
	}
	old := tmp + ".old"
	if err := os.Rename(out, old); err != nil {
		return err
	}
	if err := os.Rename(tmp, out); err != nil {
		_ = os.Rename(old, out)
		return err
	}
	return os.RemoveAll(old)
}
