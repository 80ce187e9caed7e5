package store

import (
	"fmt"
	"runtime/debug"
)

// A build reads the cache file through a memory mapping (mmap_size): if
// another program cuts the file short meanwhile (a copy or a restore over
// it, a truncate), the next read of a page past its new end is a SIGBUS,
// which the Go runtime makes a fatal error, a crash dump. GuardFaults,
// deferred first thing in each method that reads the cache (so that it
// runs before any caller's deferred cleanup, which would wait forever on
// the connection the fault left locked), makes such a fault a call of
// OnFault instead.

// OnFault, when set, is called with an error wrapping ErrCorrupt on the
// goroutine where a read of the cache faulted (see GuardFaults). SQLite's
// state on that connection is lost (its locks stay held), so it must not
// be used again: OnFault is expected to end the process (skillcat build
// says what happened and exits). When it returns, or is nil, the fault
// panics on as before.
var OnFault func(err error)

// GuardFaults makes a memory fault on the calling goroutine a panic, and
// returns the function to defer (defer GuardFaults()()) that hands such a
// panic to OnFault; any other panic goes on. Without an OnFault it does
// nothing.
func GuardFaults() func() {
	if OnFault == nil {
		return noGuard // the fault stays fatal: nothing could use the cache after it
	}
	if debug.SetPanicOnFault(true) {
		return guardWas[1]
	}
	return guardWas[0]
}

// noGuard and guardWas are GuardFaults' answers, made once: a build calls
// it some 20,000 times.
var (
	noGuard  = func() {}
	guardWas = [2]func(){func() { handFault(recover(), false) }, func() { handFault(recover(), true) }}
)

// handFault ends GuardFaults with what the deferred call recovered (r):
// it restores the goroutine's setting (old) and hands a fault's panic to
// OnFault.
func handFault(r any, old bool) {
	debug.SetPanicOnFault(old)
	if r == nil {
		return
	}
	if f, ok := r.(interface{ Addr() uintptr }); ok && OnFault != nil {
		OnFault(fmt.Errorf("read cache: %w: a read of the file faulted (at %#x): another program cut it short while the build read it", ErrCorrupt, f.Addr()))
	}
	panic(r)
}
