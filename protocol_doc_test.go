package skillcat_test

import (
	"bufio"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/skillcat/skillcat"
)

// docBlock is one fenced code block of docs/protocol.md: its info string
// ("json descriptor"), the line its fence opens on, and its text.
type docBlock struct {
	info string
	line int
	text string
}

func protocolDocBlocks(t *testing.T) []docBlock {
	t.Helper()
	f, err := os.Open("docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks []docBlock
	var cur *docBlock
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &docBlock{info: strings.TrimSpace(strings.TrimPrefix(line, "```")), line: n}
		case cur != nil && line == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Fatalf("docs/protocol.md:%d: code block never closed", cur.line)
	}
	return blocks
}

// TestProtocolDocExamples runs every tagged JSON example of docs/protocol.md
// through the validators: valid examples must draw no violation at all, and
// an invalid descriptor must give exactly the errors of the text block that
// follows it.
func TestProtocolDocExamples(t *testing.T) {
	blocks := protocolDocBlocks(t)
	seen := map[string]int{}
	for i, b := range blocks {
		kind, ok := strings.CutPrefix(b.info, "json ")
		if !ok {
			continue
		}
		seen[kind]++
		name := "docs/protocol.md:" + strconv.Itoa(b.line)
		data := []byte(b.text)
		var vs skillcat.Violations
		switch kind {
		case "descriptor":
			_, vs = skillcat.ParseDescriptor(name, data)
		case "index":
			_, vs = skillcat.ParseIndex(name, data)
		case "request":
			_, vs = skillcat.ParseRequest(name, data)
		case "response":
			_, vs = skillcat.ParseResponse(name, data)
		case "changes":
			if _, err := skillcat.ParseChangeFeed(data, skillcat.SupportedMajor); err != nil {
				t.Errorf("%s: change feed example: %v", name, err)
			}
			continue
		case "changes-page":
			var first struct{ Events []struct{ Seq int64 } }
			json.Unmarshal(data, &first)
			if len(first.Events) == 0 {
				t.Errorf("%s: a change page example needs events", name)
				continue
			}
			from, to := first.Events[0].Seq, first.Events[len(first.Events)-1].Seq
			if _, err := skillcat.ParseChangePage(data, from, to); err != nil {
				t.Errorf("%s: change page example: %v", name, err)
			}
			continue
		case "descriptor-invalid":
			if i+1 >= len(blocks) || blocks[i+1].info != "text" {
				t.Errorf("%s: an invalid example must be followed by a text block of its errors", name)
				continue
			}
			_, vs = skillcat.ParseDescriptor("example.json", data)
			var got strings.Builder
			for _, v := range vs {
				got.WriteString(v.Error() + "\n")
			}
			if want := blocks[i+1].text; got.String() != want {
				t.Errorf("%s: got violations\n%s\nwant (the text block at line %d)\n%s", name, got.String(), blocks[i+1].line, want)
			}
			continue
		default:
			t.Errorf("%s: unknown example kind %q; use descriptor, index, request, response, changes, changes-page or descriptor-invalid", name, kind)
			continue
		}
		if len(vs) > 0 {
			t.Errorf("%s: %s example got violations\n%v\nwant none", name, kind, vs)
		}
	}
	for _, kind := range []string{"descriptor", "index", "request", "response", "changes", "changes-page", "descriptor-invalid"} {
		if seen[kind] == 0 {
			t.Errorf("docs/protocol.md has no %q example", "json "+kind)
		}
	}
}
