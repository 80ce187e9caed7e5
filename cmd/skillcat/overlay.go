package main

import (
	"bytes"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"time"
)

// overlayFS is a directory tree (base, which may be nil) with files laid
// over it: what the content directory would be after an import, for the
// build to validate before anything is written.
type overlayFS struct {
	base  fs.FS
	files map[string][]byte // slash-separated paths
}

func (o overlayFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if data, ok := o.files[name]; ok {
		return &memFile{name: path.Base(name), Reader: bytes.NewReader(data), size: int64(len(data))}, nil
	}
	if o.isDir(name) {
		return &memDir{fsys: o, name: name}, nil
	}
	if o.base == nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return o.base.Open(name)
}

// isDir reports whether name is a directory that only laid-over files
// make, or one that exists in base too.
func (o overlayFS) isDir(name string) bool {
	if name == "." {
		return true
	}
	for p := range o.files {
		if strings.HasPrefix(p, name+"/") {
			return true
		}
	}
	return false
}

func (o overlayFS) Stat(name string) (fs.FileInfo, error) {
	f, err := o.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Stat()
}

func (o overlayFS) ReadDir(name string) ([]fs.DirEntry, error) {
	seen := map[string]fs.DirEntry{}
	var baseErr error
	if o.base != nil {
		entries, err := fs.ReadDir(o.base, name)
		baseErr = err
		for _, e := range entries {
			seen[e.Name()] = e
		}
	} else {
		baseErr = fs.ErrNotExist
	}
	prefix := name + "/"
	if name == "." {
		prefix = ""
	}
	found := false
	for p, data := range o.files {
		rest, ok := strings.CutPrefix(p, prefix)
		if !ok {
			continue
		}
		found = true
		if first, _, deeper := strings.Cut(rest, "/"); deeper {
			if _, ok := seen[first]; !ok {
				seen[first] = fs.FileInfoToDirEntry(memInfo{name: first, dir: true})
			}
		} else {
			seen[rest] = fs.FileInfoToDirEntry(memInfo{name: rest, size: int64(len(data))})
		}
	}
	if baseErr != nil && !found && name != "." {
		return nil, baseErr
	}
	out := make([]fs.DirEntry, 0, len(seen))
	for _, e := range seen {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

// ReadLink passes a symbolic link of base through, so the build follows
// links inside the content directory as it does without an overlay.
func (o overlayFS) ReadLink(name string) (string, error) {
	if rl, ok := o.base.(fs.ReadLinkFS); ok && o.files[name] == nil {
		return rl.ReadLink(name)
	}
	return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
}

// Lstat is Stat, except for a link in base.
func (o overlayFS) Lstat(name string) (fs.FileInfo, error) {
	if rl, ok := o.base.(fs.ReadLinkFS); ok && o.files[name] == nil && !o.isDir(name) {
		return rl.Lstat(name)
	}
	return o.Stat(name)
}

type memInfo struct {
	name string
	size int64
	dir  bool
}

func (i memInfo) Name() string { return i.name }
func (i memInfo) Size() int64  { return i.size }
func (i memInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return i.dir }
func (i memInfo) Sys() any           { return nil }

type memFile struct {
	name string
	*bytes.Reader
	size int64
}

func (f *memFile) Stat() (fs.FileInfo, error) { return memInfo{name: f.name, size: f.size}, nil }
func (f *memFile) Close() error               { return nil }

type memDir struct {
	fsys overlayFS
	name string
	read bool
}

func (d *memDir) Stat() (fs.FileInfo, error) { return memInfo{name: path.Base(d.name), dir: true}, nil }
func (d *memDir) Read([]byte) (int, error)   { return 0, io.EOF }
func (d *memDir) Close() error               { return nil }
func (d *memDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if d.read {
		return nil, nil
	}
	d.read = true
	return d.fsys.ReadDir(d.name)
}
