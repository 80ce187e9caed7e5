package build

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"
)

// write writes the files and the published SQLite catalog into a fresh
// directory beside cfg.Out and then swaps it in for the old output, so a
// failed or interrupted build leaves the previous output as it was. It
// returns how many files it wrote.
func write(ctx context.Context, cfg Config, cat *catalog, files []File, res *Result) (int, error) {
	mark := time.Now()
	out := filepath.Clean(cfg.Out)
	parent := filepath.Dir(out)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return 0, err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(out)+".new-")
	if err != nil {
		return 0, err
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return 0, err
	}
	if err := writeFiles(ctx, tmp, files); err != nil {
		return 0, err
	}
	res.timed("write files", &mark)
	if err := cat.db.Export(ctx, filepath.Join(tmp, "catalog.sqlite")); err != nil {
		return 0, fmt.Errorf("export catalog.sqlite: %w", err)
	}
	res.timed("export catalog.sqlite", &mark)
	n := len(files) + 1
	if !cfg.Time.IsZero() {
		if err := stampTimes(tmp, cfg.Time); err != nil {
			return 0, err
		}
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := swapDir(tmp, out); err != nil {
		return 0, err
	}
	res.timed("swap", &mark)
	ok = true
	return n, nil
}

// writeFiles writes files under dir, creating folders, in parallel.
func writeFiles(ctx context.Context, dir string, files []File) error {
	dirs := map[string]bool{}
	for _, f := range files {
		dirs[filepath.Dir(filepath.Join(dir, filepath.FromSlash(f.Path)))] = true
	}
	for d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	workers := runtime.GOMAXPROCS(0) * 2
	next := make(chan int, len(files))
	for i := range files {
		next <- i
	}
	close(next)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := 0; w < min(workers, len(files)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if ctx.Err() != nil {
					return
				}
				f := files[i]
				if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(f.Path)), f.Data, 0o644); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	return ctx.Err()
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
