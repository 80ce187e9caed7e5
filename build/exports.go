package build

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/agentskills"
	"github.com/skillcat/skillcat/apicatalog"
	"github.com/skillcat/skillcat/llmstxt"
	"github.com/skillcat/skillcat/store"
)

// Exports says which discovery formats a build publishes beside the
// SkillIndex. Each is on unless SiteFile turns it off:
//
//	exports:
//	  agent_skills: false  # /.well-known/agent-skills/: index.json and a SKILL.md per skill
//	  api_catalog: false   # /.well-known/api-catalog (RFC 9727)
//	  llms_txt: false      # /llms.txt and /llms-full.txt
type Exports struct {
	AgentSkills bool
	APICatalog  bool
	LLMsTxt     bool
}

// allExports is the default: every format on.
var allExports = Exports{AgentSkills: true, APICatalog: true, LLMsTxt: true}

// readExports reads the exports member of SiteFile's front matter (nil
// when absent).
func readExports(file string, n *skillcat.Node) (Exports, skillcat.Violations) {
	on := allExports
	if n == nil {
		return on, nil
	}
	bad := func(n *skillcat.Node, pointer, field, reason string) skillcat.Violation {
		return skillcat.Violation{File: file, Line: n.Line, Column: n.Column, Pointer: pointer, Field: field, Reason: reason, Severity: skillcat.SeverityError}
	}
	if n.Kind != skillcat.Object {
		return on, skillcat.Violations{bad(n, "/exports", "exports", "must be a mapping of agent_skills, api_catalog and llms_txt to true or false; got "+n.Kind.String())}
	}
	switches := map[string]*bool{"agent_skills": &on.AgentSkills, "api_catalog": &on.APICatalog, "llms_txt": &on.LLMsTxt}
	var vs skillcat.Violations
	for _, m := range n.Members {
		field := "exports." + m.Name
		dst, ok := switches[m.Name]
		switch {
		case !ok:
			vs = append(vs, bad(m.Key, "/exports/"+m.Name, field, fmt.Sprintf("unknown export %q: the exports are agent_skills, api_catalog and llms_txt", m.Name)))
		case m.Value.Kind != skillcat.Bool:
			vs = append(vs, bad(m.Value, "/exports/"+m.Name, field, "must be true or false; got "+m.Value.Kind.String()))
		default:
			*dst = m.Value.Text == "true"
		}
	}
	return on, vs
}

// Content types of the exported documents.
const (
	skillMDType  = "text/markdown; charset=utf-8"
	llmsTxtType  = "text/plain; charset=utf-8"
	linksetTitle = "API catalog (RFC 9727)"
)

// exportRun makes the discovery formats the site turns on, each made by
// its package from the listed skills only (so a private skill cannot
// reach them, nor change a name or a count):
//
//   - Agent Skills: a SKILL.md per skill and the discovery index;
//   - the RFC 9727 API catalog of the api skills;
//   - llms.txt and llms-full.txt.
//
// renderSkills asks wants of every listed skill whether its descriptor is
// needed, streams the descriptors that are (all of them in a cold build)
// out of the index once for the skill pages and the exports together,
// decodes each once, and hands it to one on a worker, which writes only
// its own skill's slots; finish then writes the aggregate documents.
//
// In a rebuild an unchanged skill costs no descriptor: its SKILL.md is
// taken from the previous output when its key is unchanged, its block of
// llms-full.txt is copied from the previous llms-full.txt (whose layout
// the rebuild cache keeps, fullLayoutPart), and its endpoint, which is all
// the API catalog needs of its descriptor, is the one the cache keeps by
// its digest (endpointsPart).
type exportRun struct {
	ctx      context.Context
	cache    *store.CacheTx // the rebuild cache, or nil
	r        routes
	on       Exports
	site     Site
	listed   []store.Row
	o        *output
	keys     buildKeys
	names    []string // Agent Skills name by listing index
	key      string   // what every aggregate document depends on
	needFull bool     // llms-full.txt is stale
	needAPIs bool     // the API catalog is on: its skills' endpoints are gathered
	// mdHash is each SKILL.md's SHA-256 by listing index: the index's
	// entries, and llms.txt, are made only when finish writes them, so
	// that a large catalog's render does not carry them (~300,000
	// strings at 100,000 skills) for the collector to mark.
	mdHash []store.Digest
	full   *fullStream // llms-full.txt, when stale
	// endpoints are the api skills' endpoint URLs by listing index, for a
	// stale API catalog; known are those the previous build kept, by
	// descriptor digest.
	endpoints []string
	known     map[string]string
	// eager holds the instructions and endpoints of the skills made at
	// their parse (a cold build's), or is nil.
	eager *eagerRun
	// llms is closed once llms.txt is written, on a goroutine of its own
	// from the start (it needs the listing alone), with llmsErr; nil when
	// it is off.
	llms    chan struct{}
	llmsErr error
}

// The kinds of the rebuild cache's parts the exports keep.
const (
	// fullLayoutPart is where each skill's block lies in an llms-full.txt,
	// keyed by the file's hash: a line "site <key>", then for each block
	// in the file's order "<descriptor digest> <offset> <length>". A
	// block depends on the site and its descriptor alone.
	fullLayoutPart = "llms-full-layout"
	// endpointsPart is the endpoint URL of each listed api skill by its
	// descriptor digest, a JSON object, under the key "".
	endpointsPart = "api-endpoints"
)

// span is where one block lies in a file: its offset and length; a zero
// length means none.
type span struct{ off, n int64 }

// fullStream writes llms-full.txt in listing order while the workers make
// its parts, holding only the parts that arrive before their turn (the
// descriptors are streamed in that order, so a few at most): the file is
// never in memory whole. The blocks of skills whose descriptor did not
// change are copied from the previous build's file (prev, kept) in runs,
// without being made again. Its layout is noted as it is written, for
// the next build.
//
// With a previous file, every block it keeps is known before any part is
// made, and the file is written on a goroutine of its own (run), started
// at once: the runs before a changed skill's block are copied while the
// build looks at every skill's files (renderStale), on the core that
// leaves idle, instead of by the worker that puts that skill's part, on
// one core, after it (~34 MB at 10,000 skills). Without one, the worker
// that puts a part writes whatever has come to its turn (drain).
type fullStream struct {
	mu     sync.Mutex
	file   *stream
	w      *llmstxt.FullWriter
	next   int              // the listing index of the next block to write
	early  map[int][][]byte // parts made before their turn, each in pieces (put)
	prev   *os.File         // the previous llms-full.txt, or nil
	old    map[string]span
	kept   []span          // by listing index, each skill's block in prev, when copied
	digest []string        // by listing index, each skill's descriptor digest; nil when no layout is kept
	layout strings.Builder // only for the rebuild cache (~8 MB at 100,000 skills)
	err    error

	// The goroutine that writes the file (run), with a previous file: it
	// waits on more for a part, and stops when ending says none is to
	// come; done is closed once it has stopped. nil without one.
	more   *sync.Cond
	done   chan struct{}
	ending bool
}

// errFullStopped ends a run whose build failed.
var errFullStopped = errors.New("stopped")

// put hands over the part of the skill at listing index i, the pieces
// one after another (written so, not joined first).
func (f *fullStream) put(i int, part ...[]byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	f.early[i] = part
	if f.done != nil {
		f.more.Signal()
		return nil
	}
	return f.drain()
}

// drain writes the blocks whose turn has come: parts made, and runs of
// blocks copied from prev. f.mu is held.
func (f *fullStream) drain() error {
	for f.next < len(f.kept) && f.err == nil {
		p, ok := f.ready()
		if !ok {
			break
		}
		f.err = f.writeNext(p)
	}
	return f.err
}

// ready reports whether the block at f.next can be written: a run kept
// from prev, or a part put (p, taken from early). f.mu is held.
func (f *fullStream) ready() (p [][]byte, ok bool) {
	if f.kept[f.next].n > 0 {
		return nil, true
	}
	if p, ok = f.early[f.next]; ok {
		delete(f.early, f.next)
	}
	return p, ok
}

// start keeps, of each listed skill, the block prev holds of its
// descriptor, and starts the goroutine that writes the file (run).
func (f *fullStream) start(listed []store.Row) {
	for i := range listed {
		if sp, ok := f.old[listed[i].Digest]; ok {
			f.kept[i] = sp
		}
	}
	f.more, f.done = sync.NewCond(&f.mu), make(chan struct{})
	go f.run()
}

// run writes the blocks in turn as they come: each run of blocks kept,
// each part once it is put, until the last, an error, or a part missing
// when no more is to come (ending). It alone writes the file, and holds
// f.mu only between blocks.
func (f *fullStream) run() {
	defer close(f.done)
	f.mu.Lock()
	defer f.mu.Unlock()
	for f.err == nil && f.next < len(f.kept) {
		p, ok := f.ready()
		if !ok {
			if f.ending {
				return
			}
			f.more.Wait()
			continue
		}
		f.mu.Unlock()
		err := f.writeNext(p)
		f.mu.Lock()
		if f.err == nil {
			f.err = err
		}
	}
}

// end waits for the run, once every part is put (stop false) or to cut it
// short (stop true), and returns its error; it does nothing without one.
func (f *fullStream) end(stop bool) error {
	if f.done == nil {
		return nil
	}
	f.mu.Lock()
	f.ending = true
	if stop && f.err == nil {
		f.err = errFullStopped
	}
	f.more.Broadcast()
	f.mu.Unlock()
	<-f.done
	return f.err
}

// writeNext writes the block at f.next, and moves f.next past it: the
// longest run of blocks kept from prev that follow one another there, or
// else the part p made for it.
func (f *fullStream) writeNext(p [][]byte) error {
	i := f.next
	if first := f.kept[i]; first.n > 0 {
		j := i + 1
		for j < len(f.kept) && f.kept[j].n > 0 && f.kept[j].off == f.kept[j-1].off+f.kept[j-1].n+2 {
			j++
		}
		last := f.kept[j-1]
		size := last.off + last.n - first.off
		off, err := f.w.AddRun(io.NewSectionReader(f.prev, first.off, size), size)
		if err != nil {
			return err
		}
		for k := i; k < j; k++ {
			f.note(k, span{off + f.kept[k].off - first.off, f.kept[k].n})
		}
		f.next = j
		return nil
	}
	var sp span
	var err error
	if sp.off, sp.n, err = f.w.AddSpan(p...); err != nil {
		return err
	}
	f.note(i, sp)
	f.next++
	return nil
}

// note adds the block of the skill at listing index i to the layout.
func (f *fullStream) note(i int, sp span) {
	if f.digest == nil {
		return
	}
	f.layout.WriteString(strings.TrimPrefix(f.digest[i], "sha256:"))
	f.layout.WriteByte(' ')
	f.layout.WriteString(strconv.FormatInt(sp.off, 10))
	f.layout.WriteByte(' ')
	f.layout.WriteString(strconv.FormatInt(sp.n, 10))
	f.layout.WriteByte('\n')
}

// newExportRun prepares the exports of the listing, or returns nil when the
// site turns them all off. A stale llms-full.txt is started at once, and
// written as its parts come (one).
func newExportRun(ctx context.Context, r routes, cat *catalog, listed []store.Row, o *output, keys buildKeys) (*exportRun, error) {
	on := cat.site.Exports
	if !on.AgentSkills && !on.APICatalog && !on.LLMsTxt {
		return nil, nil
	}
	x := &exportRun{ctx: ctx, cache: cat.cache, r: r, on: on, site: cat.site, listed: listed, o: o, keys: keys, eager: cat.eager}
	ids := make([]string, len(listed))
	for i, s := range listed {
		ids[i] = s.ID
	}
	names := agentskills.Names(ids)
	x.names = make([]string, len(listed))
	for i, id := range ids {
		x.names[i] = names[id]
	}
	// What every aggregate document depends on: the site and the listing
	// (ids, names, summaries, descriptor digests).
	x.key = keys.site + " " + keys.listed
	x.needFull = on.LLMsTxt && !o.fresh(r.llmsFull(), x.key)
	x.needAPIs = on.APICatalog
	x.mdHash = make([]store.Digest, len(listed))
	if err := x.keepParts(); err != nil {
		return nil, err
	}
	if x.needFull {
		file, err := o.create(r.llmsFull(), x.key)
		if err != nil {
			return nil, err
		}
		x.full = &fullStream{file: file, w: llmstxt.NewFullWriter(file, llmsHead(x.site)), early: map[int][][]byte{},
			kept: make([]span, len(listed))}
		if x.cache != nil {
			x.full.digest = make([]string, len(listed))
			for i := range listed {
				x.full.digest[i] = listed[i].Digest
			}
			x.full.layout.WriteString("site " + keys.site + "\n")
		}
		if err := x.openPreviousFull(); err != nil {
			return nil, err
		}
		if x.full.prev != nil {
			x.full.start(listed)
		}
	}
	if x.needAPIs {
		x.endpoints = make([]string, len(listed))
	}
	if on.LLMsTxt {
		x.llms = make(chan struct{})
		go func() {
			defer close(x.llms)
			x.llmsErr = o.write(r.llmsTxt(), llmstxt.Encode(llmsFile(r, x.site, listed, x.names)), x.key)
		}()
	}
	return x, nil
}

// keepParts reads what the cache keeps for the stale aggregate documents,
// and keeps for the next build what it keeps of the fresh ones.
func (x *exportRun) keepParts() error {
	if x.cache == nil {
		return nil
	}
	if x.on.LLMsTxt && !x.needFull {
		x.cache.UsePart(fullLayoutPart, x.o.prev[x.r.llmsFull()].Hash.String())
	}
	if !x.needAPIs {
		return nil
	}
	parts, err := x.cache.Parts(x.ctx, endpointsPart)
	if err != nil {
		return fmt.Errorf("%w: %v", errCache, err)
	}
	if data, ok := parts[""]; ok {
		if err := json.Unmarshal([]byte(data), &x.known); err != nil {
			return fmt.Errorf("%w: %s: %v", errCache, endpointsPart, err)
		}
	}
	return nil
}

// openPreviousFull opens the previous build's llms-full.txt for its
// blocks to be copied, when it is still the file that build left and the
// cache keeps its layout for this site.
func (x *exportRun) openPreviousFull() error {
	path := x.r.llmsFull()
	rec, ok := x.o.prev[path]
	if x.cache == nil || !ok {
		return nil
	}
	parts, err := x.cache.Parts(x.ctx, fullLayoutPart)
	if err != nil {
		return fmt.Errorf("%w: %v", errCache, err)
	}
	layout, ok := parts[rec.Hash.String()]
	if !ok {
		return nil
	}
	site, rest, _ := strings.Cut(layout, "\n")
	if site != "site "+x.keys.site {
		return nil // the blocks were made for another site
	}
	old, err := readLayout(rest, rec.Size)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", errCache, fullLayoutPart, err)
	}
	f, err := os.Open(filepath.Join(x.o.out, filepath.FromSlash(path)))
	if err != nil {
		return nil
	}
	// The file the last build left, as create found it (before clearing
	// its place in the new tree, which may unlink a link of it and so
	// move its change time): not rec's identity, which may be stale now.
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() || !x.full.file.ok || fileIdentity(info) != x.full.file.live {
		f.Close()
		return nil
	}
	x.full.prev, x.full.old = f, old
	previousFullOpened()
	return nil
}

// previousFullOpened is called when llms-full.txt's blocks are to be
// copied from the previous build's file; tests replace it.
var previousFullOpened = func() {}

// sameFile reports whether info is the file rec records, by its identity.
func sameFile(info os.FileInfo, rec store.CachedOutput) bool {
	id := fileIdentity(info)
	return info.Mode().IsRegular() && id != (store.FileID{}) && id == rec.Stat
}

// readLayout reads the blocks of a layout (fullLayoutPart, after its site
// line) of a file of size bytes, by descriptor digest.
func readLayout(text string, size int64) (map[string]span, error) {
	old := make(map[string]span, strings.Count(text, "\n"))
	for line := range strings.SplitSeq(text, "\n") {
		if line == "" {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 {
			return nil, fmt.Errorf("bad line %q", line)
		}
		off, err1 := strconv.ParseInt(f[1], 10, 64)
		n, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil || off < 0 || n <= 0 || off+n > size {
			return nil, fmt.Errorf("bad line %q", line)
		}
		old["sha256:"+f[0]] = span{off, n}
	}
	return old, nil
}

// abort closes what a failed build leaves unfinished; x may be nil.
func (x *exportRun) abort() {
	if x != nil && x.llms != nil {
		<-x.llms // it writes into the tree
	}
	if x != nil && x.full != nil {
		x.full.end(true)
		x.full.file.abort()
		if x.full.prev != nil {
			x.full.prev.Close()
		}
	}
}

// wants says whether skill i (its index in the listing) has exports to
// make (one), for which its descriptor is needed unless the skill was made
// at its parse (eagerRun), and whether its SKILL.md is fresh, taken from
// the previous output. It notes what is taken without the descriptor: a
// block of llms-full.txt copied from the previous one, an endpoint the
// cache or the eager run kept.
func (x *exportRun) wants(i int) (need, mdFresh bool) {
	e := &x.listed[i]
	md := x.r.skillMD(x.names[i])
	mdFresh = x.on.AgentSkills && x.o.fresh(md, mdKey(x.keys, e, x.names[i]))
	if mdFresh {
		x.mdHash[i] = x.o.prev[md].Hash
	}
	needFull := x.needFull && x.full.kept[i].n == 0 // kept (start)
	needAPI := x.needAPIs && e.CapabilityType == string(skillcat.API)
	if needAPI {
		if u, ok := x.known[e.Digest]; ok {
			x.endpoints[i], needAPI = u, false
		} else if m, ok := x.eager.skill(e.ID); ok {
			x.endpoints[i], needAPI = m.endpoint, false
		}
	}
	need = (x.on.AgentSkills && !mdFresh) || needFull || needAPI
	return need, mdFresh
}

// one makes what skill i needs made, writing only its own slots; decode
// gives its descriptor, decoded once for its page and its exports. A
// fresh SKILL.md gives llms-full.txt its instructions, so that its
// descriptor need not be decoded unless the API catalog wants it; a skill
// made at its parse gives them from the eager run's spill, and its
// descriptor is never decoded.
func (x *exportRun) one(i int, decode func() (*skillcat.SkillDescriptor, error), mdFresh bool) error {
	r, o, e := x.r, x.o, &x.listed[i]
	name := x.names[i]
	md := r.skillMD(name)
	s := &agentskills.Skill{Name: name, Summary: e.Summary, Digest: e.Digest}
	needMD := x.on.AgentSkills && !mdFresh
	needFull := x.needFull && x.full.kept[i].n == 0
	needAPI := x.needAPIs && e.CapabilityType == string(skillcat.API) && x.endpoints[i] == ""
	var ins []byte
	if mdFresh && needFull {
		ins = o.previous(md)
	}
	if m, ok := x.eager.skill(e.ID); ok && ins == nil && (needMD || needFull) {
		var err error
		if ins, err = x.eager.spill.read(m.ins); err != nil {
			return fmt.Errorf("skill %q: %w", e.ID, err)
		}
		s.Descriptor = m.front(e)
	}
	if s.Descriptor == nil && (needMD || (needFull && ins == nil) || needAPI) {
		d, err := decode()
		if err != nil {
			return fmt.Errorf("skill %q: %w", e.ID, err)
		}
		s.Descriptor = d
	}
	if ins == nil && (needMD || needFull) {
		var err error
		if ins, err = agentskills.Instructions(s); err != nil {
			return fmt.Errorf("skill %q: SKILL.md: %w", e.ID, err)
		}
	}
	if needMD {
		s.DescriptorURL, s.PageURL = r.published(md, r.descriptor(e.ID)), r.published(md, r.skillPage(e.ID))
		buf := scratch()
		doc := agentskills.AppendDocumentWith(*buf, s, ins)
		x.mdHash[i] = sha256.Sum256(doc)
		err := o.write(md, doc, mdKey(x.keys, e, name))
		release(buf, doc) // written out: write keeps nothing of it
		if err != nil {
			return err
		}
	}
	if needFull {
		s.DescriptorURL, s.PageURL = r.published(r.llmsFull(), r.descriptor(e.ID)), r.published(r.llmsFull(), r.skillPage(e.ID))
		if err := x.full.put(i, ins, agentskills.Links(s)); err != nil {
			return fmt.Errorf("%s: %w", r.llmsFull(), err)
		}
	}
	if needAPI {
		x.endpoints[i] = s.Descriptor.Endpoint.URL
	}
	return nil
}

// finish writes the aggregate documents once every skill's part is made,
// and keeps for the next build what lets it make them again without the
// descriptors of unchanged skills.
func (x *exportRun) finish() error {
	if x.on.AgentSkills {
		if err := x.finishAgentSkills(); err != nil {
			return err
		}
	}
	if x.needAPIs {
		if err := x.finishAPIs(); err != nil {
			return err
		}
	}
	if x.llms != nil {
		if <-x.llms; x.llmsErr != nil {
			return x.llmsErr
		}
	}
	if x.needFull {
		if err := x.finishFull(); err != nil {
			return fmt.Errorf("%s: %w", x.r.llmsFull(), err)
		}
	}
	return nil
}

// finishAgentSkills writes the Agent Skills discovery index, each entry
// made as it is encoded: at 100,000 skills the entries made at once
// beside the document were the live heap's peak at the build's end
// (~54 MB besides the document's ~36).
func (x *exportRun) finishAgentSkills() error {
	r := x.r
	size := 128
	for i := range x.listed {
		s := &x.listed[i]
		size += 400 + 2*len(x.names[i]) + len(s.Summary) + len(s.Name) + len(s.ProviderName) + len(s.Version)
	}
	var buf bytes.Buffer
	buf.Grow(size)
	w := agentskills.NewIndexWriter(&buf)
	var e agentskills.Entry
	for i := range x.listed {
		s := &x.listed[i]
		e = agentskills.Entry{Name: x.names[i], Type: agentskills.TypeSkillMD,
			Description: agentskills.Description(s.Summary, s.Name, s.ID, skillcat.CapabilityType(s.CapabilityType), s.ProviderName),
			URL:         r.published(r.agentSkillsIndex(), r.skillMD(x.names[i])),
			Digest:      "sha256:" + x.mdHash[i].String(), Version: s.Version}
		w.Add(&e) // a bytes.Buffer takes every write
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("agent skills index: %w", err)
	}
	return x.o.write(r.agentSkillsIndex(), buf.Bytes(), x.key)
}

// finishAPIs writes the API catalog of the api skills, unless the
// previous build made it from the same site and the same skills' ids,
// names and endpoints (all it holds of them), and keeps their endpoints
// for the next build.
func (x *exportRun) finishAPIs() error {
	var list []apicatalog.API
	known := map[string]string{}
	k := newKeyHash()
	for i := range x.listed {
		e := &x.listed[i]
		if e.CapabilityType != string(skillcat.API) {
			continue
		}
		if x.endpoints[i] == "" {
			return fmt.Errorf("api catalog: skill %q: no endpoint made", e.ID)
		}
		list = append(list, apiOf(x.r, x.endpoints[i], e))
		known[e.Digest] = x.endpoints[i]
		for _, f := range [...]string{e.ID, e.Name, x.endpoints[i]} {
			k.field(f)
		}
	}
	if key := x.keys.site + " apis " + k.sum(); !x.o.fresh(x.r.apiCatalog(), key) {
		data, err := apicatalog.Encode(list)
		if err != nil {
			return fmt.Errorf("api catalog: %w", err)
		}
		if err := x.o.write(x.r.apiCatalog(), data, key); err != nil {
			return err
		}
	}
	switch {
	case x.cache == nil:
		return nil
	case maps.Equal(known, x.known):
		x.cache.UsePart(endpointsPart, "")
		return nil
	}
	kept, err := json.Marshal(known)
	if err == nil {
		err = x.cache.PutPart(x.ctx, endpointsPart, "", string(kept))
	}
	return err
}

// finishFull writes the blocks of llms-full.txt not yet written, ends the
// file, and keeps its layout for the next build.
func (x *exportRun) finishFull() error {
	f := x.full
	err := f.end(false)
	if err == nil {
		f.mu.Lock()
		err = f.drain()
		f.mu.Unlock()
	}
	if err != nil {
		return err
	}
	if f.prev != nil {
		f.prev.Close()
		f.prev = nil
	}
	if f.next != len(x.listed) {
		return fmt.Errorf("%d of %d skills' parts made", f.next, len(x.listed))
	}
	if err := f.w.Close(); err != nil {
		return err
	}
	if err := f.file.close(); err != nil {
		return err
	}
	if x.cache == nil {
		return nil
	}
	rec, ok := x.o.recorded(x.r.llmsFull())
	if !ok {
		return fmt.Errorf("not recorded")
	}
	return x.cache.PutPart(x.ctx, fullLayoutPart, rec.Hash.String(), f.layout.String())
}

// mdKey is what a SKILL.md is made from: the site, the descriptor and the
// skill's name.
func mdKey(keys buildKeys, e *store.Row, name string) string {
	return keys.site + " " + e.Digest + " " + name
}

// apiOf is the API catalog entry of an api skill: its endpoint URL, described
// by its descriptor and the protocol's message schemas, documented by its
// page, with the skill index as its metadata.
func apiOf(r routes, endpoint string, e *store.Row) apicatalog.API {
	from := r.apiCatalog()
	return apicatalog.API{
		Anchor: endpoint,
		Desc: []apicatalog.Link{
			{Href: r.published(from, r.descriptor(e.ID)), Type: "application/json", Title: e.Name + " (Skill Sharing Protocol descriptor)"},
			{Href: r.published(from, r.schema("invocation-request.schema.json")), Type: "application/schema+json", Title: "InvocationRequest schema"},
			{Href: r.published(from, r.schema("invocation-response.schema.json")), Type: "application/schema+json", Title: "InvocationResponse schema"},
		},
		Doc:  []apicatalog.Link{{Href: r.published(from, r.skillPage(e.ID)), Type: "text/html", Title: e.Name}},
		Meta: []apicatalog.Link{{Href: r.published(from, r.index()), Type: "application/json", Title: "Skill index"}},
	}
}

// llmsFile is the site's llms.txt: the catalog's title, its intro as the
// summary, a section per capability type listing each skill (its SKILL.md
// when Agent Skills are published, its page otherwise), and the documents
// for machines.
// names are the Agent Skills names by listing index.
func llmsFile(r routes, site Site, listed []store.Row, names []string) llmstxt.File {
	from := r.llmsTxt()
	f := llmsHead(site)
	byType := map[string][]llmstxt.Link{}
	for i, s := range listed {
		to := r.skillPage(s.ID)
		if site.Exports.AgentSkills {
			to = r.skillMD(names[i])
		}
		byType[s.CapabilityType] = append(byType[s.CapabilityType], llmstxt.Link{Name: s.Name, URL: r.published(from, to), Notes: s.Summary})
	}
	for _, t := range skillcat.CapabilityTypes {
		f.Sections = append(f.Sections, llmstxt.Section{Name: typeTitle(string(t)) + " skills", Links: byType[string(t)]})
	}
	machine := []llmstxt.Link{
		{Name: "Skill index", URL: r.published(from, r.index()), Notes: "the Skill Sharing Protocol's Well-Known index: every listed skill with its descriptor's URL and SHA-256 digest"},
	}
	if site.Exports.AgentSkills {
		machine = append(machine, llmstxt.Link{Name: "Agent Skills index", URL: r.published(from, r.agentSkillsIndex()), Notes: "Agent Skills Discovery v0.2.0: a SKILL.md per skill"})
	}
	if site.Exports.APICatalog {
		machine = append(machine, llmstxt.Link{Name: "API catalog", URL: r.published(from, r.apiCatalog()), Notes: "RFC 9727 linkset of the api skills"})
	}
	machine = append(machine,
		llmstxt.Link{Name: "llms-full.txt", URL: r.published(from, r.llmsFull()), Notes: "every skill's instructions in one file"},
		llmstxt.Link{Name: "Descriptor schema", URL: r.published(from, r.schema("skill-descriptor.schema.json")), Notes: "JSON Schema of a skill descriptor"},
	)
	f.Sections = append(f.Sections, llmstxt.Section{Name: "Machine-readable documents", Links: machine})
	return f
}

// llmsHead is the head of the site's llms.txt and llms-full.txt: the
// catalog's title, and its intro as the summary.
func llmsHead(site Site) llmstxt.File {
	f := llmstxt.File{Title: site.Title, Summary: site.Description}
	if intro := firstText(site.IntroSource); intro != "" {
		f.Summary, f.Details = intro, site.Description
	}
	return f
}

// exportLinks are the exported documents the pages point at, in their
// head (rel="alternate", rel="api-catalog") and footer.
func exportLinks(r routes, on Exports) []exportLink {
	var links []exportLink
	if on.AgentSkills {
		links = append(links, exportLink{Rel: "alternate", Type: "application/json", Title: "Agent Skills index", File: r.agentSkillsIndex()})
	}
	if on.APICatalog {
		links = append(links, exportLink{Rel: "api-catalog", Type: "application/linkset+json", Title: linksetTitle, File: r.apiCatalog()})
	}
	if on.LLMsTxt {
		links = append(links,
			exportLink{Rel: "alternate", Type: "text/plain", Title: "llms.txt", File: r.llmsTxt()},
			exportLink{Rel: "alternate", Type: "text/plain", Title: "llms-full.txt", File: r.llmsFull()})
	}
	return links
}

// exportLink is one exported document as a page links it.
type exportLink struct {
	Rel, Type, Title string
	File             string // its file in the output
	Href             string // the link to it from the page
}

// exportHeaders are the _headers rules of the exported documents: their
// content types, and the Link header RFC 9727 asks for on the home page and
// on the API catalog itself.
func exportHeaders(r routes, on Exports) []headerRule {
	cors := "Access-Control-Allow-Origin: *"
	cache := "Cache-Control: public, max-age=300"
	var rules []headerRule
	if on.APICatalog {
		target := r.absolute(r.apiCatalog())
		if target == "" {
			target = "/" + r.apiCatalog()
		}
		link := "Link: <" + target + `>; rel="api-catalog"`
		rules = append(rules,
			headerRule{"/", []string{link}},
			headerRule{"/" + r.apiCatalog(), []string{"Content-Type: " + apicatalog.ContentType, cors, cache, link}})
	}
	if on.AgentSkills {
		rules = append(rules,
			headerRule{"/" + r.agentSkillsIndex(), []string{"Content-Type: application/json; charset=utf-8", cors, cache}},
			headerRule{"/" + r.skillMD("*"), []string{"Content-Type: " + skillMDType, cors, cache}})
	}
	if on.LLMsTxt {
		rules = append(rules,
			headerRule{"/" + r.llmsTxt(), []string{"Content-Type: " + llmsTxtType, cors, cache}},
			headerRule{"/" + r.llmsFull(), []string{"Content-Type: " + llmsTxtType, cors, cache}})
	}
	return rules
}

// previous returns the instructions of the SKILL.md the previous build
// wrote at path and kept (fresh), read back from the output, or nil when
// its bytes are not those the cache recorded.
func (o *output) previous(path string) []byte {
	rec, ok := o.prev[path]
	if !ok {
		return nil
	}
	data, err := os.ReadFile(filepath.Join(o.out, filepath.FromSlash(path)))
	if err != nil {
		return nil
	}
	if sha256.Sum256(data) != rec.Hash {
		return nil
	}
	ins, ok := agentskills.InstructionsOf(data)
	if !ok {
		return nil
	}
	return ins
}

// recorded returns the record of the file at path of the new tree, once
// written.
func (o *output) recorded(path string) (store.CachedOutput, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	rec, ok := o.records.get(path)
	return rec, ok
}
