package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/skillcat/skillcat/store"
)

var capabilityTypes = []string{"plugin", "api", "knowledge", "task"}

func TestLoad(t *testing.T) {
	ctx := context.Background()

	t.Run("OK", func(t *testing.T) {
		db := openMemory(t)
		in := []store.Row{
			newSkill("zeta", "task", "public", "z/zeta.json", "b", "a", "c"),
			newSkill("alpha", "api", "restricted", "alpha.md"),
			newSkill("mid.dle-1", "plugin", "public", "m.json", "only"),
		}
		load(t, db, in...)
		got, err := db.Listed(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		want := []store.Row{in[1], in[2], in[0]} // by id
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got %+v, want %+v", got, want)
		}
	})

	t.Run("TagsByteForByte", func(t *testing.T) {
		// Several tags go in one statement, as JSON; tags JSON would not
		// carry through unchanged go in one at a time. Both keep the order.
		db := openMemory(t)
		in := []store.Row{
			newSkill("a", "task", "public", "a.json", "z <&>", "é\u2028", "m"),
			newSkill("b", "task", "public", "b.json", "x\x00y", "w"),
			newSkill("c", "task", "public", "c.json", "\xff", "v"),
		}
		load(t, db, in...)
		got, err := db.Listed(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, in) {
			t.Errorf("got %+v, want %+v", got, in)
		}
	})

	t.Run("ErrDuplicateID", func(t *testing.T) {
		db := openMemory(t)
		dups, err := db.Load(ctx, []store.Row{
			newSkill("before", "api", "public", "before.json"),
			newSkill("dup", "api", "public", "a.json"),
			newSkill("dup", "task", "public", "b.json"),
			newSkill("middle", "plugin", "public", "middle.json", "t"),
			newSkill("dup", "plugin", "private", "sub/c.json"),
			newSkill("after", "knowledge", "public", "after.json"),
		})
		if err != nil {
			t.Fatalf("got error %v, want none", err)
		}
		want := []*store.DuplicateError{
			{ID: "dup", Source: "b.json", Other: "a.json"},
			{ID: "dup", Source: "sub/c.json", Other: "a.json"},
		}
		if !reflect.DeepEqual(dups, want) {
			t.Errorf("got %v, want %v", dups, want)
		}
		if got, want := dups[0].Error(), `id "dup" is already used by a.json`; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
		if got, want := listedIDs(t, db, ""), []string{"after", "before", "dup", "middle"}; !slices.Equal(got, want) {
			t.Errorf("got %v, want %v", got, want)
		}
		// The holder's row is the one kept.
		if got, want := listedIDs(t, db, "api"), []string{"before", "dup"}; !slices.Equal(got, want) {
			t.Errorf("got api %v, want %v", got, want)
		}
	})

	t.Run("ErrDuplicateIDAcrossLoads", func(t *testing.T) {
		db := openMemory(t)
		load(t, db, newSkill("x", "api", "public", "first.json"))
		dups, err := db.Load(ctx, []store.Row{newSkill("x", "api", "public", "second.json")})
		if err != nil {
			t.Fatal(err)
		}
		want := []*store.DuplicateError{{ID: "x", Source: "second.json", Other: "first.json"}}
		if !reflect.DeepEqual(dups, want) {
			t.Errorf("got %v, want %v", dups, want)
		}
	})

	t.Run("ErrDuplicateOfPrivate", func(t *testing.T) {
		// Private skills take part in the uniqueness check.
		db := openMemory(t)
		dups, err := db.Load(ctx, []store.Row{
			newSkill("x", "api", "private", "hidden.json"),
			newSkill("x", "api", "public", "shown.json"),
		})
		if err != nil {
			t.Fatal(err)
		}
		want := []*store.DuplicateError{{ID: "x", Source: "shown.json", Other: "hidden.json"}}
		if !reflect.DeepEqual(dups, want) {
			t.Errorf("got %v, want %v", dups, want)
		}
		if got := listedIDs(t, db, ""); len(got) != 0 {
			t.Errorf("got %v, want nothing listed", got)
		}
	})

	t.Run("ErrInvalidRow", func(t *testing.T) {
		for _, s := range []store.Row{
			newSkill("bad", "widget", "public", "bad.json"),
			newSkill("bad", "api", "secret", "bad.json"),
			newSkill("bad", "api", "public", "bad.json", "same", "same"),
		} {
			t.Run(s.CapabilityType+"/"+s.Access+"/"+strings.Join(s.Tags, ","), func(t *testing.T) {
				db := openMemory(t)
				dups, err := db.Load(ctx, []store.Row{newSkill("good", "api", "public", "good.json"), s})
				if err == nil {
					t.Fatalf("got no error, want one")
				}
				var dup *store.DuplicateError
				if dups != nil || errors.As(err, &dup) {
					t.Errorf("got duplicates %v, %v, want none", dups, err)
				}
				if !strings.Contains(err.Error(), `load skill "bad"`) {
					t.Errorf("got %q, want it to name the skill", err)
				}
				// One transaction: nothing of the batch is kept.
				if got := listedIDs(t, db, ""); len(got) != 0 {
					t.Errorf("got %v, want nothing loaded", got)
				}
			})
		}
	})

	t.Run("ErrCanceled", func(t *testing.T) {
		db := openMemory(t)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := db.Load(cctx, []store.Row{newSkill("a", "api", "public", "a.json")}); !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want context.Canceled", err)
		}
	})

	t.Run("Empty", func(t *testing.T) {
		db := openMemory(t)
		dups, err := db.Load(ctx, nil)
		if dups != nil || err != nil {
			t.Errorf("got %v, %v, want nil, nil", dups, err)
		}
	})
}

// mixed returns skills of every type and access, ids in no particular order.
func mixed() []store.Row {
	var skills []store.Row
	accesses := []string{"public", "restricted", "private"}
	for i := range 24 {
		ct := capabilityTypes[i%len(capabilityTypes)]
		acc := accesses[(i/len(capabilityTypes))%len(accesses)]
		id := fmt.Sprintf("%s-%s-%02d", ct, acc, (i*7)%24)
		skills = append(skills, newSkill(id, ct, acc, id+".json", acc, ct))
	}
	return skills
}

func TestListed(t *testing.T) {
	ctx := context.Background()
	db := openMemory(t)
	in := mixed()
	load(t, db, in...)

	for _, ct := range append([]string{""}, capabilityTypes...) {
		name := ct
		if name == "" {
			name = "All"
		}
		t.Run(name, func(t *testing.T) {
			var want []string
			for _, s := range in {
				if s.Access != "private" && (ct == "" || s.CapabilityType == ct) {
					want = append(want, s.ID)
				}
			}
			slices.Sort(want)
			got, err := db.Listed(ctx, ct)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, s := range got {
				ids = append(ids, s.ID)
				if s.Access == "private" {
					t.Errorf("got private skill %q", s.ID)
				}
				if ct != "" && s.CapabilityType != ct {
					t.Errorf("got %q of type %q, want type %q", s.ID, s.CapabilityType, ct)
				}
				if wantTags := []string{s.Access, s.CapabilityType}; !slices.Equal(s.Tags, wantTags) {
					t.Errorf("got tags %v of %q, want %v", s.Tags, s.ID, wantTags)
				}
			}
			if !slices.Equal(ids, want) {
				t.Errorf("got %v, want %v", ids, want)
			}
		})
	}

	t.Run("ErrUnknownType", func(t *testing.T) {
		_, err := db.Listed(ctx, "widget")
		if err == nil || !strings.Contains(err.Error(), `"widget"`) {
			t.Errorf("got %v, want an unknown capability type error", err)
		}
	})
}

func TestCountByType(t *testing.T) {
	ctx := context.Background()
	t.Run("Empty", func(t *testing.T) {
		got, err := openMemory(t).CountByType(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]int{"plugin": 0, "api": 0, "knowledge": 0, "task": 0}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got %v, want %v", got, want)
		}
	})
	t.Run("PrivateNotCounted", func(t *testing.T) {
		db := openMemory(t)
		load(t, db,
			newSkill("a", "api", "public", "a.json"),
			newSkill("b", "api", "restricted", "b.json"),
			newSkill("c", "api", "private", "c.json"),
			newSkill("d", "task", "public", "d.json"),
			newSkill("e", "knowledge", "private", "e.json"),
		)
		got, err := db.CountByType(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]int{"plugin": 0, "api": 2, "knowledge": 0, "task": 1}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got %v, want %v", got, want)
		}
	})
}

func TestProperties(t *testing.T) {
	t.Run("Feature: skill-sharing-protocol, Property 7: capability filter (store)", func(t *testing.T) {
		ctx := context.Background()
		genSkill := rapid.Custom(func(t *rapid.T) store.Row {
			// A small alphabet, so that ids collide often.
			id := rapid.StringMatching(`[ab][a-c]?`).Draw(t, "id")
			ct := rapid.SampledFrom(capabilityTypes).Draw(t, "capability_type")
			acc := rapid.SampledFrom([]string{"public", "restricted", "private"}).Draw(t, "access")
			return newSkill(id, ct, acc, "")
		})
		rapid.Check(t, func(rt *rapid.T) {
			skills := rapid.SliceOfN(genSkill, 0, 30).Draw(rt, "skills")
			for i := range skills {
				skills[i].Source = fmt.Sprintf("s%02d.json", i)
			}
			db, err := store.Open(ctx, ":memory:")
			if err != nil {
				rt.Fatal(err)
			}
			defer db.Close()
			dups, err := db.Load(ctx, skills)
			if err != nil {
				rt.Fatal(err)
			}

			// The model: the first source to claim an id holds it.
			holder := make(map[string]store.Row)
			for _, s := range skills {
				if _, ok := holder[s.ID]; !ok {
					holder[s.ID] = s
				}
			}
			if got, want := len(dups), len(skills)-len(holder); got != want {
				rt.Errorf("got %d duplicates, want %d", got, want)
			}
			counts, err := db.CountByType(ctx)
			if err != nil {
				rt.Fatal(err)
			}
			for _, ct := range capabilityTypes {
				var want []string
				for id, s := range holder {
					if s.Access != "private" && s.CapabilityType == ct {
						want = append(want, id)
					}
				}
				slices.Sort(want)
				got, err := db.Listed(ctx, ct)
				if err != nil {
					rt.Fatal(err)
				}
				seen := make(map[string]bool)
				var ids []string
				for _, s := range got {
					if seen[s.ID] {
						rt.Errorf("Listed(%q): got id %q twice", ct, s.ID)
					}
					seen[s.ID] = true
					if s.CapabilityType != ct || s.Access == "private" {
						rt.Errorf("Listed(%q): got %q with type %q, access %q", ct, s.ID, s.CapabilityType, s.Access)
					}
					if h := holder[s.ID]; s.Source != h.Source {
						rt.Errorf("Listed(%q): got %q from %s, want from %s", ct, s.ID, s.Source, h.Source)
					}
					ids = append(ids, s.ID)
				}
				if !slices.Equal(ids, want) {
					rt.Errorf("Listed(%q): got %v, want %v", ct, ids, want)
				}
				if counts[ct] != len(want) {
					rt.Errorf("CountByType()[%q]: got %d, want %d", ct, counts[ct], len(want))
				}
			}
		})
	})
}

// benchSkills returns n skills with descriptors of about 3 KB and three tags.
func benchSkills(n int) []store.Row {
	skills := make([]store.Row, n)
	pad := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 50)
	for i := range skills {
		id := fmt.Sprintf("skill-%05d", i)
		desc := fmt.Appendf(nil, `{"protocol":{"version":"1.0.0"},"id":%q,"name":"Row %d","version":"1.2.3",`+
			`"capability_type":%q,"description":%q,"provider":{"name":"Bench"},"endpoint":{"url":"https://example.com/%s"},`+
			`"inputs":{"type":"object"},"output":true,"auth":{"type":"none"},"access":"public"}`,
			id, i, capabilityTypes[i%4], pad, id)
		skills[i] = store.Row{
			ID:             id,
			Name:           fmt.Sprintf("Row %d", i),
			Version:        "1.2.3",
			CapabilityType: capabilityTypes[i%4],
			Access:         []string{"public", "restricted", "private"}[i%3],
			Summary:        "Lorem ipsum dolor sit amet.",
			ProviderName:   "Bench",
			Tags:           []string{"alpha", "beta", fmt.Sprintf("t%d", i%10)},
			Source:         id + ".json",
			Descriptor:     desc,
			Digest:         digest(desc),
		}
	}
	return skills
}

func BenchmarkLoad(b *testing.B) {
	ctx := context.Background()
	skills := benchSkills(10_000)
	for _, bc := range []struct {
		name string
		dsn  func() string
	}{
		{"Memory", func() string { return ":memory:" }},
		{"File", func() string { return b.TempDir() + "/index.db" }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				db, err := store.Open(ctx, bc.dsn())
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				dups, err := db.Load(ctx, skills)
				if err != nil || dups != nil {
					b.Fatalf("Load: %v, %v", dups, err)
				}
				b.StopTimer()
				db.Close()
				b.StartTimer()
			}
		})
	}
}

// TestLoadKeepsSchema checks that a load into an empty index, which makes
// the indexes on skills and the skill_tags table only at its commit,
// leaves the schema the migrations made, whether it found duplicates,
// failed, or was abandoned; and that the unique index on id then holds.
func TestLoadKeepsSchema(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		load func(db *store.DB) error
	}{
		{"OK", func(db *store.DB) error {
			_, err := db.Load(ctx, []store.Row{newSkill("a", "api", "public", "a.json", "x", "y")})
			return err
		}},
		{"ErrDuplicateID", func(db *store.DB) error {
			_, err := db.Load(ctx, []store.Row{newSkill("a", "api", "public", "a.json"), newSkill("a", "task", "private", "b.json", "x")})
			return err
		}},
		{"ErrInvalidRow", func(db *store.DB) error {
			_, err := db.Load(ctx, []store.Row{newSkill("a", "api", "public", "a.json"), newSkill("b", "widget", "public", "b.json")})
			if err == nil {
				return errors.New("got no error for a capability type the schema does not allow")
			}
			return nil
		}},
		{"Abandoned", func(db *store.DB) error {
			l, err := db.NewLoader(ctx)
			if err != nil {
				return err
			}
			s := newSkill("a", "api", "public", "a.json")
			if _, err := l.Add(ctx, &s); err != nil {
				return err
			}
			return l.Close()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "index.db")
			want := schemaOf(t, path, nil)
			got := schemaOf(t, path, tc.load)
			if !slices.Equal(got, want) {
				t.Errorf("schema after the load:\ngot  %q\nwant %q", got, want)
			}
			db := openDSN(t, path)
			dups, err := db.Load(ctx, []store.Row{newSkill("a", "plugin", "public", "c.json"), newSkill("a", "plugin", "public", "d.json")})
			if err != nil {
				t.Fatal(err)
			}
			if len(dups) == 0 {
				t.Errorf("got no duplicate for a row of an id loaded twice, want one or two")
			}
		})
	}
}

// schemaOf opens the index at path, runs load on it (when not nil), and
// returns its schema, one "type name sql" a row, in the order made.
func schemaOf(t *testing.T, path string, load func(*store.DB) error) []string {
	t.Helper()
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if load != nil {
		if err := load(db); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	rows, err := raw.Query(`SELECT type, name, coalesce(sql, '') FROM sqlite_schema ORDER BY type, name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var typ, name, stmt string
		if err := rows.Scan(&typ, &name, &stmt); err != nil {
			t.Fatal(err)
		}
		out = append(out, typ+" "+name+" "+stmt)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestLoadDuplicateTags checks that a load into an empty index finds
// duplicates when it commits, in source order, and keeps neither the
// rows rejected nor their tags, in the index or in the listing it keeps.
func TestLoadDuplicateTags(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	db := openDSN(t, path)
	l, err := db.NewLoader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	rows := []store.Row{
		newSkill("b", "api", "public", "first.json", "kept"),
		newSkill("a", "api", "public", "a.json", "x"),
		newSkill("b", "task", "public", "second.json", "dropped", "also"),
		newSkill("b", "task", "private", "third.json", "hidden"),
	}
	for i := range rows {
		if dup, err := l.Add(ctx, &rows[i]); dup != nil || err != nil {
			t.Fatalf("Add %s: got %v, %v, want the duplicate found at the commit", rows[i].Source, dup, err)
		}
	}
	dups, err := l.Commit()
	if err != nil {
		t.Fatal(err)
	}
	want := []*store.DuplicateError{
		{ID: "b", Source: "second.json", Other: "first.json"},
		{ID: "b", Source: "third.json", Other: "first.json"},
	}
	if !reflect.DeepEqual(dups, want) {
		t.Errorf("got %v, want %v", dups, want)
	}
	listing, _ := l.Listing()
	got, err := db.ListedEntries(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1].Source != "first.json" || !slices.Equal(got[1].Tags, []string{"kept"}) {
		t.Errorf("got %+v, want a.json's row and first.json's with its tag", got)
	}
	if !reflect.DeepEqual(listing, got) {
		t.Errorf("Listing: got %+v, want %+v", listing, got)
	}
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var skills, tags int
	if err := raw.QueryRow(`SELECT (SELECT count(*) FROM skills), (SELECT count(*) FROM skill_tags)`).Scan(&skills, &tags); err != nil {
		t.Fatal(err)
	}
	if skills != 2 || tags != 2 {
		t.Errorf("got %d rows and %d tags in the index, want 2 and 2", skills, tags)
	}
}

// TestListedTagsInSourceOrder checks, over drawn catalogs, that Listed
// gives each listed skill its tags in source order, whatever their order
// by name and whatever unlisted skills' tags lie between its own, for the
// whole listing and for each capability type.
func TestListedTagsInSourceOrder(t *testing.T) {
	ctx := context.Background()
	rapid.Check(t, func(rt *rapid.T) {
		db := openMemory(t)
		tag := rapid.SampledFrom([]string{"a", "b", "c", "d", "ab", "z", "é", "A"})
		seen := map[string]bool{}
		var in []store.Row
		for i := range rapid.IntRange(0, 30).Draw(rt, "skills") {
			id := rapid.StringMatching(`[a-c]{1,3}`).Draw(rt, "id")
			if seen[id] {
				continue
			}
			seen[id] = true
			tags := rapid.SliceOfNDistinct(tag, 0, 6, rapid.ID).Draw(rt, "tags")
			in = append(in, newSkill(id, rapid.SampledFrom(capabilityTypes).Draw(rt, "type"),
				rapid.SampledFrom([]string{"public", "restricted", "private"}).Draw(rt, "access"), fmt.Sprintf("%d.json", i), tags...))
		}
		if dups, err := db.Load(ctx, in); err != nil || dups != nil {
			rt.Fatalf("Load: %v, %v", dups, err)
		}
		for _, ct := range append([]string{""}, capabilityTypes...) {
			want := map[string][]string{}
			for _, s := range in {
				if s.Access != "private" && (ct == "" || s.CapabilityType == ct) {
					want[s.ID] = s.Tags
				}
			}
			got, err := db.ListedEntries(ctx, ct)
			if err != nil {
				rt.Fatal(err)
			}
			if len(got) != len(want) {
				rt.Fatalf("type %q: got %d skills, want %d", ct, len(got), len(want))
			}
			for _, s := range got {
				if !slices.Equal(s.Tags, want[s.ID]) {
					rt.Errorf("type %q: got tags %q of %q, want %q", ct, s.Tags, s.ID, want[s.ID])
				}
			}
		}
	})
}
