package build

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/agentskills"
	"github.com/skillcat/skillcat/store"
)

// eagerRun makes, in a build with no previous output to take files from,
// each listed skill's own files on the worker that parsed its source,
// while the index is still loading: its descriptor and page (renderSkill),
// its search tokens, and its Agent Skills instructions, which wait in a
// spill file until render knows the listing (a SKILL.md's name and
// llms-full.txt's order depend on every listed id). So a cold build
// decodes each descriptor once, never reads one back out of the index,
// and keeps both cores busy through the index's serial load.
//
// It makes nothing of a private skill (the access of the descriptor just
// parsed decides), and makes nothing more once a source has failed
// (stop): the build fails then, and its tree is removed. An error making
// a file is kept and returned by finish, only once the load has succeeded,
// so that a duplicate id or a layout violation (whose skills' files also
// collide in the tree) is reported as the violation it is.
type eagerRun struct {
	pages   *pages
	o       *output
	keys    buildKeys
	spill   *spill       // the instructions, when an export wants them; nil otherwise
	tokens  *postingsRun // the search tokens, numbered by source
	stopped atomic.Bool
	mu      sync.Mutex
	// made numbers the ids of the skills made, and skills and endpoints
	// hold what was kept of each by its number: nothing in them for the
	// collector to scan or mark a skill (pathIndex).
	made      pathIndex
	skills    []madeSkill
	endpoints pathList
	err       error
	// postings are the tokens' postings once finish has them, still
	// numbered by source (renumbered for the listing by postingsFor).
	postings map[string][]posting
	finished bool
}

// eagerSkill is what eagerRun kept of a skill it made.
type eagerSkill struct {
	source   int    // the source's index: its search tokens' number until the listing is known
	ins      span   // its Agent Skills instructions in the spill
	endpoint string // its endpoint's URL
}

// madeSkill is an eagerSkill as the run keeps it, its endpoint in the
// run's endpoints.
type madeSkill struct {
	source int
	ins    span
}

// newEagerRun starts making the skills' files of site into o, or returns
// nil when they are to be made by render (the templates do not load: render
// reports that).
func newEagerRun(ctx context.Context, cfg Config, site Site, o *output, keys buildKeys) (*eagerRun, error) {
	p, err := newPages(cfg, site)
	if err != nil {
		return nil, nil
	}
	e := &eagerRun{pages: p, o: o, keys: keys, tokens: newTokenMerger(ctx, workerCount(cfg.Workers))}
	if on := site.Exports; on.AgentSkills || on.LLMsTxt {
		if e.spill, err = openSpill(o.dir); err != nil {
			e.close()
			return nil, err
		}
	}
	return e, nil
}

// make makes the files of the skill parsed from source i (p), when it is
// valid and listed, and takes from p its decoded descriptor and tree, which
// go no further. e may be nil.
func (e *eagerRun) make(i int, p *parsed) {
	d, tree := p.desc, p.tree
	p.desc, p.tree = nil, nil
	if e == nil || d == nil || p.row == nil || p.row.Access == string(skillcat.Private) || e.stopped.Load() {
		return
	}
	row := p.row
	err := renderSkill(e.pages, row, row.Descriptor, func() (*skillcat.SkillDescriptor, error) { return d, nil },
		func() *skillcat.Node { return tree }, e.o, e.keys)
	if err != nil {
		err = fmt.Errorf("render skill %q: %w", row.ID, err)
	}
	m := madeSkill{source: i}
	if err == nil && e.spill != nil {
		buf := scratch()
		ins, ierr := agentskills.AppendInstructions(*buf, &agentskills.Skill{Descriptor: d, Summary: row.Summary})
		if ierr != nil {
			err = fmt.Errorf("exports: skill %q: SKILL.md: %w", row.ID, ierr)
		} else {
			m.ins, err = e.spill.add(ins) // copied into the spill's buffer
		}
		release(buf, ins)
	}
	if err == nil {
		item := itemOf(row)
		e.tokens.tokenizeItem(i, &item, d.Description)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, twice := e.made.find(row.ID); twice && err == nil {
		err = fmt.Errorf("render skill %q: made twice", row.ID) // a duplicate id: the load fails
	}
	if err != nil {
		if e.err == nil {
			e.err = err
		}
		e.stopped.Store(true)
		return
	}
	// Copies are kept (the id and the endpoint), not the source's text
	// the descriptor's strings may share.
	e.made.add(row.ID)
	e.skills = append(e.skills, m)
	e.endpoints.add(d.Endpoint.URL)
}

// stop makes nothing more: the build fails. e may be nil.
func (e *eagerRun) stop() {
	if e != nil {
		e.stopped.Store(true)
	}
}

// finish ends the run once every source was given to make: the spill is
// written out and the tokens merged. It returns the first error of making
// a file.
func (e *eagerRun) finish() error {
	if e.finished {
		return fmt.Errorf("eager run finished twice")
	}
	e.finished = true
	postings, _, err := e.tokens.finish()
	e.postings = postings
	eagerFinished(len(e.skills))
	if e.spill != nil {
		if serr := e.spill.done(); err == nil {
			err = serr
		}
	}
	if e.err != nil {
		return e.err
	}
	return err
}

// eagerFinished is called with the number of skills an eager run made
// when it finishes; tests replace it.
var eagerFinished = func(made int) {}

// close frees what the run holds; e may be nil.
func (e *eagerRun) close() {
	if e == nil {
		return
	}
	if !e.finished {
		e.finished = true
		e.tokens.finish()
	}
	e.spill.close()
}

// descriptor returns the published descriptor of skill id, which the run
// made into the new tree (the index keeps it aside: store.DB.KeepDescriptorsAside).
func (e *eagerRun) descriptor(id string) ([]byte, error) {
	if _, ok := e.made.find(id); !ok {
		return nil, fmt.Errorf("skill %q was not made at its parse", id)
	}
	return readFile(filepath.Join(e.o.dir, filepath.FromSlash(e.pages.routes.descriptor(id))))
}

// pagesOr returns the run's pages, or nil when e is nil.
func (e *eagerRun) pagesOr() *pages {
	if e == nil {
		return nil
	}
	return e.pages
}

// skill returns what the run made of skill id, if it made it; e may be
// nil.
func (e *eagerRun) skill(id string) (eagerSkill, bool) {
	if e == nil {
		return eagerSkill{}, false
	}
	i, ok := e.made.find(id)
	if !ok {
		return eagerSkill{}, false
	}
	return eagerSkill{source: e.skills[i].source, ins: e.skills[i].ins, endpoint: e.endpoints.at(i)}, true
}

// madeAll reports whether the run made every skill of listed; e may be
// nil.
func (e *eagerRun) madeAll(listed []store.Row) bool {
	if e == nil {
		return false
	}
	for i := range listed {
		if _, ok := e.made.find(listed[i].ID); !ok {
			return false
		}
	}
	return true
}

// postingsFor returns the postings of the skills the run made, numbered
// as the documents docs (the listing in the search's order) number them,
// and which of docs they cover. It takes the run's postings: it is called
// once.
func (e *eagerRun) postingsFor(docs []listItem) (map[string][]posting, []bool) {
	covered := make([]bool, len(docs))
	if e == nil {
		return map[string][]posting{}, covered
	}
	n := 0
	for _, m := range e.skills {
		n = max(n, m.source+1)
	}
	doc := make([]int32, n) // by source: its document's number, or -1
	for i := range doc {
		doc[i] = -1
	}
	for i := range docs {
		if j, ok := e.made.find(docs[i].ID()); ok {
			doc[e.skills[j].source] = int32(i)
			covered[i] = true
		}
	}
	postings := e.postings
	e.postings = nil
	for t, ps := range postings {
		kept := ps[:0]
		for _, p := range ps {
			if s := int(p >> 2); s < n && doc[s] >= 0 {
				kept = append(kept, posting(doc[s])<<2|p&3)
			}
		}
		if len(kept) == 0 {
			delete(postings, t)
			continue
		}
		postings[t] = kept
	}
	return postings, covered
}

// front is what a SKILL.md's front matter reads of a descriptor
// (agentskills.DocumentWith), made from the skill's row and the endpoint
// the run kept: the instructions, which read the rest, are made already.
func (m eagerSkill) front(e *store.Row) *skillcat.SkillDescriptor {
	return &skillcat.SkillDescriptor{ID: e.ID, Name: e.Name, Version: e.Version,
		CapabilityType: skillcat.CapabilityType(e.CapabilityType), Access: skillcat.Access(e.Access),
		Provider: skillcat.Provider{Name: e.ProviderName}, Endpoint: skillcat.Endpoint{URL: m.endpoint}}
}
