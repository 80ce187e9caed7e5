//go:build unix

// Command floor measures the least time any generator needs to produce a given
// output tree: it reads every file under -src into memory once (not timed),
// then writes the same folders and files, with the same bytes, into a fresh
// -dst and reports the wall, user and system seconds of that writing alone,
// mkdirs included.
//
// Usage:
//
//	go run ./scripts/floor -src public -dst /dev/shm/floor-out [-j 2]
//
// It prints one line, "WALL USER SYS FILES BYTES", for scripts/compare-hugo.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"
)

type file struct {
	path string // relative to the tree's root
	data []byte
	mode fs.FileMode
}

func main() {
	src := flag.String("src", "", "output tree to copy (required)")
	dst := flag.String("dst", "", "fresh directory to write; must not exist (required)")
	jobs := flag.Int("j", runtime.GOMAXPROCS(0), "files written in parallel")
	flag.Parse()
	if *src == "" || *dst == "" || *jobs < 1 {
		flag.Usage()
		os.Exit(2)
	}
	if _, err := os.Lstat(*dst); err == nil {
		fatal(fmt.Errorf("%s already exists", *dst))
	}
	dirs, files, size, err := load(*src)
	if err != nil {
		fatal(err)
	}
	runtime.GC()

	u0, s0 := cpu()
	start := time.Now()
	if err := write(*dst, dirs, files, *jobs); err != nil {
		fatal(err)
	}
	wall := time.Since(start)
	u1, s1 := cpu()
	fmt.Printf("%.3f %.3f %.3f %d %d\n", wall.Seconds(), (u1 - u0).Seconds(), (s1 - s0).Seconds(), len(files), size)
}

// load reads the tree under root: its folders, parents before children, and
// its files.
func load(root string) (dirs []string, files []file, size int64, err error) {
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			if rel != "." {
				dirs = append(dirs, rel)
			}
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			files = append(files, file{rel, b, info.Mode().Perm()})
			size += int64(len(b))
		}
		return nil
	})
	if err != nil {
		return nil, nil, 0, fmt.Errorf("read tree: %w", err)
	}
	return dirs, files, size, nil
}

// write creates root and every folder in order, then writes the files with
// jobs workers.
func write(root string, dirs []string, files []file, jobs int) error {
	if err := os.Mkdir(root, 0o755); err != nil {
		return fmt.Errorf("write tree: %w", err)
	}
	for _, d := range dirs {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			return fmt.Errorf("write tree: %w", err)
		}
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs error
		next = make(chan *file, 256)
	)
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range next {
				if err := os.WriteFile(filepath.Join(root, f.path), f.data, f.mode); err != nil {
					mu.Lock()
					errs = errors.Join(errs, err)
					mu.Unlock()
				}
			}
		}()
	}
	for i := range files {
		next <- &files[i]
	}
	close(next)
	wg.Wait()
	if errs != nil {
		return fmt.Errorf("write tree: %w", errs)
	}
	return nil
}

// cpu returns the user and system time this process has used so far.
func cpu() (user, sys time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

func fatal(err error) {
	fmt.Fprintf(os.Stderr, "floor: %v\n", err)
	os.Exit(1)
}
