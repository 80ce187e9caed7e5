package build

import "testing"

// TestQuickYAMLColumnsInCodePoints holds quickNode's positions to
// yaml.v3's, which count columns in code points: a value after a quoted key
// of non-ASCII letters ("日本語": 5) is at the column yaml.v3 gives it, not
// at its byte offset, so that a violation there names the column an editor
// shows. Each document must be read by quickNode (else it tests nothing).
func TestQuickYAMLColumnsInCodePoints(t *testing.T) {
	for _, yml := range []string{
		"properties:\n  \"日本語\": 5\n",
		"\"é\": x\n",
		"\"名前 😀\": {}\n",
		"a:\n  - \"ü\": 1\n    \"ß\": 'v'\n",
		"\"κλειδί\": \"τιμή\"\n",
	} {
		if !checkQuickYAML(t, []byte(yml)) {
			t.Errorf("quickNode declines %q; the test needs a document it reads", yml)
		}
	}
}
