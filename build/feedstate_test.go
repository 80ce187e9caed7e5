package build

import (
	"maps"
	"testing"

	skillcat "github.com/skillcat/skillcat"
	"pgregory.net/rapid"
)

// TestFeedStateRoundTrip: what encodeFeedState writes, decodeFeedState
// reads back as it was (the skills listed and the ids gone), in its line
// form and, when a field holds a tab or a line break, in its JSON form.
func TestFeedStateRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		field := rapid.StringOfN(rapid.SampledFrom([]rune("[]ab.-:/\t\n é")), 0, 6, -1)
		state := newFeedState()
		if rapid.Bool().Draw(t, "bracket") {
			state.listed["["] = skillcat.ChangeEvent{Op: skillcat.OpUpsert, ID: "[", DescriptorURL: "]"}
		}
		for range rapid.IntRange(0, 5).Draw(t, "n") {
			id := field.Draw(t, "id")
			state.listed[id] = skillcat.ChangeEvent{Op: skillcat.OpUpsert, ID: id, Version: field.Draw(t, "version"),
				Digest: field.Draw(t, "digest"), DescriptorURL: field.Draw(t, "url")}
		}
		for range rapid.IntRange(0, 3).Draw(t, "gone") {
			if id := field.Draw(t, "gone id"); state.listed[id].ID != id || id == "" {
				state.gone[id] = true
			}
		}
		got, err := decodeFeedState(encodeFeedState(state))
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(got.listed, state.listed) || !maps.Equal(got.gone, state.gone) {
			t.Fatalf("got %v, want %v", got, state)
		}
	})
}
