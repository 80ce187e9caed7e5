package store

import (
	"database/sql/driver"
	"fmt"
	"strconv"
	"sync"

	"modernc.org/sqlite"
)

// An index may keep its descriptors aside (DB.KeepDescriptorsAside): its
// rows are inserted without their descriptor bytes, which the caller holds
// (a cold build has written each listed skill's published descriptor into
// its new tree before the row is added), and every read of a descriptor
// asks the caller instead. A 10,000-skill build's temporary index then
// holds ~8 MB instead of ~50 MB, which SQLite no longer copies into its
// pages, writes to its temporary file and reads back for the export; at
// 100,000 skills, ~700 MB on a disk's page cache.
//
// SQL reads them through asideSQL(handle, id), a function of SQLite's that
// asks the function the index of that handle was given.

// asideSQL names the SQL function that gives a descriptor kept aside.
const asideSQL = "skillcat_descriptor_aside"

// asides holds the functions of the indexes that keep their descriptors
// aside, by handle.
var asides = struct {
	sync.Mutex
	next int64
	of   map[int64]func(id string) ([]byte, error)
}{of: map[int64]func(string) ([]byte, error){}}

func init() {
	// Registered before any connection is opened: SQLite gives a
	// connection the functions registered when it opens.
	sqlite.MustRegisterFunction(asideSQL, &sqlite.FunctionImpl{NArgs: 2, Deterministic: true, Scalar: asideFunc})
}

// asideFunc is asideSQL: the descriptor, a BLOB, of the skill args[1] of
// the index whose handle is args[0] (SQLite copies it).
func asideFunc(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
	h, _ := args[0].(int64)
	id, _ := args[1].(string)
	asides.Lock()
	fn := asides.of[h]
	asides.Unlock()
	if fn == nil {
		return nil, fmt.Errorf("descriptor %q: no descriptors kept aside for index %d", id, h)
	}
	d, err := fn(id)
	if err != nil {
		return nil, fmt.Errorf("descriptor %q: %w", id, err)
	}
	return d, nil
}

// KeepDescriptorsAside makes db keep no descriptor bytes: the rows a
// Loader adds from then on are inserted without them, and fn gives the
// descriptor of a listed skill by its id wherever db would read its own
// (Descriptor, EachDescriptor, Listed, Export). It is called on a new
// temporary index (OpenTemp), before the load; Close forgets fn.
func (db *DB) KeepDescriptorsAside(fn func(id string) ([]byte, error)) {
	asides.Lock()
	defer asides.Unlock()
	asides.next++
	db.aside = asides.next
	asides.of[db.aside] = fn
}

// forgetAside drops db's function, if it kept its descriptors aside.
func (db *DB) forgetAside() {
	if db.aside == 0 {
		return
	}
	asides.Lock()
	delete(asides.of, db.aside)
	asides.Unlock()
}

// descriptorAside returns the descriptor of skill id kept aside by db.
func (db *DB) descriptorAside(id string) ([]byte, error) {
	asides.Lock()
	fn := asides.of[db.aside]
	asides.Unlock()
	return fn(id)
}

// descriptorSQL is the SQL that reads a row's descriptor as TEXT: the
// column, or what the caller kept aside.
func (db *DB) descriptorSQL() string {
	if db.aside != 0 {
		return "CAST(" + asideSQL + "(" + strconv.FormatInt(db.aside, 10) + ", id) AS TEXT)"
	}
	return "CAST(descriptor AS TEXT)"
}
