// Package store is the SQLite index a build keeps of its skills.
//
// It stores plain rows: what the build knows of each valid source (id, name,
// version, capability type, access, summary, provider name, tags, source path,
// the published descriptor bytes and their digest). It knows nothing of how a
// descriptor is parsed or validated, nor of the site that is made from it.
//
// # Data flow
//
//	[]Row ──Load──► skills, skill_tags ──Listed, CountByType──► pages, indexes
//	                                      └──Export──────────────► /catalog.sqlite
//
// Load is where duplicate ids are found: the unique index on skills.id
// rejects a second source claiming an id (as each row is inserted, or, in
// a load into an empty index, when the load's commit makes that index),
// and Load reports it as a *DuplicateError naming both sources. Private skills are loaded like any
// other, so they take part in that check, but Listed, CountByType and Export
// never return or write anything of them.
//
// # Schema
//
// The schema lives in migrations/NNNN_name.sql, embedded in the binary and
// applied in order by Open. PRAGMA user_version records how many have been
// applied, so opening an existing file applies only the newer ones.
//
// # A build artifact
//
// Without a rebuild cache, the index lives as long as one build; with
// one, it is kept in the cache's own tables and read and updated inside
// the cache's transaction (CacheTx.Index). Open sets journal_mode=MEMORY and
// synchronous=OFF (nothing is worth an fsync here; a crashed build is
// rebuilt) and foreign_keys=ON. All work goes through one connection, so a
// ":memory:" database is one database, and operations from several
// goroutines are serialized.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// pragmas are applied to every connection the driver opens; see the package
// documentation for why these values.
var pragmas = []string{
	"foreign_keys(ON)",
	"journal_mode(MEMORY)",
	"synchronous(OFF)",
}

//go:embed migrations/*.sql
var migrationFS embed.FS

// DB is an open skill index. It is safe for concurrent use; operations run
// one at a time on a single connection.
type DB struct {
	db *sql.DB // nil for the index kept in a rebuild cache (CacheTx.Index)
	q  querier // db, or the cache's transaction
	// kept is the cache transaction whose index this is, or nil.
	kept *CacheTx
	// aside is the handle of the function that gives the descriptors
	// this index keeps aside (KeepDescriptorsAside), or 0.
	aside int64
}

// querier is what the index's operations run on: its own database, or
// the transaction of a rebuild cache that keeps it.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

// Open opens the index at dsn, a file path or ":memory:", creating it when it
// does not exist, and applies the migrations it has not seen yet. A path is
// taken literally, so it may contain '?' or '#'; a dsn beginning with "file:"
// is passed to SQLite as a URI.
func Open(ctx context.Context, dsn string) (*DB, error) {
	db, err := open(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("open store %q: %w", dsn, err)
	}
	if err := migrate(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("open store %q: %w", dsn, err)
	}
	return &DB{db: db, q: db}, nil
}

// Close closes the index. A ":memory:" index is gone once it is closed;
// the index of a rebuild cache stays open with it.
func (db *DB) Close() error {
	db.forgetAside()
	if db.db == nil {
		return nil
	}
	if err := db.db.Close(); err != nil {
		return fmt.Errorf("close store: %w", err)
	}
	return nil
}

// open opens a database on one connection with the build pragmas set and
// checks that it can be reached.
func open(ctx context.Context, dsn string) (*sql.DB, error) {
	full, err := driverDSN(dsn)
	if err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", full)
	if err != nil {
		return nil, err
	}
	// One connection: each connection to ":memory:" is a database of its own,
	// and a build gains nothing from concurrent SQLite access.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// driverDSN turns a path or ":memory:" into the driver's dsn, carrying the
// pragmas as _pragma query parameters so that every connection gets them.
// A path becomes a file: URI so that the characters a URI reserves in it
// ('?', '#', '%') stay part of the name.
func driverDSN(dsn string) (string, error) {
	q := make(url.Values)
	for _, p := range pragmas {
		q.Add("_pragma", p)
	}
	query := q.Encode()
	switch {
	case dsn == "":
		return "", errors.New("empty dsn")
	case dsn == ":memory:":
		// The driver strips the query from a dsn that is not a file: URI.
		return dsn + "?" + query, nil
	case strings.HasPrefix(dsn, "file:"):
		if strings.Contains(dsn, "?") {
			return dsn + "&" + query, nil
		}
		return dsn + "?" + query, nil
	}
	abs, err := filepath.Abs(dsn)
	if err != nil {
		return "", err
	}
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive letter: file:///C:/...
	}
	u := url.URL{Scheme: "file", Path: p, RawQuery: query}
	return u.String(), nil
}

// migration is one schema step, numbered from 1.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations returns the embedded migrations in order. Their names begin
// with their version, and the versions run 1, 2, 3, … without a gap.
func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFS, "migrations")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, e := range entries { // fs.ReadDir sorts by name
		prefix, _, _ := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(prefix)
		if err != nil || v != len(ms)+1 {
			return nil, fmt.Errorf("migration %q: name must begin with version %04d", e.Name(), len(ms)+1)
		}
		b, err := fs.ReadFile(migrationFS, "migrations/"+e.Name())
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: e.Name(), sql: string(b)})
	}
	return ms, nil
}

// migrate applies, each in its own transaction, the migrations newer than the
// database's user_version, and sets user_version to the last one applied.
func migrate(ctx context.Context, db *sql.DB) error {
	ms, err := migrations()
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	var current int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&current); err != nil {
		return fmt.Errorf("migrate: read user_version: %w", err)
	}
	if current > len(ms) {
		return fmt.Errorf("migrate: schema version %d is newer than this program's %d", current, len(ms))
	}
	for _, m := range ms[current:] {
		if err := apply(ctx, db, m); err != nil {
			return fmt.Errorf("migrate: apply %s: %w", m.name, err)
		}
	}
	return nil
}

// apply runs one migration and records its version in one transaction.
func apply(ctx context.Context, db *sql.DB, m migration) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return err
	}
	// PRAGMA takes no bound parameters; the version is an int we parsed.
	if _, err := tx.ExecContext(ctx, "PRAGMA user_version = "+strconv.Itoa(m.version)); err != nil {
		return err
	}
	return tx.Commit()
}

// OpenTemp opens a new, empty index in an anonymous temporary file: SQLite
// removes its name from the temporary folder as soon as it is open, so
// nothing of it (private skills included) outlives the process, however
// it ends, and no other user can open it.
func OpenTemp(ctx context.Context) (*DB, error) { return Open(ctx, "file:") }
