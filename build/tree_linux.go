package build

import (
	"bytes"
	"context"
	"encoding/binary"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/skillcat/skillcat/store"
)

// treeVisitor is what walkTree calls for the folders and entries of a tree.
// Its methods run on several goroutines at once.
type treeVisitor interface {
	// folder is called once for each folder, with its path and its fstat
	// (nil when stat is false); read false leaves its entries unread.
	folder(dir string, st *unix.Stat_t) (read bool, err error)
	// entry is called for each entry of a folder read, other than "." and
	// "..": dir is the folder's path, fd an open descriptor of it (for an
	// fstatat relative to it) and dst its fstat, name the entry's name (valid during the
	// call only), ino and typ what getdents says of it (DT_UNKNOWN resolved
	// by an fstatat). enter says whether a folder is to be walked in turn.
	entry(dir string, fd int, dst *unix.Stat_t, name []byte, ino uint64, typ byte) (enter bool, err error)
	// done is called once a folder's entries have all been seen, with
	// their number (not counting "." and "..").
	done(dir string, entries int) error
}

// openFolder is a folder open during a walk, closed once the folder and
// every subfolder queued under it have been opened.
type openFolder struct {
	fd   int
	refs atomic.Int32
}

func (f *openFolder) release() {
	if f != nil && f.refs.Add(-1) == 0 {
		unix.Close(f.fd)
	}
}

// walkItem is a folder still to be read: name in the open folder parent
// (nil for the root, opened by its path).
type walkItem struct {
	parent *openFolder
	name   string
	path   string
}

// walkTree reads the tree at root, each folder once, on up to GOMAXPROCS
// goroutines. A folder is opened relative to its parent, which stays open
// until then, with O_NOFOLLOW (a link put in a folder's place is never
// followed), fstat'ed, and read with getdents, which gives each entry's
// inode and type without a stat per file. stat says whether each folder
// is fstat'ed for folder. The first error stops the walk.
func walkTree(root string, stat bool, v treeVisitor) error {
	var (
		mu      sync.Mutex
		wake    = sync.NewCond(&mu)
		queue   = []walkItem{{name: root, path: root}}
		pending = 1 // folders queued or being read
		first   error
	)
	worker := func() {
		buf := make([]byte, 64<<10)
		var subs []walkItem
		for {
			mu.Lock()
			for len(queue) == 0 && pending > 0 && first == nil {
				wake.Wait()
			}
			if first != nil || pending == 0 {
				mu.Unlock()
				return
			}
			it := queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			mu.Unlock()
			subs = subs[:0]
			err := readFolder(it, stat, v, buf, &subs)
			mu.Lock()
			if err != nil && first == nil {
				first = err
			}
			if first != nil {
				for _, s := range subs {
					s.parent.release()
				}
			} else {
				queue = append(queue, subs...)
				pending += len(subs)
			}
			pending--
			wake.Broadcast()
			mu.Unlock()
		}
	}
	n := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			worker()
		}()
	}
	wg.Wait()
	for _, it := range queue {
		it.parent.release()
	}
	return first
}

// readFolder opens, fstats and reads one folder of a walk, and adds the
// subfolders to enter to subs, each holding a reference to it.
func readFolder(it walkItem, stat bool, v treeVisitor, buf []byte, subs *[]walkItem) error {
	at := unix.AT_FDCWD
	if it.parent != nil {
		at = it.parent.fd
	}
	fd, err := unix.Openat(at, it.name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	it.parent.release()
	if err != nil {
		return &fs.PathError{Op: "open", Path: it.path, Err: err}
	}
	f := &openFolder{fd: fd}
	f.refs.Store(1)
	defer f.release()
	var st unix.Stat_t
	dst := &st
	if !stat {
		dst = nil
	} else if err := unix.Fstat(fd, &st); err != nil {
		return &fs.PathError{Op: "fstat", Path: it.path, Err: err}
	}
	if read, err := v.folder(it.path, dst); err != nil || !read {
		return err
	}
	entries := 0
	for {
		n, err := unix.Getdents(fd, buf)
		if err != nil {
			return &fs.PathError{Op: "getdents", Path: it.path, Err: err}
		}
		if n <= 0 {
			return v.done(it.path, entries)
		}
		for b := buf[:n]; len(b) >= 19; {
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				return &fs.PathError{Op: "getdents", Path: it.path, Err: unix.EIO}
			}
			ino, typ, name := binary.NativeEndian.Uint64(b[0:8]), b[18], b[19:reclen]
			b = b[reclen:]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if string(name) == "." || string(name) == ".." {
				continue
			}
			entries++
			if typ == unix.DT_UNKNOWN {
				// Some file systems do not say: ask.
				var est unix.Stat_t
				if unix.Fstatat(fd, string(name), &est, unix.AT_SYMLINK_NOFOLLOW) == nil {
					switch est.Mode & unix.S_IFMT {
					case unix.S_IFDIR:
						typ = unix.DT_DIR
					case unix.S_IFREG:
						typ, ino = unix.DT_REG, est.Ino
					}
				}
			}
			enter, err := v.entry(it.path, fd, dst, name, ino, typ)
			if err != nil {
				return err
			}
			if enter {
				f.refs.Add(1)
				*subs = append(*subs, walkItem{parent: f, name: string(name), path: it.path + "/" + string(name)})
			}
		}
	}
}

// spareReader is the treeVisitor of readTree: it lists every entry by its
// path, each folder's entries gathered before they join the listing.
type spareReader struct {
	root string
	mode uint32 // the mode of a folder the build makes (folderMode)
	mu   sync.Mutex
	tree *spareTree
}

func (r *spareReader) folder(dir string, st *unix.Stat_t) (bool, error) {
	e := spareEntry{dev: st.Dev, ino: st.Ino, mtime: st.Mtim.Nano(), kind: spareDir}
	read := st.Mode&0o7777 == r.mode || dir == r.root
	if !read {
		e = spareEntry{kind: spareOther}
	}
	r.put(dir, filepath.Dir(dir), e)
	return read, nil
}

func (r *spareReader) entry(dir string, _ int, dst *unix.Stat_t, name []byte, ino uint64, typ byte) (bool, error) {
	switch typ {
	case unix.DT_DIR:
		return true, nil // listed by folder
	case unix.DT_REG:
		r.put(dir+"/"+string(name), dir, spareEntry{dev: dst.Dev, ino: ino, kind: spareFile})
	default:
		r.put(dir+"/"+string(name), dir, spareEntry{kind: spareOther})
	}
	return false, nil
}

func (r *spareReader) done(string, int) error { return nil }

func (r *spareReader) put(p, dir string, e spareEntry) {
	r.mu.Lock()
	r.tree.add(p, dir, e)
	r.mu.Unlock()
}

// readTree lists every entry under root, root included, by its path (see
// walkTree). A folder whose mode is not the one the build gives its
// folders (folderMode) is listed as other and not read. The listing has
// room for files files and two folders for every three of them (the
// site's proportion: a folder for each skill's page and one for its
// SKILL.md) from the start, so that it does not grow from nothing (~6
// MB of maps made and dropped at 10,000 skills).
func readTree(root string, files int) (*spareTree, error) {
	n := files + files*2/3
	r := &spareReader{root: root, mode: folderMode(), tree: &spareTree{at: make(map[string]int32, n), entries: make([]spareEntry, 0, n)}}
	return r.tree, walkTree(root, true, r)
}

// intactVisitor is the treeVisitor of intact: it checks each file against
// the record, by an fstatat relative to its folder, and counts them.
type intactVisitor struct {
	root string
	mode uint32 // the mode of a folder the build makes (folderMode)
	// anyMode leaves folder modes unchecked: the output is a mount point,
	// updated in place, whose folders keep the modes they have.
	anyMode bool
	prev    map[string]store.CachedOutput
	n       atomic.Int64 // recorded files found
	// noted, unless nil, gathers each folder's identity (under mu).
	noted *folderRecord
	mu    sync.Mutex
	// filesKnown: each file's identity was found as recorded (liveFiles).
	filesKnown bool
}

// folder stops the walk at a folder of a mode the build does not give its
// folders (a chmod changes no file's identity): folderMode, the root's
// included.
// An output updated in place (anyMode) keeps its folders and their modes,
// so a build would change none of them: they are not checked.
func (v *intactVisitor) folder(dir string, st *unix.Stat_t) (bool, error) {
	if !v.anyMode && st.Mode&0o7777 != v.mode {
		return false, errChanged
	}
	if v.noted != nil {
		rel := ""
		if len(dir) > len(v.root) {
			rel = dir[len(v.root)+1:]
		}
		v.mu.Lock()
		v.noted.folders[rel] = statID(st)
		v.mu.Unlock()
	}
	return true, nil
}

// done stops the walk at an empty folder. The build makes a folder only
// for a file it puts there, so an added folder (empty, or holding only
// folders), which changes no file's identity, shows as an empty one.
func (v *intactVisitor) done(_ string, entries int) error {
	if entries == 0 {
		return errChanged
	}
	return nil
}

func (v *intactVisitor) entry(dir string, fd int, _ *unix.Stat_t, name []byte, _ uint64, typ byte) (bool, error) {
	switch typ {
	case unix.DT_DIR:
		return true, nil
	case unix.DT_REG:
	default:
		return false, errChanged
	}
	var rel []byte
	if len(dir) > len(v.root) {
		rel = append(append(append(make([]byte, 0, 96), dir[len(v.root)+1:]...), '/'), name...)
	} else {
		rel = name
	}
	rec, ok := v.prev[string(rel)]
	if !ok || rec.Stat == (store.FileID{}) {
		return false, errChanged
	}
	// Unless liveFiles found it as recorded already, its identity counts
	// too, not only where it lies.
	if !v.filesKnown {
		if id, ok := lstatAt(fd, string(name)); !ok || id != rec.Stat {
			return false, errChanged
		}
	}
	v.n.Add(1)
	return false, nil
}

// intact reports whether the directory out holds exactly the files prev
// records, each still the file the build left (its identity, by an
// fstatat relative to its folder), and no empty folder, each of the mode
// the build gives its folders. With no record of the output's folders
// (rec nil), or on a file system whose attributes are not its own
// (ownAttributes), the whole tree is walked (walkTree), so that a file or
// folder added anywhere counts; with one, only the folders that changed
// since it was noted are read (intactByRecord). noted is a record of the folders
// as found, for the next check, when it would read fewer of them than
// this one did: nil when there is none to keep. filesKnown says that
// every file prev records was found as recorded already (liveFiles): its
// identity is then not looked at again, only where it lies.
func intact(out string, prev map[string]store.CachedOutput, rec *folderRecord, filesKnown bool) (ok bool, noted *folderRecord) {
	asOf := time.Now().UnixNano()
	anyMode := isMountPoint(out)
	v := &intactVisitor{root: out, mode: folderMode(), anyMode: anyMode, prev: prev, filesKnown: filesKnown}
	if !ownAttributes(out) {
		return walkTree(out, true, v) == nil && v.n.Load() == int64(len(prev)), nil
	}
	if rec != nil {
		// The record vouches for folders only: each file is looked at
		// first, unless the caller did (liveFilesAside).
		if !filesKnown && !liveFiles(context.Background(), out, prev) {
			return false, nil
		}
		v.filesKnown = true
		if ok, found, usable := intactByRecord(out, prev, rec, anyMode); usable {
			if !ok || found == nil {
				return ok, nil
			}
			if again := (&folderRecord{asOf: asOf, folders: found}); again.settlesMore(rec) {
				return true, again
			}
			return true, nil
		}
	}
	v.noted = &folderRecord{asOf: asOf, folders: make(map[string]store.FileID, len(prev)*2/3)}
	if walkTree(out, true, v) != nil || v.n.Load() != int64(len(prev)) {
		return false, nil
	}
	return true, v.noted
}

// intactByRecord is intact's look at the folders of an output whose
// folders rec noted, its files found as recorded already (liveFiles):
// every folder the files of prev lie in is fstat'ed, and a folder is read
// only when it is not as rec noted it, or changed
// too close to when it was noted (folderRecord.settled); its entries must
// then be exactly the files and folders prev gives it. usable is false
// when rec is not a record of the folders prev gives; found, when a
// folder was read, is the identity of each folder as found.
func intactByRecord(out string, prev map[string]store.CachedOutput, rec *folderRecord, anyMode bool) (ok bool, found map[string]store.FileID, usable bool) {
	dirs := outputFolders(maps.Keys(prev))
	folders := make([]string, 0, len(dirs))
	for d := range dirs {
		if _, ok := rec.folders[d]; !ok {
			return false, nil, false
		}
		folders = append(folders, d)
	}
	if len(folders) != len(rec.folders) {
		return false, nil, false
	}
	root, err := unix.Open(out, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false, nil, true
	}
	defer unix.Close(root)
	mode := folderMode()
	ids := make([]store.FileID, len(folders))
	var reads, failed atomic.Bool
	err = onWorkers(len(folders), func(i int) (err error) {
		if failed.Load() {
			return errChanged // another worker found a change
		}
		defer func() {
			if err != nil {
				failed.Store(true)
			}
		}()
		d := folders[i]
		var st unix.Stat_t
		if d == "" {
			err = unix.Fstat(root, &st)
		} else {
			err = unix.Fstatat(root, d, &st, unix.AT_SYMLINK_NOFOLLOW)
		}
		if err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR || !anyMode && st.Mode&0o7777 != mode {
			return errChanged
		}
		ids[i] = statID(&st)
		if rec.settled(d, ids[i]) {
			return nil
		}
		reads.Store(true)
		full := out
		if d != "" {
			full = out + "/" + d
		}
		v := expectedVisitor{dir: d, dirs: dirs, prev: prev}
		buf := folderBufs.Get().(*[]byte)
		defer folderBufs.Put(buf)
		return readFolder(walkItem{name: full, path: full}, false, v, *buf, nil)
	})
	if err != nil || !reads.Load() {
		return err == nil, nil, true
	}
	found = make(map[string]store.FileID, len(folders))
	for i, d := range folders {
		found[d] = ids[i]
	}
	return true, found, true
}

// liveFilesAside starts, on a goroutine of its own, the look at every
// file of the previous output that both an up-to-date check (intact) and
// a rebuild (output.reuse) make: whether each file prevOf records is
// still in out as the build left it, its identity by an fstatat relative
// to out. It waits for the record's decoding and runs beside the read of
// the sources, neither of which the build waits for on its account. The
// function it returns waits for the answer (the same each time it is
// called); it is nil where the look is not made ahead: on a file system
// whose attributes are not its own (ownAttributes), where the
// up-to-date check reads every folder and stats each file relative to it.
func liveFilesAside(ctx context.Context, out string, prevOf func() (map[string]store.CachedOutput, error)) func() bool {
	if !ownAttributes(out) {
		return nil
	}
	var same bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		if prev, err := prevOf(); err == nil && len(prev) > 0 {
			same = liveFiles(ctx, out, prev)
		}
	}()
	return func() bool {
		<-done
		return same
	}
}

// liveFiles reports whether every file prev records is in out as the build
// left it: a regular file of the recorded identity. It stops at the first
// that is not (or once ctx is done).
func liveFiles(ctx context.Context, out string, prev map[string]store.CachedOutput) bool {
	files := make([]string, 0, len(prev))
	for p, rec := range prev {
		if rec.Stat == (store.FileID{}) {
			return false // noted as unknown (racyOutput): judged by its bytes
		}
		files = append(files, p)
	}
	root, err := unix.Open(out, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(root)
	var failed atomic.Bool
	err = onWorkers(len(files), func(i int) error {
		if failed.Load() || ctx.Err() != nil {
			return errChanged
		}
		if id, ok := lstatAt(root, files[i]); !ok || id != prev[files[i]].Stat {
			failed.Store(true)
			return errChanged
		}
		return nil
	})
	return err == nil
}

// folderBufs holds the buffers intactByRecord reads folders into.
var folderBufs = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// ownAttributes reports whether the file system of dir keeps the times
// and identities of its files itself, so that a folder's change time is
// the kernel's own and moves with every entry added or removed: a local
// one. A network or FUSE file system's attributes are copies the kernel
// caches for seconds (NFS revalidates a folder's only when it is opened),
// so there every folder is read, as before the note. overlayfs is taken:
// a change to a lower layer under a mounted overlay is undefined anyway.
func ownAttributes(dir string) bool {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil {
		return false
	}
	switch st.Type {
	case unix.TMPFS_MAGIC, unix.RAMFS_MAGIC, unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC,
		unix.F2FS_SUPER_MAGIC, unix.BCACHEFS_SUPER_MAGIC, unix.OVERLAYFS_SUPER_MAGIC:
		return true
	}
	return false
}

// expectedVisitor is the treeVisitor with which intactByRecord reads one
// folder, dir: each entry must be a file prev records or a folder dirs
// holds, and their number the one dirs gives it. It enters no folder.
type expectedVisitor struct {
	dir  string
	dirs map[string]int
	prev map[string]store.CachedOutput
}

func (v expectedVisitor) folder(string, *unix.Stat_t) (bool, error) { return true, nil }

func (v expectedVisitor) entry(_ string, _ int, _ *unix.Stat_t, name []byte, _ uint64, typ byte) (bool, error) {
	rel := string(name)
	if v.dir != "" {
		rel = v.dir + "/" + rel
	}
	var ok bool
	switch typ {
	case unix.DT_DIR:
		_, ok = v.dirs[rel]
	case unix.DT_REG:
		_, ok = v.prev[rel]
	}
	if !ok {
		return false, errChanged
	}
	return false, nil
}

func (v expectedVisitor) done(_ string, entries int) error {
	if entries != v.dirs[v.dir] {
		return errChanged
	}
	return nil
}

// folderMode returns the permission bits of a folder the build makes: 0755
// less the process's umask (read from /proc/self/status; 022 when it
// cannot be read). The spare and the up-to-date check take a folder of
// any other mode for one the build did not leave.
func folderMode() uint32 {
	umask := uint32(0o022)
	if data, err := os.ReadFile("/proc/self/status"); err == nil {
		if _, rest, ok := bytes.Cut(data, []byte("\nUmask:\t")); ok {
			line, _, _ := bytes.Cut(rest, []byte("\n"))
			if m, err := strconv.ParseUint(string(line), 8, 32); err == nil {
				umask = uint32(m)
			}
		}
	}
	return 0o755 &^ umask
}

// modeKey is what the process's umask makes of the output's modes
// (folderMode), for the cache's record of the last build's stamp
// (stampKey): files taken from the last output keep the modes they were
// written with.
func modeKey() string { return " " + strconv.FormatUint(uint64(folderMode()), 8) }
