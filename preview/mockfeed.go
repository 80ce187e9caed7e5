package preview

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"

	skillcat "github.com/skillcat/skillcat"
)

// The change feed under the mock: an upsert whose digest is that of the
// built descriptor it names carries, as served, the digest of the
// descriptor the mock serves, and the feed document the digests of the
// pages so rewritten, so that discover --since verifies against the mock
// as it does against a deployed catalog. Older events (an earlier
// version's digest, a delete) are left as built.

// mockFeed rewrites the feed document at name: the digest of every page
// that mockPage changes.
func mockFeed(fsys fs.FS, name string, data []byte, base string) []byte {
	feed, err := skillcat.ParseChangeFeed(data, skillcat.SupportedMajor)
	if err != nil {
		return data
	}
	changed := false
	for i, p := range feed.Pages {
		file, ok := siteFile(name, p.URL)
		if !ok {
			continue
		}
		page, err := fs.ReadFile(fsys, file)
		if err != nil {
			continue
		}
		if out, ok := mockPage(fsys, file, page, base); ok {
			sum := sha256.Sum256(out)
			feed.Pages[i].Digest = "sha256:" + hex.EncodeToString(sum[:])
			changed = true
		}
	}
	if !changed {
		return data
	}
	return skillcat.EncodeChanges(feed)
}

// mockPage rewrites the feed page at name: the digest of each upsert
// whose digest is that of the built descriptor it names. It reports
// whether anything changed.
func mockPage(fsys fs.FS, name string, data []byte, base string) ([]byte, bool) {
	var page skillcat.ChangePage
	if json.Unmarshal(data, &page) != nil || len(page.Events) == 0 {
		return nil, false
	}
	if _, err := skillcat.ParseChangePage(data, page.Events[0].Seq, page.Events[len(page.Events)-1].Seq); err != nil {
		return nil, false
	}
	changed := false
	for i, e := range page.Events {
		if e.Op != skillcat.OpUpsert || e.DescriptorURL == "" {
			continue
		}
		file, ok := siteFile(name, e.DescriptorURL)
		if !ok {
			continue
		}
		built, err := fs.ReadFile(fsys, file)
		if err != nil {
			continue
		}
		if sum := sha256.Sum256(built); "sha256:"+hex.EncodeToString(sum[:]) != e.Digest {
			continue
		}
		if out, ok := mockDescriptor(built, base); ok {
			sum := sha256.Sum256(out)
			page.Events[i].Digest = "sha256:" + hex.EncodeToString(sum[:])
			changed = true
		}
	}
	if !changed {
		return nil, false
	}
	return skillcat.EncodeChanges(&page), true
}
