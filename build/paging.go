package build

import (
	"strconv"

	skillcat "github.com/skillcat/skillcat"
)

// ListingPageSize is how many skills a listing page (the home page, a type
// page) shows. A listing longer than that is split into numbered pages:
// the first at the listing's own URL (/ or /types/<type>/), the others at
// page/<n>/ below it (/page/2/, /types/api/page/2/), each linking to the
// previous, the next, the first, the last and the pages near it.
const ListingPageSize = 100

// pager is the page navigation of one listing page; nil when the listing
// fits on one page.
type pager struct {
	Current, Last int
	From, To, Of  int    // the skills shown, counted from 1, and the listing's length
	Prev, Next    string // hrefs, "" on the first or last page
	Links         []pageLink
}

// pageLink is one entry of the numbered page list; Gap stands for pages
// left out.
type pageLink struct {
	N       int
	Href    string
	Current bool
	Gap     bool
}

// listingPages is the number of pages a listing of n skills takes.
func listingPages(n int) int {
	if n <= ListingPageSize {
		return 1
	}
	return (n + ListingPageSize - 1) / ListingPageSize
}

// newPager makes the navigation of page n of a listing (typ "" for the
// home listing) of total skills.
func newPager(r routes, typ string, n, total int) *pager {
	last := listingPages(total)
	if last == 1 {
		return nil
	}
	from := r.listingPage(typ, n)
	href := func(k int) string {
		h := r.link(from, r.listingPage(typ, k))
		if h == "" {
			h = "./"
		}
		return h
	}
	p := &pager{Current: n, Last: last, From: (n-1)*ListingPageSize + 1, To: min(n*ListingPageSize, total), Of: total}
	if n > 1 {
		p.Prev = href(n - 1)
	}
	if n < last {
		p.Next = href(n + 1)
	}
	// The first and last pages, the two on each side of this one, and the
	// tens and hundreds in between, so that every page is a few clicks away.
	show := map[int]bool{1: true, last: true}
	for k := n - 2; k <= n+2; k++ {
		show[k] = true
	}
	for _, step := range []int{10, 100} {
		if last > step {
			for k := step; k < last; k += step {
				if k > n-5*step && k < n+5*step {
					show[k] = true
				}
			}
		}
	}
	prev := 0
	for k := 1; k <= last; k++ {
		if !show[k] {
			continue
		}
		if k > prev+1 {
			p.Links = append(p.Links, pageLink{Gap: true})
		}
		p.Links = append(p.Links, pageLink{N: k, Href: href(k), Current: k == n})
		prev = k
	}
	return p
}

// listings writes the home listing and the type listings (docs in listing
// order, see items), one page at a time through put. A page is made from
// its key (listingKey): one whose key is the previous build's is not
// rendered again when fresh(file, key) takes it from the previous output.
func (p *pages) listings(docs []listItem, counts map[string]int, site string, fresh func(file, key string) bool, put func(file string, data []byte, key string) error) error {
	if err := p.listingFiles("", docs, counts, site, fresh, put); err != nil {
		return err
	}
	for _, t := range skillcat.CapabilityTypes {
		var of []listItem
		for _, d := range docs {
			if d.Type() == string(t) {
				of = append(of, d)
			}
		}
		if err := p.listingFiles(string(t), of, counts, site, fresh, put); err != nil {
			return err
		}
	}
	return nil
}

// listingFiles renders every page of the home listing (typ "") or of one
// type's listing that fresh does not take from the previous output.
func (p *pages) listingFiles(typ string, skills []listItem, counts map[string]int, site string, fresh func(file, key string) bool, put func(file string, data []byte, key string) error) error {
	last := listingPages(len(skills))
	for n := 1; n <= last; n++ {
		file := p.routes.listingPage(typ, n)
		shown := skills[(n-1)*ListingPageSize : min(n*ListingPageSize, len(skills))]
		key := listingKey(site, file, typ, n, len(skills), counts, shown)
		if fresh(file, key) {
			continue
		}
		title := ""
		if typ != "" {
			title = typeTitle(typ) + " skills"
		}
		if n > 1 {
			if title == "" {
				title = "All skills"
			}
			title += ", page " + strconv.Itoa(n)
		}
		pg := p.newPage(file, title, counts)
		pg.Kind, pg.Type, pg.Listed = "home", typ, len(skills)
		name := "home.html"
		if typ != "" {
			pg.Kind, name = "type", "type.html"
		}
		pg.Skills = shown
		pg.Pager = newPager(p.routes, typ, n, len(skills))
		data, err := p.execute(name, pg)
		if err != nil {
			return err
		}
		if err := put(file, data, key); err != nil {
			return err
		}
	}
	return nil
}

// listingKey sums up everything a listing page shows besides the site
// (site, the key of the settings and templates): which listing and page it
// is, the listing's length, the counts by type, and each skill it lists.
// A change elsewhere in the catalog leaves it alone.
func listingKey(site, file, typ string, n, total int, counts map[string]int, shown []listItem) string {
	k := newKeyHash()
	k.text(site)
	k.text(file)
	k.text(typ)
	k.number(n)
	k.number(total)
	for _, t := range skillcat.CapabilityTypes {
		k.number(counts[string(t)])
	}
	for _, d := range shown {
		for _, f := range [...]string{d.ID(), d.Name(), d.Summary(), d.Type(), d.Access(), d.Version(), d.Provider()} {
			k.field(f)
		}
		k.h.Write(strconv.AppendInt(nil, int64(len(d.Tags())), 10))
		k.h.Write([]byte{':'})
		for _, t := range d.Tags() {
			k.field(t)
		}
	}
	return k.sum()
}
