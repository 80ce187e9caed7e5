package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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
// count: the catalog is built anew, in memory, from Listed, so private rows
// never reach it; rowids are numbered 1, 2, 3, … in id order; and VACUUM INTO
// writes it to the file packed, with no free page. The same listed skills give a byte-identical file, whatever the private
// skills and the order they were loaded in.
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
	skills, err := db.Listed(ctx, "")
	if err != nil {
		return err
	}

	// Build the catalog in memory from the listed rows alone, then write it
	// with VACUUM INTO: one pass, no free page, a layout that depends on the
	// rows alone. The file is made next to path and renamed, so that path is
	// never half-written.
	out, err := open(ctx, ":memory:")
	if err != nil {
		return err
	}
	defer out.Close()
	if err := writeCatalog(ctx, out, skills); err != nil {
		return err
	}

	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if err := f.Close(); err != nil { // VACUUM INTO accepts an empty file.
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	// tmp is absolute, so never a "file:" URI: SQLite takes it literally.
	if _, err := out.ExecContext(ctx, "VACUUM INTO ?", tmp); err != nil {
		return fmt.Errorf("vacuum: %w", err)
	}
	if err := out.Close(); err != nil {
		return err
	}
	// A published file: readable by all, whatever CreateTemp chose.
	if err := os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// writeCatalog creates the export schema in out and inserts skills, in one
// transaction.
func writeCatalog(ctx context.Context, out *sql.DB, skills []Skill) error {
	tx, err := out.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, exportSchema); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	insertSkill, err := tx.PrepareContext(ctx, `INSERT INTO skills
	(id, name, version, capability_type, access, summary, provider_name, descriptor, digest)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer insertSkill.Close()
	insertTag, err := tx.PrepareContext(ctx, `INSERT INTO skill_tags (skill_id, tag, position) VALUES (?, ?, ?)`)
	if err != nil {
		return err
	}
	defer insertTag.Close()
	for _, s := range skills { // ordered by id, so rowids follow ids
		if _, err := insertSkill.ExecContext(ctx,
			s.ID, s.Name, s.Version, s.CapabilityType, s.Access,
			s.Summary, s.ProviderName, string(s.Descriptor), s.Digest); err != nil {
			return fmt.Errorf("skill %q: %w", s.ID, err)
		}
		for pos, tag := range s.Tags {
			if _, err := insertTag.ExecContext(ctx, s.ID, tag, pos); err != nil {
				return fmt.Errorf("skill %q: tag %q: %w", s.ID, tag, err)
			}
		}
	}
	if _, err := tx.ExecContext(ctx, "PRAGMA user_version = "+strconv.Itoa(exportVersion)); err != nil {
		return err
	}
	return tx.Commit()
}
