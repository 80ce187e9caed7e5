package build

import (
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skillcat/skillcat/store"
)

// TestFullestDirTies: of folders holding equally many files, the fullest
// is the first by name, whatever order the records come in.
func TestFullestDirTies(t *testing.T) {
	files := map[string]store.CachedOutput{}
	for _, d := range []string{"b", "c/d", "a", "c", "ab"} {
		for i := range 3 {
			files[d+"/"+strconv.Itoa(i)] = store.CachedOutput{Size: 1}
		}
	}
	files["c/d/more"] = store.CachedOutput{Size: 1}
	files["zz/0"] = store.CachedOutput{Size: 1}
	for range 20 { // map order varies
		if st := statOutput(maps.All(files)); st.FullestDir != "c/d" || st.FullestDirFiles != 4 {
			t.Fatalf("got %q with %d files, want c/d with 4", st.FullestDir, st.FullestDirFiles)
		}
	}
	delete(files, "c/d/more")
	for range 20 {
		if st := statOutput(maps.All(files)); st.FullestDir != "a" || st.FullestDirFiles != 3 {
			t.Fatalf("ties: got %q with %d files, want a (the first by name) with 3", st.FullestDir, st.FullestDirFiles)
		}
	}
}

func TestHostLimits(t *testing.T) {
	files := map[string]store.CachedOutput{}
	add := func(p string, size int64) { files[p] = store.CachedOutput{Size: size} }
	for i := range 20001 {
		add("skills/s"+strings.Repeat("x", i%3)+"/"+string(rune('a'+i%26))+"-"+strconv.Itoa(i)+".html", 10)
	}
	add("catalog.sqlite", 30<<20)
	st := statOutput(maps.All(files))
	if st.Files != 20002 || st.Largest != "catalog.sqlite" || st.LargestBytes != 30<<20 {
		t.Fatalf("stats: got %+v", st)
	}
	for _, c := range []struct {
		host string
		want []string // each warning's distinctive words, in order
	}{
		{"cloudflare-pages", []string{"20002 files, more than the 20000", "catalog.sqlite is 30.0 MiB, more than the 25.0 MiB"}},
		{"cloudflare-pages-paid", []string{"catalog.sqlite is 30.0 MiB"}},
		{"github-pages", nil},
		{"netlify", nil},
		{"s3-cloudfront", []string{"served uncompressed"}},
	} {
		h, ok := LookupHost(c.host)
		if !ok {
			t.Fatalf("no host %q", c.host)
		}
		got := h.check(st, 10)
		if len(got) != len(c.want) {
			t.Errorf("%s: got %q, want %d warnings", c.host, got, len(c.want))
			continue
		}
		for i, w := range c.want {
			if !strings.Contains(got[i], w) || !strings.Contains(got[i], "; ") {
				t.Errorf("%s: warning %q lacks %q or what to do", c.host, got[i], w)
			}
		}
	}
	// Too many files in one folder, and too many _headers rules.
	for i := range 54001 {
		add("flat/"+strconv.Itoa(i), 1)
	}
	h, _ := LookupHost("netlify")
	if got := h.check(statOutput(maps.All(files)), 10); len(got) != 1 || !strings.Contains(got[0], "/flat holds 54001 files") {
		t.Errorf("netlify: got %q, want the folder /flat named", got)
	}
	h, _ = LookupHost("cloudflare-pages-paid")
	if got := h.check(OutputStats{Files: 1}, 101); len(got) != 1 || !strings.Contains(got[0], "_headers has 101 rules") {
		t.Errorf("cloudflare rules: got %q", got)
	}
}

func TestHostSetting(t *testing.T) {
	fsys := fstest.MapFS{SiteFile: {Data: []byte("---\ntitle: T\nhost: netlify\n---\n")}}
	site, vs := readSite(fsys, func(p string) string { return p })
	if vs != nil || site.Host != "netlify" {
		t.Fatalf("host setting: got %q, %v", site.Host, vs)
	}
	fsys[SiteFile] = &fstest.MapFile{Data: []byte("---\ntitle: T\nhost: vercel\n---\n")}
	_, vs = readSite(fsys, func(p string) string { return p })
	if len(vs) != 1 || vs[0].Field != "host" || vs[0].Line != 3 || !strings.Contains(vs[0].Reason, `unknown host "vercel"; one of github-pages`) {
		t.Fatalf("unknown host: got %v", vs)
	}
	cfg := Config{Out: t.TempDir(), Host: "vercel"}
	if err := checkConfig(&cfg); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "--host") {
		t.Fatalf("--host vercel: got %v, want a configuration error", err)
	}
	w := hostWarnings(Config{}, Site{Host: "cloudflare-pages"}, OutputStats{Files: 30000})
	if len(w) != 1 {
		t.Errorf("the _index.md host is checked: got %q", w)
	}
	if w := hostWarnings(Config{Host: "netlify"}, Site{Host: "cloudflare-pages"}, OutputStats{Files: 30000}); w != nil {
		t.Errorf("--host overrides _index.md: got %q", w)
	}
}

func ExampleHostNames() {
	fmt.Println(HostNames())
	// Output: github-pages, netlify, cloudflare-pages, cloudflare-pages-paid, s3-cloudfront
}
