package build

import (
	"crypto/sha256"
	"errors"
	"io"
	"io/fs"
	"os"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/skillcat/skillcat/store"
)

// exchange swaps two paths atomically (renameat2 RENAME_EXCHANGE).
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}

// cannotExchange reports whether err says that the two names cannot be
// exchanged at all here (a mount point, another file system, a file system
// or kernel without RENAME_EXCHANGE), rather than that this attempt failed.
func cannotExchange(err error) bool {
	return errors.Is(err, unix.EBUSY) || errors.Is(err, unix.EXDEV) || errors.Is(err, unix.EINVAL) ||
		errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.ENOTSUP)
}

// isMountPoint reports whether dir is the root of a mount (a tmpfs, a bind
// mount, a container volume): it cannot be renamed or exchanged.
func isMountPoint(dir string) bool {
	var st unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, dir, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BASIC_STATS, &st); err == nil &&
		st.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT != 0 {
		return st.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0
	}
	a, errA := os.Stat(dir)
	b, errB := os.Stat(dir + "/..")
	if errA != nil || errB != nil {
		return false
	}
	return a.Sys().(*syscall.Stat_t).Dev != b.Sys().(*syscall.Stat_t).Dev
}

// fileStat is the identity of a file as the system reports it: device,
// inode, change time and size. The change time moves on every write,
// rename into place, link or touch, and no tool can set it, so equal
// identities mean the same unchanged file. "" when unknown.
func fileStat(info fs.FileInfo) (stat string, ctime int64) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return "", 0
	}
	ctime = st.Ctim.Nano()
	return strconv.FormatUint(st.Dev, 10) + ":" + strconv.FormatUint(st.Ino, 10) + ":" +
		strconv.FormatInt(ctime, 10) + ":" + strconv.FormatInt(st.Size, 10), ctime
}

// fileIdentity is fileStat's identity as a fixed-size value; zero when
// unknown.
func fileIdentity(info fs.FileInfo) store.FileID {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return store.FileID{}
	}
	return store.FileID{Dev: st.Dev, Ino: st.Ino, Ctime: st.Ctim.Nano(), Size: st.Size}
}

// lockDir takes an exclusive lock on the directory dir, held until the
// returned file is closed or the process ends, however it ends.
func lockDir(dir string) (*os.File, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// abandoned reports whether no running build holds the directory dir (its
// lock is free): a build that made it was killed.
func abandoned(dir string) bool {
	f, err := lockDir(dir)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// errCrossDevice is the error of a rename between file systems.
var errCrossDevice error = unix.EXDEV

// openLive opens the folder out, following links as a path under it
// would, for lookups relative to it (lstatAt); -1 when it cannot.
func openLive(out string) int {
	fd, err := unix.Open(out, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	return fd
}

// closeLive closes a folder openLive opened.
func closeLive(fd int) { unix.Close(fd) }

// lstatAt is lstatID of name, a path relative to the folder open as dir
// (openLive): the path's folders above dir are not looked up again.
func lstatAt(dir int, name string) (id store.FileID, ok bool) {
	var st unix.Stat_t
	if unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return store.FileID{}, false
	}
	return statID(&st), true
}

// statID is the identity of the file st describes.
func statID(st *unix.Stat_t) store.FileID {
	return store.FileID{Dev: st.Dev, Ino: st.Ino, Ctime: st.Ctim.Nano(), Size: st.Size}
}

// lstatID returns the identity of the file at name, not following a
// link; ok is false unless it is a regular file.
func lstatID(name string) (id store.FileID, ok bool) { return lstatAt(unix.AT_FDCWD, name) }

// renameOver renames the folder from to to, an empty folder it replaces
// (os.Rename refuses an existing folder as its target).
func renameOver(from, to string) error {
	if err := unix.Rename(from, to); err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}

// writeNew writes data to the file name, which must not exist yet (a file
// of the new tree is never one the old tree shares by a link), with the
// modification time t unless t is zero. It makes the system calls itself:
// open, write, futimens when t is set, close. os.OpenFile would add four
// fcntl calls and an epoll_ctl to each of the tree's files (27,000 at
// 10,000 skills) to offer a poller a regular file never uses.
func writeNew(name string, data []byte, t time.Time) error {
	fd, err := unix.Open(name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o644)
	for err == unix.EINTR {
		fd, err = unix.Open(name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o644)
	}
	if err != nil {
		return &fs.PathError{Op: "open", Path: name, Err: err}
	}
	for rest := data; len(rest) > 0 && err == nil; {
		var n int
		switch n, err = unix.Write(fd, rest); {
		case err == unix.EINTR:
			err = nil
		case err == nil && n == 0:
			err = io.ErrShortWrite
		case err == nil:
			rest = rest[n:]
		}
	}
	if err == nil && !t.IsZero() {
		err = futimens(fd, t)
	}
	if cerr := unix.Close(fd); err == nil && cerr != nil && cerr != unix.EINTR {
		err = cerr
	}
	if err != nil {
		return &fs.PathError{Op: "write", Path: name, Err: err}
	}
	return nil
}

// futimens sets the access and modification times of the open file fd to
// t (utimensat with a null path, which x/sys/unix does not offer).
func futimens(fd int, t time.Time) error {
	ts := [2]unix.Timespec{unix.NsecToTimespec(t.UnixNano()), unix.NsecToTimespec(t.UnixNano())}
	_, _, e := unix.Syscall6(unix.SYS_UTIMENSAT, uintptr(fd), 0, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

// sameBytesFile reports whether the file name holds what rec records (its
// size and SHA-256) as a regular file of the given permission bits and,
// when t is set, modification time t, as the build would leave it: a file
// of the previous output that is not the one the build left (restored
// from an artifact, copied) but has its bytes. It returns the identity of
// the file read.
func sameBytesFile(name string, rec store.CachedOutput, mode uint32, t time.Time) (store.FileID, bool) {
	fd, err := unix.Open(name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return store.FileID{}, false
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size != rec.Size ||
		st.Mode&0o7777 != mode || (!t.IsZero() && st.Mtim.Nano() != t.UnixNano()) {
		return store.FileID{}, false
	}
	h := sha256.New()
	if n, err := io.Copy(h, f); err != nil || n != rec.Size || [sha256.Size]byte(h.Sum(nil)) != rec.Hash {
		return store.FileID{}, false
	}
	return statID(&st), true
}

// hasRoom reports whether the file system of dir has at least 1/64 of its
// blocks and of its inodes free (true when it cannot tell).
func hasRoom(dir string) bool {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil {
		return true
	}
	return st.Bavail >= st.Blocks/64 && (st.Files == 0 || st.Ffree >= st.Files/64)
}

// openTmpFile opens an unnamed file in dir (O_TMPFILE) and returns its
// descriptor; tests replace it to stand for a file system that cannot
// make one (NFS, vfat, many FUSE file systems).
var openTmpFile = func(dir string) (int, error) {
	return unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
}

// tmpFile opens an unnamed file on dir's file system (O_TMPFILE): it never
// shows in dir, and is freed once closed, however the process ends. Where
// the file system cannot make one, it is a file of dir removed as soon as
// it is open (unnamedTemp), still on the file system the build writes
// the site to: the system's temporary folder may be missing, read-only or
// too small, and no build cleans it after a kill.
func tmpFile(dir string) (*os.File, error) {
	fd, err := openTmpFile(dir)
	if err != nil {
		return unnamedTemp(dir)
	}
	return os.NewFile(uintptr(fd), ""), nil // no name: close removes none
}
