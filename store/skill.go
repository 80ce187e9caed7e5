package store

import (
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	skillcat "github.com/skillcat/skillcat"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// capabilityTypes are the values of Row.CapabilityType: those of the
// root package, which the CHECK constraint in migrations/0001_init.sql
// spells out in SQL (a test keeps the two in step).
var capabilityTypes = func() []string {
	out := make([]string, len(skillcat.CapabilityTypes))
	for i, t := range skillcat.CapabilityTypes {
		out[i] = string(t)
	}
	return out
}()

// DuplicateError reports a second source claiming an id already indexed.
type DuplicateError struct {
	ID     string
	Source string // the source that was rejected
	Other  string // the source that already holds the id
}

// Error reports the id and the source that already holds it; the rejected
// source is e.Source.
func (e *DuplicateError) Error() string {
	return fmt.Sprintf("id %q is already used by %s", e.ID, e.Other)
}

var (
	insertSkillSQL = `INSERT INTO skills (` + rowNames() + `) VALUES (` + placeholders(len(rowColumns)) + `)`
	listedAllSQL   = `SELECT ` + rowNames() + ` FROM skills WHERE access <> 'private' ORDER BY id`
	listedTypeSQL  = `SELECT ` + rowNames() + ` FROM skills WHERE access <> 'private' AND capability_type = ? ORDER BY id`
	countAllSQL    = `SELECT count(*) FROM skills WHERE access <> 'private'`
	countTypeSQL   = `SELECT count(*) FROM skills WHERE access <> 'private' AND capability_type = ?`
)

const (
	insertTagSQL  = `INSERT INTO skill_tags (skill_id, tag, position) VALUES (?, ?, ?)`
	insertTagsSQL = `INSERT INTO skill_tags (skill_id, tag, position) SELECT ?, value, key FROM json_each(?)`
	holderSQL     = `SELECT source FROM skills WHERE id = ?`
	tagsSQL       = `SELECT skill_id, tag, position FROM skill_tags ORDER BY skill_id`
	countSQL      = `SELECT capability_type, count(*) FROM skills WHERE access <> 'private'
	GROUP BY capability_type ORDER BY capability_type`
)

// Load inserts the skills in one transaction, in the order given. The unique
// index on skills.id is what detects duplicates: when a skill's id is
// already indexed, by an earlier Load or earlier in skills, Load finds the
// source that holds it, records a *DuplicateError, and goes on with the rest.
// It returns every duplicate found, in order (nil when none), and a non-nil
// error only for a real failure, such as a capability type or access the
// schema does not allow; then nothing of skills is loaded.
func (db *DB) Load(ctx context.Context, skills []Row) ([]*DuplicateError, error) {
	l, err := db.NewLoader(ctx)
	if err != nil {
		return nil, err
	}
	defer l.Close()
	var dups []*DuplicateError
	for i := range skills {
		dup, err := l.Add(ctx, &skills[i])
		if err != nil {
			return nil, err
		}
		if dup != nil {
			dups = append(dups, dup)
		}
	}
	more, err := l.Commit()
	if err != nil {
		return nil, err
	}
	return append(dups, more...), nil
}

// Loader inserts skills one at a time in one transaction, so a build can
// load each skill as soon as it is parsed instead of holding them all.
// Nothing is visible to queries until Commit (or, after CommitAside, its
// wait).
//
// A load into an empty index (the build's temporary index, or the index
// of a new rebuild cache: FromEmpty) leaves out, until Commit, what each
// insert would otherwise keep in order: the indexes on skills, the unique
// one on id among them, and the skill_tags table (heldBack). Rows arrive in source order, their ids in no order, so
// each insert into those B-trees lands anywhere in them, and past ~10,000
// skills they outgrow SQLite's page cache (each insert a page spilled and
// one read back: at 100,000 skills the index insert took 1.4 times the CPU
// per row). Commit makes each of them once, sorted; the unique index's
// CREATE is then the check that finds duplicate ids.
type Loader struct {
	tx          *sql.Tx // nil for the index of a rebuild cache: its transaction decides
	q           querier
	kept        *CacheTx // the cache whose index this is, told of every row changed
	insertSkill *sql.Stmt
	insertTag   *sql.Stmt
	insertTags  *sql.Stmt // every tag of a skill at once (tagList)
	removeTags  *sql.Stmt // prepared by remove, at its first call
	removeSkill *sql.Stmt
	aside       bool // rows are inserted without their descriptor bytes (KeepDescriptorsAside)
	// held are the rows added, for Commit (their tags wait for it:
	// addTags) and Listing, when holding: when the index is not a rebuild
	// cache's, or is a new one's; ctx is the load's.
	held    heldRows
	holding bool
	ctx     context.Context
	// heldBack are the statements that make what a load into an empty
	// index leaves out until Commit, in schema order (nil for any other
	// load); rejected are the sources of the rows Commit found to be
	// duplicates, left out of the listing and the tags.
	heldBack []string
	rejected map[string]bool
	// listing is what Listing returns after CommitAside, made before the
	// tags are inserted on a goroutine of their own.
	listing   []Row
	listingOK bool
	settling  bool // CommitAside left the rest of the commit to a goroutine
}

// NewLoader begins a load. Until Commit, CommitAside's wait or Close, the
// DB serves no other query. On the index of a rebuild cache
// (CacheTx.Index) the load is part of the cache's transaction: Commit and
// Close then only end it, and the rows are kept or dropped with that
// transaction.
func (db *DB) NewLoader(ctx context.Context) (*Loader, error) {
	l := &Loader{q: db.q, kept: db.kept, ctx: ctx, aside: db.aside != 0}
	if db.db != nil {
		tx, err := db.db.BeginTx(ctx, nil)
		if err != nil {
			return nil, fmt.Errorf("load skills: %w", err)
		}
		l.tx, l.q = tx, tx
	}
	// The index of a rebuild cache is loaded as the temporary one is
	// only when the cache is new: it holds no skill and no source, so
	// that no row is replaced and no source's row removed.
	empty := emptySQL
	if l.kept != nil {
		empty = emptyCacheSQL
	}
	var err error
	l.heldBack, err = holdBack(ctx, l.q, empty)
	l.holding = l.kept == nil || l.heldBack != nil
	if l.kept != nil && l.heldBack != nil {
		l.kept.fromEmpty() // every row it will hold is this build's
	}
	if err == nil {
		l.insertSkill, err = l.q.PrepareContext(ctx, insertSkillSQL)
	}
	if err == nil && l.heldBack == nil {
		err = l.prepareTags(ctx)
	}
	if err != nil {
		l.Close()
		return nil, fmt.Errorf("load skills: %w", err)
	}
	return l, nil
}

// FromEmpty reports whether the load began on an empty index (a new
// rebuild cache's, or the temporary one): Add then inserts each row with
// no index to check it against, and Commit finds the duplicates.
func (l *Loader) FromEmpty() bool { return l.heldBack != nil }

// prepareTags prepares the statements that insert tags.
func (l *Loader) prepareTags(ctx context.Context) error {
	var err error
	if l.insertTag, err = l.q.PrepareContext(ctx, insertTagSQL); err == nil {
		l.insertTags, err = l.q.PrepareContext(ctx, insertTagsSQL)
	}
	return err
}

// heldBackSQL selects what a load into an empty index leaves out until
// its commit, in the order the schema made it: the indexes on skills that
// have a CREATE statement (a UNIQUE column constraint's has none, and
// stays), and the skill_tags table with its indexes. The table goes too,
// as it is empty then and its foreign key needs the unique index on id
// whenever a row of skills is deleted.
const heldBackSQL = `SELECT type, name, tbl_name, sql FROM sqlite_schema
WHERE sql IS NOT NULL AND (type = 'index' AND tbl_name = 'skills' OR tbl_name = 'skill_tags') ORDER BY rowid`

// The queries that say whether an index is empty for holdBack: the
// temporary index, and the index of a rebuild cache, which must hold no
// source either.
const (
	emptySQL      = `SELECT NOT EXISTS (SELECT 1 FROM skills)`
	emptyCacheSQL = `SELECT NOT EXISTS (SELECT 1 FROM skills) AND NOT EXISTS (SELECT 1 FROM sources)`
)

// holdBack drops, when the index is empty (the query empty says so), what
// heldBackSQL selects, and returns the statements that make it again;
// nil when the index is not empty.
func holdBack(ctx context.Context, q querier, empty string) ([]string, error) {
	var is bool
	if err := q.QueryRowContext(ctx, empty).Scan(&is); err != nil || !is {
		return nil, err
	}
	rows, err := q.QueryContext(ctx, heldBackSQL)
	if err != nil {
		return nil, err
	}
	var stmts, drop []string
	for rows.Next() {
		var typ, name, table, stmt string
		if err := rows.Scan(&typ, &name, &table, &stmt); err != nil {
			rows.Close()
			return nil, err
		}
		stmts = append(stmts, stmt)
		switch {
		case typ == "table":
			drop = append(drop, `DROP TABLE "`+name+`"`)
		case table == "skills":
			drop = append(drop, `DROP INDEX "`+name+`"`)
		} // an index of skill_tags goes with the table
	}
	if err := closeRows(rows); err != nil {
		return nil, err
	}
	for _, stmt := range drop {
		if _, err := q.ExecContext(ctx, stmt); err != nil {
			return nil, err
		}
	}
	return stmts, nil
}

// duplicatesSQL finds the rows whose id an earlier row holds, in the order
// they were loaded, each with the source of the first row of its id.
const duplicatesSQL = `SELECT r, id, source, holder FROM (
	SELECT rowid AS r, id, source, first_value(source) OVER w AS holder, row_number() OVER w AS n
	FROM skills WINDOW w AS (PARTITION BY id ORDER BY rowid))
WHERE n > 1 ORDER BY r`

// restore makes again what holdBack dropped, in schema order. When the
// unique index on id cannot be made (SQLite's UNIQUE constraint error),
// the rows whose id an earlier row holds are found (duplicatesSQL),
// deleted, and returned as duplicates; then it is made.
func (l *Loader) restore(ctx context.Context) ([]*DuplicateError, error) {
	var dups []*DuplicateError
	for _, stmt := range l.heldBack {
		_, err := l.q.ExecContext(ctx, stmt)
		if isUniqueViolation(err) && dups == nil {
			if dups, err = l.dropDuplicates(ctx); err == nil {
				_, err = l.q.ExecContext(ctx, stmt)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return dups, l.prepareTags(ctx)
}

// dropDuplicates deletes the rows whose id an earlier row holds and
// returns them as duplicates, in the order they were loaded.
func (l *Loader) dropDuplicates(ctx context.Context) ([]*DuplicateError, error) {
	rows, err := l.q.QueryContext(ctx, duplicatesSQL)
	if err != nil {
		return nil, err
	}
	var dups []*DuplicateError
	var rowids []int64
	for rows.Next() {
		var rowid int64
		d := &DuplicateError{}
		if err := rows.Scan(&rowid, &d.ID, &d.Source, &d.Other); err != nil {
			rows.Close()
			return nil, err
		}
		dups, rowids = append(dups, d), append(rowids, rowid)
	}
	if err := closeRows(rows); err != nil {
		return nil, err
	}
	l.rejected = map[string]bool{}
	for i, rowid := range rowids {
		if _, err := l.q.ExecContext(ctx, `DELETE FROM skills WHERE rowid = ?`, rowid); err != nil {
			return nil, err
		}
		l.rejected[dups[i].Source] = true
	}
	return dups, nil
}

// Remove deletes the skill loaded from source, if any, with its tags: the
// row of a source that changed, before its new row is added.
func (l *Loader) Remove(ctx context.Context, source string) error {
	defer GuardFaults()() // a read of a cache file cut short (OnFault)
	if err := l.remove(ctx, source); err != nil {
		return fmt.Errorf("remove skill of %s: %w", source, err)
	}
	if l.kept != nil {
		l.kept.touch(source)
	}
	return nil
}

// The statements that delete the index row of a source and its tags.
const (
	removeTagsSQL  = `DELETE FROM skill_tags WHERE skill_id IN (SELECT id FROM skills WHERE source = ?)`
	removeSkillSQL = `DELETE FROM skills WHERE source = ?`
)

// removeIndexed deletes the index row of source and its tags.
func removeIndexed(ctx context.Context, q querier, source string) error {
	_, err := q.ExecContext(ctx, removeTagsSQL+";\n"+removeSkillSQL, source, source)
	return err
}

// remove is removeIndexed by statements prepared at the first call: a
// rebuild cache's first build removes the row of each of its sources
// before adding it, and SQLite parsed the two statements again each time
// (62 % of Remove's CPU in a cold build with the cache of 10,000 skills).
func (l *Loader) remove(ctx context.Context, source string) error {
	var err error
	if l.removeTags == nil {
		if l.removeTags, err = l.q.PrepareContext(ctx, removeTagsSQL); err != nil {
			return err
		}
	}
	if l.removeSkill == nil {
		if l.removeSkill, err = l.q.PrepareContext(ctx, removeSkillSQL); err != nil {
			return err
		}
	}
	ctx = rowContext(ctx)
	if _, err := l.removeTags.ExecContext(ctx, source); err != nil {
		return err
	}
	_, err = l.removeSkill.ExecContext(ctx, source)
	return err
}

// Add inserts one skill. When its id is already indexed, the unique index
// rejects it and Add returns a *DuplicateError naming the source that holds
// the id; the load goes on. In a load into an empty index that index is
// made by Commit, which returns those duplicates instead. The error is for
// real failures.
func (l *Loader) Add(ctx context.Context, s *Row) (*DuplicateError, error) {
	defer GuardFaults()() // a read of a cache file cut short (OnFault)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ctx = rowContext(ctx)
	if l.kept != nil {
		l.kept.touch(s.Source)
	}
	args := s.args()
	if l.aside {
		args[descriptorAt] = []byte{} // kept aside: an empty BLOB, not NULL
	}
	_, err := l.insertSkill.ExecContext(ctx, args...)
	if isUniqueViolation(err) {
		// The failed INSERT wrote nothing and the transaction goes on.
		var other string
		if err := l.q.QueryRowContext(ctx, holderSQL, s.ID).Scan(&other); err != nil {
			return nil, fmt.Errorf("load skill %q: find holder of id: %w", s.ID, err)
		}
		return &DuplicateError{ID: s.ID, Source: s.Source, Other: other}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load skill %q from %s: %w", s.ID, s.Source, err)
	}
	if !l.holding {
		return nil, l.insertRowTags(ctx, s.ID, s.Source, s.Tags)
	}
	l.held.add(s, s.Access != string(skillcat.Private))
	return nil, nil
}

// insertRowTags inserts the tags of the row of id loaded from source.
func (l *Loader) insertRowTags(ctx context.Context, id, source string, tags []string) error {
	if list, ok := tagList(tags); ok {
		if _, err := l.insertTags.ExecContext(ctx, id, list); err != nil {
			return fmt.Errorf("load skill %q from %s: tags: %w", id, source, err)
		}
		return nil
	}
	for pos, tag := range tags {
		if _, err := l.insertTag.ExecContext(ctx, id, tag, pos); err != nil {
			return fmt.Errorf("load skill %q from %s: tag %q: %w", id, source, tag, err)
		}
	}
	return nil
}

// addTags inserts the tags that wait for Commit (t, heldRows.tagged), in
// id order: the skill_tags table is keyed by skill id, so that its
// inserts then append to its B-tree instead of landing anywhere in it,
// which past ~10,000 skills outgrows SQLite's page cache (each insert a
// page spilled and read again; the index insert 1.46 times the CPU per
// row at 100,000).
func (l *Loader) addTags(ctx context.Context, t *heldRows) error {
	rctx := rowContext(ctx)
	var tags []string
	for i := range t.rows {
		if err := ctx.Err(); err != nil {
			return err
		}
		tags = tags[:0]
		for _, n := range t.tagsOf(i) {
			tags = append(tags, t.tagNames[n])
		}
		if err := l.insertRowTags(rctx, string(t.field(i, heldID)), string(t.field(i, heldSource)), tags); err != nil {
			return err
		}
	}
	return nil
}

// tagged is what addTags inserts: the held rows with tags whose sources
// were not rejected, in id order.
func (l *Loader) tagged() *heldRows {
	return l.held.tagged(func(source []byte) bool { return !l.rejected[string(source)] })
}

// rowContext is ctx for the statements of one row, which take
// microseconds: without its cancellation, which would cost modernc's
// driver a goroutine a statement to watch it (interruptOnDone: ~2 a
// skill, 200,000 goroutines at 100,000 skills). The caller looks at ctx
// between rows instead.
func rowContext(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }

// Listing returns the listed rows Add inserted, in id order, as
// ListedEntries("") returns them once the load is committed into an index
// that held no row before it (the build's temporary index, a new rebuild
// cache's), without reading the index again; ok is false on the index of
// a rebuild cache that held rows, whose load replaces some of them. It is
// called once, after Commit or CommitAside (which find some duplicates).
func (l *Loader) Listing() (rows []Row, ok bool) {
	if l.listingOK {
		rows, l.listing, l.listingOK = l.listing, nil, false
		return rows, true
	}
	if !l.holding {
		return nil, false
	}
	rows = l.held.listing(func(source []byte) bool { return !l.rejected[string(source)] })
	l.held = heldRows{}
	slices.SortFunc(rows, func(a, b Row) int { return strings.Compare(a.ID, b.ID) })
	return rows, true
}

// tagList is tags as a JSON array, for inserting them all in one statement
// (json_each gives each tag with its position); ok is false when there are
// fewer than two, or when one holds what JSON would not carry through
// byte for byte (a NUL, invalid UTF-8), which are then inserted one by one.
func tagList(tags []string) (list string, ok bool) {
	if len(tags) < 2 {
		return "", false
	}
	for _, t := range tags {
		if !utf8.ValidString(t) || strings.IndexByte(t, 0) >= 0 {
			return "", false
		}
	}
	data, err := json.Marshal(tags)
	return string(data), err == nil
}

// Commit makes the loaded skills visible. In a load into an empty index
// it first makes the indexes the load left out, the unique one on id
// among them: it returns the duplicates that one finds, in the order they
// were added (each row whose id an earlier row holds is not kept), as Add
// returns them in any other load. The error is for real failures.
func (l *Loader) Commit() ([]*DuplicateError, error) {
	dups, err := l.restoreHeld()
	if err != nil {
		return nil, err
	}
	if err := l.settle(l.tx, l.tagged()); err != nil {
		return nil, err
	}
	return dups, nil
}

// CommitAside is Commit that returns as soon as the duplicates are known:
// in a load that is its own transaction into an empty index (the build's
// temporary index) where none was found, the tags are then inserted
// (addTags) and the transaction committed on a goroutine of its own, and
// wait returns how that ended. Until it has, the DB serves no other
// query: a query waits for the load's connection, the DB's one, as it
// does during the load. Listing may be called before wait, and Close
// after CommitAside does nothing: the caller waits before it closes the
// DB, and fails if wait fails. Any other load is committed by Commit
// before CommitAside returns, and wait returns nil.
func (l *Loader) CommitAside() (dups []*DuplicateError, wait func() error, err error) {
	done := func() error { return nil }
	if dups, err = l.restoreHeld(); err != nil {
		return nil, done, err
	}
	if l.tx == nil || l.heldBack == nil || dups != nil {
		if err := l.settle(l.tx, l.tagged()); err != nil {
			return nil, done, err
		}
		return dups, done, nil
	}
	// The goroutine gets only what addTags reads of the held rows, which
	// the listing then drops.
	tagged := l.tagged()
	l.listing, l.listingOK = l.Listing()
	l.holding, l.settling = false, true
	ended := make(chan error, 1)
	go func(tx *sql.Tx) {
		settleStarts()
		ended <- l.settle(tx, tagged)
	}(l.tx)
	return nil, sync.OnceValue(func() error { return <-ended }), nil
}

// settleStarts is called by CommitAside's goroutine before it goes on
// with the commit: a test cancels the load there.
var settleStarts = func() {}

// restoreHeld makes again, in a load into an empty index, what the load
// left out (restore), and returns the duplicates found.
func (l *Loader) restoreHeld() ([]*DuplicateError, error) {
	if l.heldBack == nil {
		return nil, nil
	}
	dups, err := l.restore(l.ctx)
	if err != nil {
		l.Close()
		return nil, fmt.Errorf("load skills: %w", err)
	}
	return dups, nil
}

// settle inserts the tags that wait for the commit (tagged) and commits
// tx, the load's own transaction, if it has one; on failure tx is rolled
// back.
func (l *Loader) settle(tx *sql.Tx, tagged *heldRows) error {
	if err := l.addTags(l.ctx, tagged); err != nil {
		l.closeStmts()
		if tx != nil {
			tx.Rollback()
		}
		return err
	}
	l.closeStmts()
	if tx == nil {
		return nil
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("load skills: %w", err)
	}
	return nil
}

// Close abandons a load that was not committed; after Commit or
// CommitAside it does nothing.
func (l *Loader) Close() error {
	if l.settling {
		return nil // the transaction is settle's
	}
	l.closeStmts()
	if l.tx == nil {
		return nil
	}
	err := l.tx.Rollback()
	if errors.Is(err, sql.ErrTxDone) {
		return nil
	}
	return err
}

func (l *Loader) closeStmts() {
	for _, st := range []*sql.Stmt{l.insertSkill, l.insertTag, l.insertTags, l.removeTags, l.removeSkill} {
		if st != nil {
			st.Close()
		}
	}
}

// ListedKey returns a digest of everything Export writes, given the listed
// skills (ListedEntries of all types): their rows and tags. Equal keys mean
// equal exports.
//
// Each row's fields, a NUL after each (its tags joined by NULs as one
// field), and a 1 after the row are gathered in a buffer hashed 8 KiB at a
// time, not a Write per field with a slice and a join per row (100,000
// allocations at 10,000 skills), the same bytes: a rebuild makes two calls
// (the catalog's key, the type indexes').
func ListedKey(skills []Row) string {
	h := sha256.New()
	buf := make([]byte, 0, 9<<10)
	for i := range skills {
		s := &skills[i]
		for _, f := range [...]string{s.ID, s.Name, s.Version, s.CapabilityType, s.Access, s.Summary, s.ProviderName, s.Digest} {
			buf = append(append(buf, f...), 0)
		}
		for j, t := range s.Tags {
			if j > 0 {
				buf = append(buf, 0)
			}
			buf = append(buf, t...)
		}
		buf = append(buf, 0, 1)
		if len(buf) >= 8<<10 {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil))
}

// Descriptor returns the published descriptor bytes of a listed skill.
func (db *DB) Descriptor(ctx context.Context, id string) ([]byte, error) {
	var d []byte
	err := db.q.QueryRowContext(ctx, `SELECT descriptor FROM skills WHERE id = ? AND access <> 'private'`, id).Scan(&d)
	if err == nil && db.aside != 0 {
		d, err = db.descriptorAside(id)
	}
	if err != nil {
		return nil, fmt.Errorf("descriptor %q: %w", id, err)
	}
	return d, nil
}

// EachDescriptor calls fn with the id and published descriptor bytes of
// every listed (non-private) skill, in id order, streaming them so that
// they never all sit in memory. fn must not use the DB.
func (db *DB) EachDescriptor(ctx context.Context, fn func(id string, descriptor []byte) error) error {
	rows, err := db.q.QueryContext(ctx, `SELECT id, descriptor FROM skills WHERE access <> 'private' ORDER BY id`)
	if err != nil {
		return fmt.Errorf("list descriptors: %w", err)
	}
	for rows.Next() {
		var id string
		var d []byte
		err := rows.Scan(&id, &d)
		if err == nil && db.aside != 0 {
			d, err = db.descriptorAside(id)
		}
		if err != nil {
			rows.Close()
			return fmt.Errorf("list descriptors: %w", err)
		}
		if err := fn(id, d); err != nil {
			rows.Close()
			return err
		}
	}
	return closeRows(rows)
}

// isUniqueViolation reports whether err is SQLite's UNIQUE constraint error.
// The driver turns on extended result codes, so the code tells a UNIQUE
// violation (2067) from a CHECK (275) or NOT NULL (1299) one; skills has no
// other unique index than the one on id.
func isUniqueViolation(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code() == sqlite3.SQLITE_CONSTRAINT_UNIQUE
}

// Listed returns the non-private skills ordered by id; capabilityType "" means
// all types. It returns an error for a capabilityType that is not one of
// plugin, api, knowledge or task.
func (db *DB) Listed(ctx context.Context, capabilityType string) ([]Row, error) {
	skills, err := db.listed(ctx, capabilityType, true)
	if err != nil {
		if capabilityType == "" {
			return nil, fmt.Errorf("list skills: %w", err)
		}
		return nil, fmt.Errorf("list %s skills: %w", capabilityType, err)
	}
	return skills, nil
}

// ListedEntries is Listed without the descriptor bytes: what an index or a
// list page needs, in a fraction of the memory.
func (db *DB) ListedEntries(ctx context.Context, capabilityType string) ([]Row, error) {
	defer GuardFaults()() // a read of a cache file cut short (OnFault)
	skills, err := db.listed(ctx, capabilityType, false)
	if err != nil {
		return nil, fmt.Errorf("list skills: %w", err)
	}
	return skills, nil
}

func (db *DB) listed(ctx context.Context, capabilityType string, withDescriptors bool) ([]Row, error) {
	skillsSQL, countSQL, args := listedAllSQL, countAllSQL, []any(nil)
	if capabilityType != "" {
		if !slices.Contains(capabilityTypes, capabilityType) {
			return nil, fmt.Errorf("unknown capability type %q", capabilityType)
		}
		skillsSQL, countSQL, args = listedTypeSQL, countTypeSQL, []any{capabilityType}
	}
	if !withDescriptors {
		skillsSQL = strings.Replace(skillsSQL, " descriptor,", " x'' AS descriptor,", 1)
	}
	// One transaction, so that the skills and their tags are one snapshot
	// (the index of a rebuild cache is read inside the cache's).
	var tx querier = db.q
	if db.db != nil {
		t, err := db.db.BeginTx(ctx, nil)
		if err != nil {
			return nil, err
		}
		defer t.Rollback()
		tx = t
	}

	// The listing of a large catalog is held for a whole render: it is
	// made to the size counted, and each row's strings share one
	// allocation (pack), so that the collector traces one object a row.
	var n int
	if err := tx.QueryRowContext(ctx, countSQL, args...).Scan(&n); err != nil {
		return nil, err
	}
	skills := make([]Row, 0, n)
	rows, err := tx.QueryContext(ctx, skillsSQL, args...)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var s Row
		if err := rows.Scan(s.dest()...); err != nil {
			rows.Close()
			return nil, err
		}
		if withDescriptors && db.aside != 0 {
			if s.Descriptor, err = db.descriptorAside(s.ID); err != nil {
				rows.Close()
				return nil, err
			}
		}
		s.pack()
		skills = append(skills, s)
	}
	if err := closeRows(rows); err != nil {
		return nil, err
	}

	// The tags are read in the table's own order (skill id, then tag: a
	// scan, where a join with skills in listing order sorted every
	// skill's tags by position in a temporary b-tree), and each skill's
	// put in position order here. Both are in id order, so each tag's
	// skill is at or after the last one's; the tags of skills not listed
	// (private, or of another type) are passed over. Tags recur across
	// skills: each is held once.
	rows, err = tx.QueryContext(ctx, tagsSQL)
	if err != nil {
		return nil, err
	}
	held := map[string]string{}
	var id, tag sql.RawBytes // reused: valid until the next row
	var pos int64
	var at []int64 // the positions of the tags of skills[cur]
	i, cur := 0, -1
	for rows.Next() {
		if err := rows.Scan(&id, &tag, &pos); err != nil {
			rows.Close()
			return nil, err
		}
		if cur < 0 || skills[cur].ID != string(id) {
			if cur >= 0 {
				skills[cur].Tags = inPositionOrder(skills[cur].Tags, at)
				cur = -1
			}
			for i < len(skills) && skills[i].ID < string(id) {
				i++
			}
			if i == len(skills) {
				break // no listed skill is left
			}
			if skills[i].ID != string(id) {
				continue // a skill not listed
			}
			cur, at = i, at[:0]
		}
		t, ok := held[string(tag)]
		if !ok {
			t = string(tag)
			held[t] = t
		}
		skills[cur].Tags = append(skills[cur].Tags, t)
		at = append(at, pos)
	}
	if err := closeRows(rows); err != nil {
		return nil, err
	}
	if cur >= 0 {
		skills[cur].Tags = inPositionOrder(skills[cur].Tags, at)
	}
	return skills, nil
}

// inPositionOrder returns tags in the order of their positions at.
func inPositionOrder(tags []string, at []int64) []string {
	if slices.IsSorted(at) {
		return tags
	}
	order := make([]int, len(tags))
	for k := range order {
		order[k] = k
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(at[a], at[b]) })
	sorted := make([]string, len(tags))
	for k, o := range order {
		sorted[k] = tags[o]
	}
	return sorted
}

// pack makes s's strings substrings of one string, and its capability
// type and access the constants of their values.
func (s *Row) pack() {
	fields := []*string{&s.ID, &s.Name, &s.Version, &s.Summary, &s.ProviderName, &s.Source, &s.Digest}
	n := 0
	for _, f := range fields {
		n += len(*f)
	}
	var b strings.Builder
	b.Grow(n)
	for _, f := range fields {
		b.WriteString(*f)
	}
	all := b.String()
	for _, f := range fields {
		*f, all = all[:len(*f)], all[len(*f):]
	}
	if i := slices.Index(capabilityTypes, s.CapabilityType); i >= 0 {
		s.CapabilityType = capabilityTypes[i]
	}
	if i := slices.Index(accessValues, s.Access); i >= 0 {
		s.Access = accessValues[i]
	}
}

// accessValues are the values of a row's access.
var accessValues = []string{"public", "restricted", "private"}

// closeRows closes rows and returns the first error met iterating or closing.
func closeRows(rows *sql.Rows) error {
	err := rows.Err()
	if cerr := rows.Close(); err == nil {
		err = cerr
	}
	return err
}

// CountByType returns how many of the listed skills (ListedEntries of all
// types) each capability type has: what DB.CountByType reads from the
// index, counted without a query. All four types are present in the map,
// zero included.
func CountByType(listed []Row) map[string]int {
	counts := make(map[string]int, len(capabilityTypes))
	for _, t := range capabilityTypes {
		counts[t] = 0
	}
	for i := range listed {
		counts[listed[i].CapabilityType]++
	}
	return counts
}

// CountByType returns how many listed (non-private) skills each capability
// type has. All four types are present in the map, zero included.
func (db *DB) CountByType(ctx context.Context) (map[string]int, error) {
	counts := make(map[string]int, len(capabilityTypes))
	for _, t := range capabilityTypes {
		counts[t] = 0
	}
	rows, err := db.q.QueryContext(ctx, countSQL)
	if err != nil {
		return nil, fmt.Errorf("count skills by type: %w", err)
	}
	for rows.Next() {
		var t string
		var n int
		if err := rows.Scan(&t, &n); err != nil {
			rows.Close()
			return nil, fmt.Errorf("count skills by type: %w", err)
		}
		counts[t] = n
	}
	if err := closeRows(rows); err != nil {
		return nil, fmt.Errorf("count skills by type: %w", err)
	}
	return counts, nil
}
