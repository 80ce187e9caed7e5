package build

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/skillcat/skillcat/store"
)

// output receives the files of a build and puts them in place. Every
// build, cold or incremental, makes a complete new tree of the site in a
// directory beside the output (".public.new-*"), then exchanges it with the
// output in one step (renameat2 RENAME_EXCHANGE, or a rename when there is
// no output yet) and removes the old tree. A reader, or a build killed at
// any instant, sees the old site or the new one, never a mix.
//
// An incremental build (the cache describes the previous output) does not
// make again what it can take from the previous output: a file whose key
// or bytes are those the previous build recorded, and which is still the
// file that build left (same device, inode, change time and size, which no
// editor, touch or restore can keep), is hard-linked into the new tree, or
// copied where links are impossible. Only changed files are written.
//
// When the output cannot be exchanged (it is a mount point, such as a
// container volume or a tmpfs, or the system has no RENAME_EXCHANGE), the
// new tree is made inside the output (".skillcat-new-*") or beside it, and
// its files are moved into the output one by one, each by a rename, in an
// order that keeps the index consistent: every other file first, then the
// listings (type indexes, search.json, the home and type pages, sitemap,
// catalog.sqlite), the Well-Known index last, and only then are files no
// longer produced removed. A reader then sees, file by file, old or new
// whole files, and every descriptor the index it reads lists is present
// (its digest may be the new one while the index is still the old one).
//
// The new tree's directory is locked (flock) while its build runs; a build
// removes the unlocked ones, which killed builds left, before it starts.
type output struct {
	cfg      Config
	out      string                        // the output directory
	dir      string                        // the new tree
	lock     *os.File                      // held on dir while the build runs
	inPlace  bool                          // the tree is moved into out file by file
	prev     map[string]store.CachedOutput // the previous build's files, or nil
	live     int                           // with prev, out open for the lookups of its files (liveID); -1 when not
	mu       sync.Mutex
	records  records    // every file of the new tree
	dirs     sync.Map   // made from the spare: the folders made or kept
	mkdirMu  sync.Mutex // made from the spare: one folder made at a time
	made     pathList   // made from scratch, when cfg.Time is set: the folders made
	sharedMu sync.Mutex
	shared   pathIndex // made from scratch: folders found to exist, each of more than one file
	written  int
	done     bool
	track    bool // the identity of each file is noted for the next build (a rebuild cache)
	modeOnce sync.Once
	mode     uint32 // fileMode's
	// outTime is, in place, the output's time before the tree was made in
	// it, which abandon gives back; zero once files are moved in.
	outTime time.Time
	// liveSame, with prev and unless nil, says whether every file prev
	// records was in out as recorded when the build began (liveFilesAside):
	// then reuse takes the record's identity for the live file's.
	liveSame func() bool

	// The spare (spare.go): with a previous build, the new tree is the
	// tree the last exchange took out, brought up to date.
	keep    bool            // the old tree is kept as the spare after the exchange
	spare   *spareTree      // what the claimed spare held, by path in dir; nil for a tree made from scratch
	touched map[string]bool // folders of the new tree whose entries this build changed
	oldLock *os.File        // held on the old tree from just before the exchange

	// parents are the folders above out this build made, deepest last: a
	// build that fails removes them (when empty), so it leaves nothing.
	parents []string
}

// mkdirParents makes the folder dir and those above it that are missing,
// as os.MkdirAll does, and returns the folders it made, outermost first.
func mkdirParents(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		missing = append(missing, d)
	}
	var made []string
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			removeDirs(made)
			return nil, err
		} else if err == nil {
			made = append(made, missing[i])
		}
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		removeDirs(made)
		if err == nil {
			err = &fs.PathError{Op: "mkdir", Path: dir, Err: syscall.ENOTDIR}
		}
		return nil, err
	}
	return made, nil
}

// removeDirs removes the folders dirs, innermost (last) first, while
// they are empty: one something was put in since stays, with those above.
func removeDirs(dirs []string) {
	for i := len(dirs) - 1; i >= 0; i-- {
		if os.Remove(dirs[i]) != nil {
			return
		}
	}
}

// removeParents removes the folders above the output this build made,
// when they are empty: the build failed.
func (o *output) removeParents() {
	removeDirs(o.parents)
	o.parents = nil
}

// errChanged says that a file or folder of the output is not the one the
// last build left: it stops the checks of intact and liveFiles at the
// first, and take refuses a file changed since the look at it.
var errChanged = errors.New("output changed")

// ErrOutputPartial is wrapped by the error of a build that failed while
// moving files into an output it could not exchange (a mount point): the
// output then holds new files and old ones, each whole, and every
// descriptor its Well-Known index lists; the next build completes it.
var ErrOutputPartial = errors.New("the output holds part of the new site")

// Names of the new trees. A killed build's tree is removed by the next.
const (
	newTreeMark  = ".new-"          // beside the output: ".<out>.new-*"
	inPlaceTree  = ".skillcat-new-" // inside a mount-point output
	legacyStaged = ".stage-"        // earlier skillcats' staging folders
)

// rename, exchangeDirs and makeTree are os.Rename, exchange and
// os.MkdirTemp; tests replace them to make one of them fail.
var (
	rename       = os.Rename
	exchangeDirs = exchange
	makeTree     = os.MkdirTemp
)

// newOutput prepares the new tree of cfg.Out. prev, when not nil, is the
// previous build's record of its files.
func newOutput(cfg Config, prev map[string]store.CachedOutput) (*output, error) {
	out := filepath.Clean(cfg.Out)
	parent := filepath.Dir(out)
	parents, err := mkdirParents(parent)
	if err != nil {
		return nil, err
	}
	removeStale(parent, "."+filepath.Base(out)+newTreeMark, "."+filepath.Base(out)+legacyStaged)
	o := &output{cfg: cfg, out: out, prev: prev, live: -1, records: newRecords(prev), touched: map[string]bool{}, parents: parents}
	defer func() {
		if o.dir == "" {
			o.removeParents() // no tree: the build fails here
		}
	}()
	at, pattern := parent, "."+filepath.Base(out)+newTreeMark
	if info, err := os.Stat(out); err == nil && info.IsDir() {
		removeStale(out, inPlaceTree)
		if isMountPoint(out) {
			o.inPlace, o.outTime = true, info.ModTime()
			at, pattern = out, inPlaceTree
		}
	}
	if o.keep = len(prev) > 0 && !o.inPlace; !o.keep {
		discardSpare(out)
	} else if dir, lock, entries, ok := claimSpare(out, len(prev)); ok {
		o.dir, o.lock, o.spare = dir, lock, entries
		o.openLive()
		return o, nil
	}
	tmp, err := makeTree(at, pattern+"*")
	if err != nil && !o.inPlace && parentDenied(err) && isDir(out) {
		// A folder the user may write into whose parent they may not
		// (/srv/site of a deploy user, /srv root's): updated in place, as
		// a mount point is.
		o.inPlace, o.keep = true, false
		removeStale(out, inPlaceTree)
		if info, err := os.Stat(out); err == nil {
			o.outTime = info.ModTime()
		}
		tmp, err = makeTree(out, inPlaceTree+"*")
	}
	if err != nil {
		return nil, err
	}
	if o.lock, err = lockDir(tmp); err == nil {
		err = os.Chmod(tmp, os.FileMode(folderMode())) // MkdirTemp made it 0700
	}
	if err != nil {
		o.lock.Close()
		os.RemoveAll(tmp)
		return nil, err
	}
	o.dir = tmp
	o.openLive()
	return o, nil
}

// openLive opens the output for the lookups of the previous build's files
// in it (liveID), when there is a previous build: each of the 27,500
// lstats of a rebuild at 10,000 skills then walks the path below the
// output only, not the output's own path again.
func (o *output) openLive() {
	if len(o.prev) > 0 {
		o.live = openLive(o.out)
	}
}

// closeLive closes what openLive opened; liveID looks paths up whole from
// then on.
func (o *output) closeLive() {
	if o.live >= 0 {
		closeLive(o.live)
		o.live = -1
	}
}

// liveID returns the identity of the output's file at path (lstatID).
func (o *output) liveID(path string) (store.FileID, bool) {
	if o.live >= 0 {
		return lstatAt(o.live, filepath.FromSlash(path))
	}
	return lstatID(o.out + string(filepath.Separator) + filepath.FromSlash(path))
}

// parentDenied reports whether err says that a folder may not be made
// there: no permission, or a read-only file system.
func parentDenied(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)
}

// isDir reports whether name is a folder (following links).
func isDir(name string) bool {
	info, err := os.Stat(name)
	return err == nil && info.IsDir()
}

// removeStale removes the directories in parent whose names begin with one
// of prefixes and that no running build holds: trees of killed builds.
func removeStale(parent string, prefixes ...string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		for _, p := range prefixes {
			if strings.HasPrefix(e.Name(), p) && e.IsDir() {
				if d := filepath.Join(parent, e.Name()); abandoned(d) {
					os.RemoveAll(d)
				}
			}
		}
	}
}

// reuse returns the previous build's record of path when the file at path
// in the output is still the one that build left (a regular file of the
// recorded identity, by an lstat, or by the look at every file made when
// the build began: liveSame), and that file's identity.
func (o *output) reuse(path string) (store.CachedOutput, store.FileID, bool) {
	rec, ok := o.prev[path]
	if !ok || rec.Stat == (store.FileID{}) {
		return rec, store.FileID{}, false
	}
	if o.liveSame != nil && o.liveSame() {
		return rec, rec.Stat, true
	}
	live, ok := o.liveID(path)
	return rec, live, ok && live == rec.Stat
}

// byBytes is reuse for a file of the output that is not the one the
// last build left by its identity (an output restored from a CI artifact:
// new inodes; or one noted as unknown, racyOutput) but may hold its bytes:
// it returns the file's identity when they hash to rec's (sameBytesFile).
func (o *output) byBytes(path string, rec store.CachedOutput) (store.FileID, bool) {
	return sameBytesFile(o.out+string(filepath.Separator)+filepath.FromSlash(path), rec, o.fileMode(), o.cfg.Time)
}

// take puts the previous output's file at path, live, into the new tree:
// nothing to do when the spare's file there is that file's inode, a hard
// link otherwise, or a copy where links are impossible. linked reports
// whether the live file's identity changed (a link adds to its count).
func (o *output) take(path string, live store.FileID) (linked bool, err error) {
	to := filepath.Join(o.dir, filepath.FromSlash(path))
	if o.keepsLive(to, live) {
		return false, nil // its folders too
	}
	if o.liveSame != nil && o.liveSame() {
		// live may be the identity found when the build began (reuse):
		// the file is linked or copied only while it still is that file.
		if now, ok := o.liveID(path); !ok || now != live {
			return false, errChanged
		}
	}
	if err := o.mkdir(filepath.Dir(to)); err != nil {
		return false, err
	}
	if err := o.clear(to); err != nil {
		return false, err
	}
	o.touch(filepath.Dir(to))
	from := filepath.Join(o.out, filepath.FromSlash(path))
	if os.Link(from, to) == nil {
		return true, nil
	}
	if err := copyFile(from, to); err != nil {
		return false, err
	}
	o.mu.Lock()
	o.written++
	o.mu.Unlock()
	return false, nil
}

// touch notes that the entries of the folder dir of the new tree changed:
// in a tree made from the spare, whose unchanged folders keep their time
// (stamp); a tree made from scratch changed them all.
func (o *output) touch(dir string) {
	if o.spare == nil {
		return
	}
	o.mu.Lock()
	o.touched[dir] = true
	o.mu.Unlock()
}

// copyFile copies the regular file from to the new file to, with its
// modification time.
func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, src)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(to)
		return err
	}
	if info, err := src.Stat(); err == nil {
		os.Chtimes(to, info.ModTime(), info.ModTime())
	}
	return nil
}

// fresh reports whether the previous build made path from the same key
// and left it untouched, so it need not be made again; the new tree then
// takes that file.
func (o *output) fresh(path, key string) bool {
	if key == "" {
		return false
	}
	k := outputKey(key)
	o.mu.Lock()
	done, ok := o.records.get(path)
	o.mu.Unlock()
	if ok {
		return done.Key == k
	}
	rec, live, ok := o.reuse(path)
	if !ok && rec.Key == k {
		// Reading its bytes costs far less than making it again.
		if live, ok = o.byBytes(path, rec); ok {
			rec.Stat = live
		}
	}
	if !ok || rec.Key != k {
		return false
	}
	linked, err := o.take(path, live)
	if err != nil {
		return false
	}
	if linked {
		rec.Stat = store.FileID{} // noted again once the site is in place
	}
	o.record(path, rec)
	return true
}

// fileMode is the permission bits of a file the build writes (0644 less
// the umask), read once a build.
func (o *output) fileMode() uint32 {
	o.modeOnce.Do(func() { o.mode = folderMode() & 0o644 })
	return o.mode
}

// outputKey is the digest a record keeps of the key a file was made
// from; zero for none.
func outputKey(key string) store.Digest {
	if key == "" {
		return store.Digest{}
	}
	var buf [256]byte // most keys fit: no copy of each of the 27,500 on the heap
	return sha256.Sum256(append(buf[:0], key...))
}

func (o *output) record(path string, rec store.CachedOutput) {
	o.mu.Lock()
	o.records.set(path, rec)
	o.mu.Unlock()
}

// hashes reports whether the records carry each file's SHA-256: for the
// rebuild cache (track), or to compare with the previous build's files.
// A build without either (--no-cache) reads no record's hash.
func (o *output) hashes() bool { return o.track || o.prev != nil }

// write puts one file into the new tree: the previous output's file when
// its bytes are the same, data written anew otherwise.
func (o *output) write(path string, data []byte, key string) error {
	rec := store.CachedOutput{Key: outputKey(key), Size: int64(len(data))}
	if o.hashes() {
		rec.Hash = sha256.Sum256(data)
	}
	old, live, ok := o.reuse(path)
	if !ok && old.Hash == rec.Hash && old.Hash != (store.Digest{}) {
		if live, ok = o.byBytes(path, old); ok {
			old.Stat = live
		}
	}
	if ok && old.Hash == rec.Hash {
		if linked, err := o.take(path, live); err == nil {
			if !linked {
				rec.Stat = old.Stat
			}
			o.record(path, rec)
			return nil
		}
	}
	full, err := o.prepare(path)
	if err != nil {
		return err
	}
	if err := writeNew(full, data, o.cfg.Time); err != nil {
		return err
	}
	o.wrote(path, rec)
	return nil
}

// prepare makes room in the new tree for a file at path that this build
// writes, and returns its name.
func (o *output) prepare(path string) (string, error) {
	full := filepath.Join(o.dir, filepath.FromSlash(path))
	if err := o.mkdir(filepath.Dir(full)); err != nil {
		return "", err
	}
	if err := o.clear(full); err != nil {
		return "", err
	}
	o.touch(filepath.Dir(full))
	return full, nil
}

// wrote records a file this build wrote (its time already set when
// cfg.Time is).
func (o *output) wrote(path string, rec store.CachedOutput) {
	o.mu.Lock()
	o.records.set(path, rec)
	o.written++
	o.mu.Unlock()
}

// stream is a file of the new tree written piece by piece (create), so
// that a large document (llms-full.txt) is never held whole. Its bytes are
// hashed as they are written; when they turn out to be the previous
// build's, the previous file is taken instead, as write does.
type stream struct {
	o         *output
	path, key string
	f         *os.File
	buf       *bufio.Writer
	h         hash.Hash
	n         int64
	// The previous build's record of path (prev, ok) when its file was
	// still the one that build left, and that file's identity (live) once
	// the new tree's place was cleared: clearing the spare's file unlinks
	// a link of the live file when the two share an inode, which changes
	// its change time, so the record's identity no longer matches it.
	prev store.CachedOutput
	live store.FileID
	ok   bool
}

// create starts the file path of the new tree, made from key.
func (o *output) create(path, key string) (*stream, error) {
	prev, _, ok := o.reuse(path)
	full, err := o.prepare(path)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(full, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	s := &stream{o: o, path: path, key: key, f: f, buf: bufio.NewWriterSize(f, 256<<10), prev: prev}
	if ok {
		s.live, s.ok = o.liveID(path)
	}
	if o.hashes() {
		s.h = sha256.New()
	}
	return s, nil
}

// Write appends p to the file.
func (s *stream) Write(p []byte) (int, error) {
	if s.h != nil {
		s.h.Write(p)
	}
	s.n += int64(len(p))
	return s.buf.Write(p)
}

// close finishes the file and records it; when its bytes are those of the
// previous build's file, that file is taken instead.
func (s *stream) close() error {
	err := s.buf.Flush()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	s.f = nil
	if err != nil {
		return err
	}
	o := s.o
	rec := store.CachedOutput{Key: outputKey(s.key), Size: s.n}
	if s.h != nil {
		s.h.Sum(rec.Hash[:0])
	}
	full := filepath.Join(o.dir, filepath.FromSlash(s.path))
	if live, ok := o.liveID(s.path); s.ok && ok && live == s.live && s.prev.Hash == rec.Hash {
		if os.Remove(full) == nil {
			if _, err := o.take(s.path, live); err == nil {
				o.record(s.path, rec) // linked: noted again once the site is in place
				return nil
			}
		}
		return fmt.Errorf("take %s from the previous output: it is neither written nor taken", s.path)
	}
	if err := o.stampFile(full); err != nil {
		return err
	}
	o.wrote(s.path, rec)
	return nil
}

// abort closes a file that will not be finished (the build failed; its
// tree is removed).
func (s *stream) abort() {
	if s != nil && s.f != nil {
		s.f.Close()
		s.f = nil
	}
}

// stampFile sets the time of full, a file this build wrote or the
// output's own folder, to cfg.Time when it is set.
func (o *output) stampFile(full string) error {
	if o.cfg.Time.IsZero() {
		return nil
	}
	return os.Chtimes(full, o.cfg.Time, o.cfg.Time)
}

// mkdir makes the folder dir of the new tree and its parents: a plain
// mkdir, whose parent is made first only when it is missing (MkdirAll
// would stat every folder first). A tree made from scratch holds only what
// this build made, so a folder that exists is one made for an earlier
// file. No set of the folders made is kept (at 100,000 skills it would
// hold 180,000 paths through the whole render, most of them the folder of
// one page), only those found to exist (skills/, the root, the search
// shards' folder: a few hundred), which are not made again; and the list
// of those made when their time is to be set.
func (o *output) mkdir(dir string) error {
	if o.spare != nil {
		return o.mkdirInSpare(dir)
	}
	o.sharedMu.Lock()
	_, ok := o.shared.find(dir)
	o.sharedMu.Unlock()
	if ok {
		return nil
	}
	err := os.Mkdir(dir, 0o755)
	if errors.Is(err, fs.ErrNotExist) && filepath.Dir(dir) != dir {
		if err = o.mkdir(filepath.Dir(dir)); err == nil {
			err = os.Mkdir(dir, 0o755)
		}
	}
	if err == nil && !o.cfg.Time.IsZero() {
		o.mu.Lock()
		o.made.add(dir)
		o.mu.Unlock()
	}
	if errors.Is(err, fs.ErrExist) {
		o.sharedMu.Lock()
		if _, ok := o.shared.find(dir); !ok {
			o.shared.add(dir)
		}
		o.sharedMu.Unlock()
		return nil
	}
	return err
}

// mkdirInSpare is mkdir in a tree made from the spare, one folder at a
// time: the folders above dir first (so that the spare's are kept), then
// dir, kept when the spare has it, made in place of whatever else the
// spare holds there.
func (o *output) mkdirInSpare(dir string) error {
	// A folder of the spare is kept without a lock: nothing removes it
	// (no file of the site lies at a folder's path).
	if o.spare.keepDir(dir) {
		return nil
	}
	if _, ok := o.dirs.Load(dir); ok {
		return nil
	}
	if dir != o.dir && filepath.Dir(dir) != dir {
		if err := o.mkdir(filepath.Dir(dir)); err != nil {
			return err
		}
	}
	o.mkdirMu.Lock()
	defer o.mkdirMu.Unlock()
	if _, ok := o.dirs.Load(dir); ok {
		return nil
	}
	if err := o.clear(dir); err != nil { // a file, or a folder removed already
		return err
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	o.touch(dir)
	o.touch(filepath.Dir(dir))
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
	full, err := o.prepare(name)
	if err != nil {
		return err
	}
	if err := cat.db.Export(ctx, full); err != nil {
		return fmt.Errorf("export %s: %w", name, err)
	}
	return o.madeCatalog(name, full, key)
}

// catalogAside is the name, in the new tree, of catalog.sqlite exported
// before its key is known (exportAside); no route makes it.
const catalogAside = ".catalog.sqlite.aside"

// exportAside exports catalog.sqlite into the new tree under another name
// (catalogAside), before the listing gives its key: placeCatalog then puts
// it in its place, or removes it when the previous build's is fresh.
func (o *output) exportAside(ctx context.Context, cat *catalog) (string, error) {
	tmp := filepath.Join(o.dir, catalogAside)
	if err := o.clear(tmp); err != nil { // a failed build's, in the spare
		return "", err
	}
	o.touch(o.dir) // its folder's time is set again (stamp)
	if err := cat.db.Export(ctx, tmp); err != nil {
		return "", fmt.Errorf("export %s: %w", routes{}.catalogDB(), err)
	}
	return tmp, nil
}

// placeCatalog puts tmp, catalog.sqlite as exportAside made it, in its
// place, unless the previous build's (key) is fresh: tmp is then removed.
func (o *output) placeCatalog(tmp, key string) error {
	name := routes{}.catalogDB()
	if o.fresh(name, key) {
		return os.Remove(tmp)
	}
	full, err := o.prepare(name)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, full); err != nil {
		return err
	}
	return o.madeCatalog(name, full, key)
}

// madeCatalog records catalog.sqlite, made at full. Its record carries no
// hash of its bytes (46 MB at 10,000 skills, read back and hashed on the
// export's path, the longest of a rebuild's render): only its key decides
// whether it is made again (fresh), and nothing reads its hash.
func (o *output) madeCatalog(name, full, key string) error {
	if m := o.fileMode(); m != 0o644 { // Export makes it 0644, whatever the umask
		if err := os.Chmod(full, os.FileMode(m)); err != nil {
			return err
		}
	}
	info, err := os.Stat(full)
	if err != nil {
		return err
	}
	rec := store.CachedOutput{Key: outputKey(key), Size: info.Size()}
	if err := o.stampFile(full); err != nil {
		return err
	}
	o.wrote(name, rec)
	return nil
}

// finish exports catalog.sqlite (unless catalogKey, the store.ListedKey of
// the listing, is the previous build's) and puts the new tree in place. Once the
// exchange is done the build has succeeded: what follows (removing the old
// tree, noting the files' identities for the next build) cannot fail it.
func (o *output) finish(ctx context.Context, cat *catalog, catalogKey string) error {
	if err := o.exportCatalog(ctx, cat, catalogKey); err != nil {
		return err
	}
	if err := o.dropUnused(); err != nil {
		return err
	}
	if !o.cfg.Time.IsZero() {
		if err := o.stamp(o.cfg.Time); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if !o.inPlace {
		err := o.swap()
		if err == nil || !cannotExchange(err) {
			return err
		}
		o.inPlace = true // no exchange here: move the files in instead
	}
	o.outTime = time.Time{} // the output changes from here on
	if moved, err := o.moveIn(); err != nil {
		if moved == 0 {
			return err // nothing moved yet: the output is as it was
		}
		return fmt.Errorf("%w: %w", ErrOutputPartial, err)
	}
	o.settle()
	return nil
}

// swap exchanges the new tree with the output, or renames it into place
// when there is no output yet, and then removes the old tree.
func (o *output) swap() error {
	info, err := os.Lstat(o.out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := rename(o.dir, o.out); err != nil {
			return err
		}
	case err != nil:
		return err
	case !info.IsDir():
		return fmt.Errorf("%s exists and is not a directory", o.out)
	default:
		if o.keep {
			// Locked before the exchange, the old tree is never taken for
			// a killed build's until it is the spare.
			if o.oldLock, err = lockDir(o.out); err != nil {
				o.keep = false
			}
		}
		if err := exchangeDirs(o.dir, o.out); err != nil {
			o.oldLock.Close()
			o.oldLock = nil
			return err
		}
	}
	o.settle()
	return nil
}

// settle ends a build whose new site is in place: the old tree (or what
// is left of the new one) is removed, and, with a rebuild cache (track),
// the identity of every file is noted for the next build, after the links
// that change it are made and removed.
func (o *output) settle() {
	o.done = true
	o.closeLive() // out is the new tree from here on
	// The old tree is the spare: only after an exchange, with the lock
	// held since before it, into a free place.
	kept := o.oldLock != nil && os.Rename(o.dir, spareName(o.out)) == nil
	if !kept {
		removeTree(o.dir)
	}
	if o.inPlace {
		// Removing the tree made inside the output changed the output's
		// own time, which moveIn had set.
		o.stampFile(o.out)
	}
	o.lock.Close()
	o.oldLock.Close()
	if !o.track {
		return
	}
	// A racy identity (racyOutput) is noted as unknown, for the next
	// build to judge the file by its bytes: only a file whose record has
	// them hashed (catalog.sqlite's, exported by SQLite, has not).
	var paths []string
	var hashed []bool
	now := time.Now().UnixNano()
	for p, rec := range o.records.all() {
		if !kept || rec.Stat == (store.FileID{}) || racyOutput(rec.Stat, now) {
			paths = append(paths, p) // linked, written or racy: its identity is new
			hashed = append(hashed, rec.Hash != (store.Digest{}))
		}
	}
	ids := make([]store.FileID, len(paths))
	onWorkers(len(paths), func(i int) error {
		if id, _ := lstatID(o.out + string(filepath.Separator) + filepath.FromSlash(paths[i])); !hashed[i] || !racyOutput(id, now) {
			ids[i] = id
		}
		return nil
	})
	for i, p := range paths {
		rec, _ := o.records.get(p)
		rec.Stat = ids[i]
		o.records.set(p, rec)
	}
}

// removeTree removes the tree dir as os.RemoveAll does, the entries two
// levels down shared among the workers (an old site is 27,000 files and
// 18,000 folders at 10,000 skills, most of them under two folders).
func removeTree(dir string) {
	var parts []string
	top, _ := os.ReadDir(dir)
	for _, e := range top {
		p := filepath.Join(dir, e.Name())
		if !e.IsDir() {
			parts = append(parts, p)
			continue
		}
		sub, _ := os.ReadDir(p)
		for _, s := range sub {
			parts = append(parts, filepath.Join(p, s.Name()))
		}
	}
	onWorkers(len(parts), func(i int) error {
		os.RemoveAll(parts[i])
		return nil
	})
	os.RemoveAll(dir)
}

// moveIn moves the new tree's files into the output one by one, each by a
// rename (a copy beside its place first when the tree is on another file
// system), listings last, and then removes the files the build no longer
// makes. It does not stop for a cancelled context. moved counts the files
// moved in, or removed, before an error.
func (o *output) moveIn() (moved int, err error) {
	paths := make([]string, 0, o.records.len())
	for p := range o.records.all() {
		paths = append(paths, p)
	}
	sort.Slice(paths, func(i, j int) bool {
		if ri, rj := (routes{}).placeRank(paths[i]), (routes{}).placeRank(paths[j]); ri != rj {
			return ri < rj
		}
		return paths[i] < paths[j]
	})
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return 0, err
	}
	for _, p := range paths {
		from := filepath.Join(o.dir, filepath.FromSlash(p))
		to := filepath.Join(o.out, filepath.FromSlash(p))
		a, err := os.Lstat(from)
		if err != nil {
			return moved, err
		}
		if b, err := os.Lstat(to); err == nil && os.SameFile(a, b) {
			continue // taken from the output by a link: already there
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return moved, err
		}
		if err := place(from, to); err != nil {
			return moved, err
		}
		moved++
	}
	if err := o.removeOthers(); err != nil {
		return moved + 1, err
	}
	if !o.cfg.Time.IsZero() {
		return moved, filepath.WalkDir(o.out, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return err
			}
			if p == o.dir {
				return fs.SkipDir
			}
			return os.Chtimes(p, o.cfg.Time, o.cfg.Time)
		})
	}
	return moved, nil
}

// place renames from to to; across file systems it copies from beside to
// first, so that to still changes in one step.
func place(from, to string) error {
	err := rename(from, to)
	if err == nil || !errors.Is(err, errCrossDevice) {
		return err
	}
	tmp := filepath.Join(filepath.Dir(to), inPlaceTree+filepath.Base(to))
	os.Remove(tmp)
	if err := copyFile(from, tmp); err != nil {
		return err
	}
	if err := rename(tmp, to); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// removeOthers removes from the output every file the new tree does not
// hold, and the folders left empty, deepest first.
func (o *output) removeOthers() error {
	var files, dirs []string
	err := filepath.WalkDir(o.out, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == o.out {
			return nil
		}
		if p == o.dir || (d.IsDir() && filepath.Dir(p) == o.out && strings.HasPrefix(d.Name(), inPlaceTree)) {
			return fs.SkipDir
		}
		rel, _ := filepath.Rel(o.out, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			dirs = append(dirs, p)
		} else if _, ok := o.records.get(rel); !ok {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
	for _, d := range dirs {
		os.Remove(d) // fails, as it should, unless empty
	}
	return nil
}

// abandon removes the new tree of a build that did not finish, or gives
// it back as the spare: the next build reads it whole again.
func (o *output) abandon() {
	if o.done {
		return
	}
	o.closeLive()
	// A failed tree kept as the spare holds what the build wrote: on a
	// file system left full (the likely reason it failed) it would keep it
	// full, and each next build would fail as this one did.
	if !o.keep || !hasRoom(o.dir) || os.Rename(o.dir, spareName(o.out)) != nil {
		os.RemoveAll(o.dir)
	}
	if !o.outTime.IsZero() {
		// The tree made and removed inside the output changed its time
		// (an archive of the output would differ); nothing else of it did.
		os.Chtimes(o.out, time.Time{}, o.outTime)
	}
	o.lock.Close()
	o.removeParents()
}
