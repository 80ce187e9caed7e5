package build

import (
	"errors"
	"io/fs"

	"golang.org/x/sys/unix"
)

// readsDirect is whether sources in os.DirFS are read by readFile with
// their path joined as on Linux, not through the fs.FS.
const readsDirect = true

// readFile reads the regular file name whole, as os.ReadFile does, in five
// system calls (open, fstat, two reads, close) where os.ReadFile makes ten:
// os.Open offers each file to the network poller, which refuses a regular
// file only after two fcntl calls and a failed epoll_ctl, then two more
// fcntl calls put it back. A cold build of 10,000 skills reads 19,000
// files this way (its sources, and the descriptors catalog.sqlite copies).
//
// The file is opened without blocking (O_NONBLOCK) and refused with
// errNotRegular unless its fstat says it is a regular file, so a FIFO put
// at name is never waited on. Errors are *fs.PathError, as os's are.
func readFile(name string) ([]byte, error) {
	fd, err := unix.Open(name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	for errors.Is(err, unix.EINTR) {
		fd, err = unix.Open(name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, errNotRegular
	}
	// One byte more than the size, so that the read which finds the end
	// needs no larger buffer; a file that grew since the fstat grows it.
	buf := make([]byte, 0, st.Size+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}
