package build

import (
	"bufio"
	"fmt"
	"os"
	"sync"
)

// spill holds bytes a build makes early and needs again later, in an
// unnamed file on the output's file system (tmpFile), so that a large
// catalog's share of them (the Agent Skills instructions, ~330 MB at
// 100,000 skills) is not held in memory. Nothing can open it by a name,
// and the system frees it when it is closed or the process ends, however
// the build ends; on a file system without O_TMPFILE, a build killed
// between making the file and removing its name leaves it in the new
// tree, which the next build removes. Pieces are added from any goroutine
// (add), then read back once every piece is in (read, after done).
type spill struct {
	mu  sync.Mutex
	f   *os.File
	w   *bufio.Writer
	n   int64 // bytes added
	err error
}

// openSpill starts a spill beside dir, a folder of the new tree.
func openSpill(dir string) (*spill, error) {
	f, err := tmpFile(dir)
	if err != nil {
		return nil, fmt.Errorf("spill file: %w", err)
	}
	return &spill{f: f, w: bufio.NewWriterSize(f, 256<<10)}, nil
}

// add appends b and returns where it lies.
func (s *spill) add(b []byte) (span, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return span{}, s.err
	}
	sp := span{s.n, int64(len(b))}
	if _, err := s.w.Write(b); err != nil {
		s.err = fmt.Errorf("spill file: %w", err)
		return span{}, s.err
	}
	s.n += sp.n
	return sp, nil
}

// done writes out what add buffered; read may be called after it.
func (s *spill) done() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		if err := s.w.Flush(); err != nil {
			s.err = fmt.Errorf("spill file: %w", err)
		}
	}
	return s.err
}

// read returns a copy of the bytes at sp.
func (s *spill) read(sp span) ([]byte, error) {
	b := make([]byte, sp.n)
	if _, err := s.f.ReadAt(b, sp.off); err != nil {
		return nil, fmt.Errorf("spill file: %w", err)
	}
	return b, nil
}

// close frees the file.
func (s *spill) close() {
	if s != nil {
		s.f.Close()
		if name := s.f.Name(); name != "" {
			os.Remove(name) // where unnamedTemp could not remove it
		}
	}
}

// unnamedTemp opens a new file in dir (the system's temporary folder when
// dir is empty) and removes its name at once, so that nothing else can
// open it and nothing of it outlives the process. A build killed in
// between leaves it in dir: in the new tree, which the next build removes
// whole. Where an open file cannot lose its name (Windows), the name
// stays until close: dir is then empty.
func unnamedTemp(dir string) (*os.File, error) {
	f, err := os.CreateTemp(dir, ".skillcat-spill-*")
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil && dir != "" {
		// Named in the new tree, it would be published with the site.
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}
