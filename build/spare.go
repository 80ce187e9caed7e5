package build

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/skillcat/skillcat/store"
)

// The spare is the tree a build exchanged out of the output, kept beside it
// (".<out>.spare") instead of being removed. Every file the two builds
// share is one inode with two links, so the spare costs only the bytes of
// the files that changed, and the next build brings it up to the new site
// by the difference alone: it keeps each spare file that is the inode of
// the live file the cache vouches for (same device, inode, change time and
// size as recorded), replaces the others, removes what the new site no
// longer holds, and exchanges it with the output.
//
// Nothing of the spare is taken on trust. It is read whole when a build
// claims it (every folder listed with the inode of each entry, which the
// listing gives without a stat per file), and a file of it counts only when
// its inode is the live file's, whose change time moves on any write, link
// or unlink, so an edited, replaced or deleted spare file shows as one the
// live output no longer vouches for. Anything else in it (files or folders
// added by hand, links, folders of another mode) is removed.
//
// A build claims the spare by locking it and renaming it to a new tree's
// name (".<out>.new-*") before it changes anything in it: a build killed
// while it works on it leaves a tree the next build removes as a killed
// build's, and that build makes its new tree from scratch. A build that
// fails gives its tree back as the spare: it is read whole again next time.
const spareMark = ".spare"

// spareKind is what an entry of the spare is.
type spareKind byte

const (
	spareFile  spareKind = iota + 1 // a regular file
	spareDir                        // a folder of mode 0755
	spareOther                      // anything else: removed when the spare is claimed
)

// timeMoved is the time of a spare's folder an entry was removed from:
// no build's time (SOURCE_DATE_EPOCH counts whole seconds), so the folder
// is stamped.
const timeMoved = -1

// spareEntry is one entry of the spare as its listing gave it.
type spareEntry struct {
	dev, ino uint64
	mtime    int64 // a folder's modification time (ns)
	parent   int32 // the index of the folder it lies in; -1 for the root
	kind     spareKind
}

// spareTree is what a claimed spare held, by path in the new tree, and
// what the build has done with each entry since. The listing is fixed
// once the spare is claimed; the workers that bring it up to date only
// set each entry's state bits, atomically, so that looking an entry up
// takes no lock (27,500 files and 18,300 folders at 10,000 skills, on
// every worker at once).
type spareTree struct {
	at      map[string]int32 // the index of each path's entry
	entries []spareEntry
	state   []atomic.Uint32 // by index: spareUsed, spareGone
}

// The state bits of a spare entry.
const (
	spareUsed uint32 = 1 << iota // the new site holds this path
	spareGone                    // removed or replaced by this build
)

// add lists the entry e at path p, in the folder dir (for the root, a
// folder outside the tree); the tree is not in use yet.
func (t *spareTree) add(p, dir string, e spareEntry) {
	e.parent = -1
	if i, ok := t.at[dir]; ok {
		e.parent = i
	}
	t.at[p] = int32(len(t.entries))
	t.entries = append(t.entries, e)
}

// use marks entry i, and the folders it lies in, as held by the new site.
// A used entry's folders are used too, once its marking is done, so the
// walk up stops at the first one used already.
func (t *spareTree) use(i int32) {
	for ; i >= 0; i = t.entries[i].parent {
		if t.state[i].Or(spareUsed)&spareUsed != 0 {
			return
		}
	}
}

// keepDir reports whether the spare holds a folder at p that this build
// has not removed, and marks it and the folders above it as held: the new
// tree keeps it as it is.
func (t *spareTree) keepDir(p string) bool {
	if t == nil {
		return false
	}
	i, ok := t.at[p]
	if !ok || t.entries[i].kind != spareDir || t.state[i].Load()&spareGone != 0 {
		return false
	}
	t.use(i)
	return true
}

// mark sets the state bits of the entry at p and returns the entry and
// its state before, or false when there is none (t nil: no tree).
func (t *spareTree) mark(p string, bits uint32) (spareEntry, uint32, bool) {
	if t == nil {
		return spareEntry{}, 0, false
	}
	i, ok := t.at[p]
	if !ok {
		return spareEntry{}, 0, false
	}
	return t.entries[i], t.state[i].Or(bits), true
}

// spareName is the path of the spare of the output out.
func spareName(out string) string {
	return filepath.Join(filepath.Dir(out), "."+filepath.Base(out)+spareMark)
}

// claimSpare takes the spare of out for a new tree: it locks it, renames it
// to a new tree's name beside out and reads it whole. ok is false when
// there is no spare, another build holds it, or it cannot be read (it is
// then removed). files is about how many files it holds: the number the
// last build recorded.
func claimSpare(out string, files int) (dir string, lock *os.File, entries *spareTree, ok bool) {
	name := spareName(out)
	if info, err := os.Lstat(name); err != nil || !info.IsDir() {
		if err == nil {
			os.Remove(name)
		}
		return "", nil, nil, false
	}
	lock, err := lockDir(name)
	if err != nil {
		return "", nil, nil, false // another build is working on it
	}
	// A fresh name, then the spare renamed over it: from here on, a kill
	// leaves a killed build's tree, which the next build removes.
	tmp, err := os.MkdirTemp(filepath.Dir(out), "."+filepath.Base(out)+newTreeMark+"*")
	tmp = filepath.Clean(tmp) // the form of every path joined under it
	if err == nil {
		if err = renameOver(name, tmp); err != nil {
			os.Remove(tmp)
		}
	}
	if err != nil {
		lock.Close()
		return "", nil, nil, false
	}
	if entries, err = readTree(tmp, files); err == nil {
		err = dropOthers(tmp, entries)
		entries.state = make([]atomic.Uint32, len(entries.entries))
	}
	if err == nil {
		err = os.Chmod(tmp, os.FileMode(folderMode()))
	}
	if err != nil {
		os.RemoveAll(tmp)
		lock.Close()
		return "", nil, nil, false
	}
	return tmp, lock, entries, true
}

// discardSpare removes the spare of out unless another build holds it: a
// build that cannot use it keeps no stale copy of the site.
func discardSpare(out string) {
	name := spareName(out)
	if info, err := os.Lstat(name); err != nil || !info.IsDir() {
		return
	}
	if lock, err := lockDir(name); err == nil {
		os.RemoveAll(name)
		lock.Close()
	}
}

// dropOthers removes from the claimed spare at root every entry that is
// neither a regular file nor a folder of mode 0755, and forgets it and
// what was under it. The folder it lay in no longer has the time the
// listing gives it (the removal moved it), so stamp sets it again.
func dropOthers(root string, t *spareTree) error {
	var others []string
	for p, i := range t.at {
		if t.entries[i].kind == spareOther && p != root {
			others = append(others, p)
		}
	}
	sort.Strings(others)
	for _, p := range others {
		if err := os.RemoveAll(p); err != nil {
			return err
		}
		if i, ok := t.at[p]; ok && t.entries[i].parent >= 0 {
			t.entries[t.entries[i].parent].mtime = timeMoved
		}
		for q := range t.at {
			if q == p || strings.HasPrefix(q, p+string(filepath.Separator)) {
				delete(t.at, q)
			}
		}
	}
	return nil
}

// clear makes room for a new file at full in the new tree: whatever the
// spare holds there is removed (unlinked, never written into: it may be
// an inode of the live output).
func (o *output) clear(full string) error {
	e, was, ok := o.spare.mark(full, spareUsed|spareGone)
	if !ok || was&spareGone != 0 {
		return nil
	}
	o.mu.Lock()
	o.touched[filepath.Dir(full)] = true
	o.mu.Unlock()
	if e.kind == spareDir {
		return os.RemoveAll(full)
	}
	if err := os.Remove(full); err != nil && !gone(err) {
		return err
	}
	return nil
}

// keepsLive reports whether the spare's file at full is the inode of the
// live file of identity live, which the build has found to be the one the
// cache records: then it holds the live bytes and stays, and so do the
// folders it lies in.
func (o *output) keepsLive(full string, live store.FileID) bool {
	e, was, ok := o.spare.mark(full, spareUsed)
	if !ok || was&spareGone != 0 || e.kind != spareFile || live == (store.FileID{}) || live.Dev != e.dev || live.Ino != e.ino {
		return false
	}
	o.spare.use(e.parent)
	return true
}

// dropUnused removes from the new tree what the spare held and the new
// site does not: files the build no longer makes, folders left over.
func (o *output) dropUnused() error {
	if o.spare == nil {
		return nil
	}
	var dirs []string
	for p, i := range o.spare.at {
		e := o.spare.entries[i]
		switch {
		case o.spare.state[i].Load()&spareUsed != 0 || p == o.dir:
		case e.kind == spareDir:
			dirs = append(dirs, p)
		case e.kind == spareFile:
			if err := os.Remove(p); err != nil && !gone(err) {
				return err
			}
			o.touched[filepath.Dir(p)] = true
		}
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		if err := os.RemoveAll(d); err != nil && !gone(err) {
			return err
		}
		o.touched[filepath.Dir(d)] = true
	}
	return nil
}

// gone reports whether err says that there is nothing to remove: the
// path, or a folder above it, was removed or replaced by a file already.
func gone(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// stamp sets the modification time of the folders the build made or
// changed in the new tree to t, so that an archive of the output is
// reproducible: every folder it made, changed, or found in the spare with
// another time. The files it wrote got t as they were written (writeNew,
// stampFile); files taken from the live output have t already (the cache
// holds no earlier output once the time changes), and are shared with it
// until the exchange, so they are left alone.
func (o *output) stamp(t time.Time) error {
	var dirs []string
	if o.spare == nil {
		dirs = append(dirs, o.dir)
	}
	for i := range int32(o.made.len()) {
		dirs = append(dirs, o.made.at(i))
	}
	o.dirs.Range(func(k, _ any) bool { // made in a tree from the spare
		dirs = append(dirs, k.(string))
		return true
	})
	if o.spare != nil {
		// The spare's folders the new tree keeps (its root always), unless
		// they have the time and this build changed none of their entries.
		for p, i := range o.spare.at {
			e, state := o.spare.entries[i], o.spare.state[i].Load()
			kept := e.kind == spareDir && state&spareGone == 0 && (state&spareUsed != 0 || p == o.dir)
			if kept && (e.mtime != t.UnixNano() || o.touched[p]) {
				dirs = append(dirs, p)
			}
		}
	}
	// On the workers: the build waits for it, and a cold build of 10,000
	// skills stamps 18,200 folders (32 ms on one core, 16 on two).
	return onWorkers(len(dirs), func(i int) error { return os.Chtimes(dirs[i], t, t) })
}
