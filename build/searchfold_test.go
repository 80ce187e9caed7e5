package build

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// searchFoldJS runs the page's own normalize and tokens, taken from
// templates/assets/search.js, over the JSON array of strings on stdin, and
// prints the array of their token lists.
const searchFoldJS = `
const fs = require("fs");
const src = fs.readFileSync(process.argv[1], "utf8");
const pick = (name) => {
  const from = src.indexOf("\n  function " + name + "(s) {");
  const to = src.indexOf("\n  }\n", from);
  if (from < 0 || to < 0) throw new Error("search.js has no function " + name);
  return src.slice(from, to + 4);
};
const tokenRunes = 32;
const f = new Function("tokenRunes", pick("normalize") + pick("tokens") + "; return tokens;")(tokenRunes);
const input = JSON.parse(fs.readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(input.map(f)));
`

// TestSearchFoldAsThePage holds searchTokens to the page's search.js,
// which folds a query the same way in the browser: every printable
// character past ASCII, alone, after a Latin letter, after a Greek capital
// and before a space, must give the same tokens on both sides, or a query
// cannot find what the build indexed. (They differed for 493 characters:
// a word-final Σ, which toLowerCase writes ς, and the characters whose
// NFKD is a capital, ℍ ᴬ 𝐀 ㎖, which split the build's tokens.)
func TestSearchFoldAsThePage(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("node is missing; CI must install Node.js")
		}
		t.Skip("node is missing: install Node.js to hold the build's search tokens to search.js")
	}
	var in []string
	for r := rune(0x80); r < 0x30000; r++ {
		if unicode.IsPrint(r) {
			c := string(r)
			in = append(in, c, "a"+c, "Α"+c+" b")
		}
	}
	in = append(in, "ΚΑΙΡΟΣ", "καιρός", "𝐖𝐞𝐚𝐭𝐡𝐞𝐫", "ℍotel ℃", "ΟΔΟΣ ΟΔΟΣ.")
	data, _ := json.Marshal(in)
	cmd := exec.Command("node", "-e", searchFoldJS, filepath.Join("..", "templates", "assets", "search.js"))
	cmd.Stdin = bytes.NewReader(data)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var page [][]string
	if err := json.Unmarshal(out, &page); err != nil || len(page) != len(in) {
		t.Fatalf("node printed %d lists (%v) for %d strings", len(page), err, len(in))
	}
	differ := 0
	for i, s := range in {
		var build []string
		searchTokens(s, func(tok string) { build = append(build, tok) })
		if strings.Join(build, " ") != strings.Join(page[i], " ") || len(build) != len(page[i]) {
			if differ++; differ <= 20 {
				t.Errorf("%+q: the build's tokens %q, the page's %q", s, build, page[i])
			}
		}
	}
	if differ > 20 {
		t.Errorf("... %d strings in all differ", differ)
	}
}
