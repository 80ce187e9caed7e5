package client_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/client"
)

// TestFeedDocumentsBounded serves hostile change feeds on 127.0.0.1 to
// FeedDocuments (build --previous URL), which holds every document of the
// feed: a page said to hold more than 1,000 events, more pages than
// MaxFeedPages, documents past MaxTotalBytes. Each is refused with an
// error that names the bound, without fetching what lies past it; before,
// all three were fetched and held.
func TestFeedDocumentsBounded(t *testing.T) {
	page := func(from, to int64) []byte {
		var b strings.Builder
		b.WriteString(`{"events":[`)
		for seq := from; seq <= to; seq++ {
			if seq > from {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"seq":%d,"op":"delete","id":"s%d","version":"1.0.0","digest":"sha256:%064d"}`, seq, seq, 0)
		}
		b.WriteString(`]}`)
		return []byte(b.String())
	}
	// feed publishes pages of the given sizes and the feed document
	// listing them.
	feed := func(s *site, sizes ...int64) []string {
		var refs, paths []string
		from := int64(1)
		for _, n := range sizes {
			to := from + n - 1
			name := fmt.Sprintf("pages/e-%d-%d.json", from, to)
			data := page(from, to)
			s.put("/changes/"+name, data)
			refs = append(refs, fmt.Sprintf(`{"url":%q,"from":%d,"to":%d,"digest":%q}`, name, from, to, digest(data)))
			paths = append(paths, "/changes/"+name)
			from = to + 1
		}
		s.put(skillcat.ChangesPath, []byte(fmt.Sprintf(`{"protocol":{"version":"1.0.0"},"epoch":"e","latest":%d,"pages":[%s]}`, from-1, strings.Join(refs, ","))))
		return paths
	}
	ctx := context.Background()

	t.Run("EventsPerPage", func(t *testing.T) {
		s := newSite(t)
		paths := feed(s, 1000, 1001)
		_, err := (&client.Client{}).FeedDocuments(ctx, s.URL())
		if !errors.Is(err, skillcat.ErrChangeFeed) || !strings.Contains(err.Error(), "pages[1] holds 1001 events (1001–2001); a page holds at most 1000") {
			t.Errorf("got %v, want the page of 1001 events refused", err)
		}
		for _, p := range paths {
			if n := s.requests(p); n != 0 {
				t.Errorf("%s fetched %d times", p, n)
			}
		}
	})
	t.Run("Pages", func(t *testing.T) {
		s := newSite(t)
		sizes := make([]int64, client.MaxFeedPages+1)
		for i := range sizes {
			sizes[i] = 1
		}
		paths := feed(s, sizes...)
		_, err := (&client.Client{}).FeedDocuments(ctx, s.URL())
		if !errors.Is(err, client.ErrFeedTooLarge) || !strings.Contains(err.Error(), fmt.Sprintf("it lists %d pages; a build continues at most %d", client.MaxFeedPages+1, client.MaxFeedPages)) {
			t.Errorf("got %v, want ErrFeedTooLarge for the pages", err)
		}
		if n := s.requests(paths[0]); n != 0 {
			t.Errorf("%s fetched %d times", paths[0], n)
		}
	})
	t.Run("Bytes", func(t *testing.T) {
		s := newSite(t)
		paths := feed(s, 1000, 1000, 1000, 10)
		size := int64(len(page(1, 1000)))
		c := &client.Client{MaxTotalBytes: 2*size + size/2}
		_, err := c.FeedDocuments(ctx, s.URL())
		if !errors.Is(err, client.ErrFeedTooLarge) || !strings.Contains(err.Error(), fmt.Sprintf("its documents pass %d bytes (Client.MaxTotalBytes)", c.MaxTotalBytes)) {
			t.Errorf("got %v, want ErrFeedTooLarge for the bytes", err)
		}
		if n := s.requests(paths[3]); n != 0 {
			t.Errorf("%s fetched %d times after the budget was spent", paths[3], n)
		}
		c.MaxTotalBytes = 0 // the default holds it
		if docs, err := c.FeedDocuments(ctx, s.URL()); err != nil || len(docs) != 5 {
			t.Errorf("with the default bound: %d documents, %v; want 5", len(docs), err)
		}
	})
}
