package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// exportVersion is the user_version of an exported file: the version of the
// schema below, for those who query it.
const exportVersion = 1

// exportSchema is the schema of the published catalog database. It has no
// source column: where a skill's source lives is the provider's business.
const exportSchema = `
CREATE TABLE skills (
	id              TEXT NOT NULL PRIMARY KEY,
	name            TEXT NOT NULL,
	version         TEXT NOT NULL,
	capability_type TEXT NOT NULL CHECK (capability_type IN ('plugin', 'api', 'knowledge', 'task')),
	access          TEXT NOT NULL CHECK (access IN ('public', 'restricted')),
	summary         TEXT NOT NULL,
	provider_name   TEXT NOT NULL,
	descriptor      TEXT NOT NULL,
	digest          TEXT NOT NULL
);
CREATE INDEX skills_capability_type ON skills (capability_type, id);
CREATE TABLE skill_tags (
	skill_id TEXT NOT NULL REFERENCES skills (id),
	tag      TEXT NOT NULL,
	position INTEGER NOT NULL,
	PRIMARY KEY (skill_id, tag)
) WITHOUT ROWID;
CREATE INDEX skill_tags_tag ON skill_tags (tag, skill_id);
`

// Export writes a fresh SQLite database file at path holding only the listed
// (non-private) skills and their tags: the /catalog.sqlite published for
// anyone who wants to query the catalog with SQL. It replaces any file at
// path, and the directory must exist.
//
// Nothing of a private skill is in the file, not a row, a freed page or a
// count: the file is new and receives only listed rows, so a private row is
// never written to it, nothing is ever deleted from it, and rowids are
// numbered 1, 2, 3, … in id order. The same listed skills give a
// byte-identical file, whatever the private skills and the order they were
// loaded in.
//
// The file holds skills(id, name, version, capability_type, access, summary,
// provider_name, descriptor, digest), with descriptor the published JSON as
// TEXT, and skill_tags(skill_id, tag, position), position counting a skill's
// tags from 0 in source order. Its user_version is 1.
func (db *DB) Export(ctx context.Context, path string) error {
	if err := db.export(ctx, path); err != nil {
		return fmt.Errorf("export catalog to %s: %w", path, err)
	}
	return nil
}

func (db *DB) export(ctx context.Context, path string) (err error) {
	// The catalog is made in a new file next to path, attached to the
	// index's connection, and filled with INSERT … SELECT of the listed rows
	// alone, in id order, so rows stream from one file to the other and
	// private rows never reach it. A fresh file filled by the same
	// statements is byte-identical; it is renamed into place when complete.
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if err := f.Close(); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	conn, err := db.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	// tmp is absolute, so never a "file:" URI: SQLite takes it literally.
	if _, err := conn.ExecContext(ctx, "ATTACH DATABASE ? AS catalog", tmp); err != nil {
		return fmt.Errorf("attach: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "DETACH DATABASE catalog")
	if err := fillCatalog(ctx, conn); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, "DETACH DATABASE catalog"); err != nil {
		return fmt.Errorf("detach: %w", err)
	}
	// A published file: readable by all, whatever CreateTemp chose.
	if err := os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// fillCatalog creates the export schema in the attached database "catalog"
// and copies the listed skills and their tags into it, in one transaction.
func fillCatalog(ctx context.Context, conn *sql.Conn) error {
	for _, pragma := range []string{"PRAGMA catalog.journal_mode = OFF", "PRAGMA catalog.synchronous = OFF",
		"PRAGMA catalog.user_version = " + strconv.Itoa(exportVersion)} {
		if _, err := conn.ExecContext(ctx, pragma); err != nil {
			return fmt.Errorf("%s: %w", pragma, err)
		}
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	schema := strings.NewReplacer("CREATE TABLE ", "CREATE TABLE catalog.", "CREATE INDEX ", "CREATE INDEX catalog.").Replace(exportSchema)
	for _, stmt := range strings.Split(schema, ";") {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("create schema: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO catalog.skills
	(id, name, version, capability_type, access, summary, provider_name, descriptor, digest)
	SELECT id, name, version, capability_type, access, summary, provider_name, CAST(descriptor AS TEXT), digest
	FROM main.skills WHERE access <> 'private' ORDER BY id`); err != nil {
		return fmt.Errorf("copy skills: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO catalog.skill_tags (skill_id, tag, position)
	SELECT t.skill_id, t.tag, t.position FROM main.skill_tags AS t JOIN main.skills AS s ON s.id = t.skill_id
	WHERE s.access <> 'private' ORDER BY t.skill_id, t.position`); err != nil {
		return fmt.Errorf("copy tags: %w", err)
	}
	return tx.Commit()
}
