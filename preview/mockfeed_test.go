package preview

import (
	"testing"

	"github.com/skillcat/skillcat/client"
)

// TestMockFeed follows the change feed of the sample catalog served with
// Config.Mock, as discover --since does: every upsert verifies against
// the descriptor the mock serves, which points at the mock, and a second
// follow from the latest event finds nothing new.
func TestMockFeed(t *testing.T) {
	_, srv := mockSample(t)
	var c client.Client
	ch, err := c.Changes(t.Context(), srv.URL+"/", client.ChangesOptions{Since: 0})
	if err != nil {
		t.Fatalf("follow the mock's feed from 0: %v", err)
	}
	if len(ch.Events) == 0 || len(ch.Skills) != len(ch.Events) {
		t.Fatalf("%d events, %d verified skills; want every upsert verified", len(ch.Events), len(ch.Skills))
	}
	for _, sk := range ch.Skills {
		if want := srv.URL + "/_mock/skills/" + sk.Descriptor.ID; sk.Descriptor.Endpoint.URL != want {
			t.Errorf("%s: endpoint %s, want %s", sk.Descriptor.ID, sk.Descriptor.Endpoint.URL, want)
		}
	}
	next, err := c.Changes(t.Context(), srv.URL+"/", client.ChangesOptions{Since: ch.Latest, Epoch: ch.Epoch})
	if err != nil || len(next.Events) != 0 {
		t.Fatalf("follow again from %d: %v, %d events; want none", ch.Latest, err, len(next.Events))
	}
}
