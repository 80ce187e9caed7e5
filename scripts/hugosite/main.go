// Command hugosite turns a skillcat content directory (such as one written by
// skillcat-synth) into an equivalent Hugo site, for scripts/compare-hugo.
//
// Usage:
//
//	go run ./scripts/hugosite -content DIR -out SITE
//
// Every source becomes content/skills/<id>.md: the descriptor's members as
// YAML front matter (name renamed to title, description left out) and the
// description as the Markdown body. A private skill gets draft: true, so Hugo
// still reads it but publishes nothing of it, as skillcat does. The site's
// hugo.toml and layouts come from the site folder beside this file.
package main

import (
	"bytes"
	"embed"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

//go:embed all:site
var site embed.FS

func main() {
	content := flag.String("content", "", "skillcat content directory to read (required)")
	out := flag.String("out", "", "Hugo site directory to create (required)")
	flag.Parse()
	if *content == "" || *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*content, *out); err != nil {
		fmt.Fprintf(os.Stderr, "hugosite: %v\n", err)
		os.Exit(1)
	}
}

func run(content, out string) error {
	if err := copySite(out); err != nil {
		return err
	}
	skills := filepath.Join(out, "content", "skills")
	if err := os.MkdirAll(skills, 0o755); err != nil {
		return err
	}
	var sources []string
	err := filepath.WalkDir(content, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != content && (strings.HasPrefix(d.Name(), "_") || strings.HasPrefix(d.Name(), ".")) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if ext := filepath.Ext(p); !d.IsDir() && (ext == ".json" || ext == ".md") {
			sources = append(sources, p)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read content: %w", err)
	}

	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs error
		ids  = map[string]string{}
		next = make(chan string, 64)
	)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range next {
				id, page, err := convert(p)
				if err == nil {
					mu.Lock()
					if prev, dup := ids[id]; dup {
						err = fmt.Errorf("id %q also in %s", id, prev)
					}
					ids[id] = p
					mu.Unlock()
				}
				if err == nil {
					err = os.WriteFile(filepath.Join(skills, id+".md"), page, 0o644)
				}
				if err != nil {
					mu.Lock()
					errs = errors.Join(errs, fmt.Errorf("convert %s: %w", p, err))
					mu.Unlock()
				}
			}
		}()
	}
	for _, p := range sources {
		next <- p
	}
	close(next)
	wg.Wait()
	return errs
}

// copySite writes the embedded hugo.toml and layouts into out.
func copySite(out string) error {
	return fs.WalkDir(site, "site", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(out, filepath.FromSlash(strings.TrimPrefix(p, "site")))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := site.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
}

// convert returns the id of the skill in source p and its Hugo content page.
func convert(p string) (id string, page []byte, err error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return "", nil, err
	}
	var front []byte
	var body string
	if strings.HasSuffix(p, ".md") {
		rest, ok := bytes.CutPrefix(data, []byte("---\n"))
		if !ok {
			return "", nil, errors.New("no front matter")
		}
		var fm []byte
		fm, after, ok := bytes.Cut(rest, []byte("\n---\n"))
		if !ok {
			return "", nil, errors.New("unclosed front matter")
		}
		front, body = fm, strings.TrimLeft(string(after), "\n")
	} else {
		front = data // JSON is YAML
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(front, &doc); err != nil {
		return "", nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return "", nil, errors.New("not an object")
	}
	m := doc.Content[0]
	blockStyle(m)
	var kept []*yaml.Node
	private := false
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		switch k.Value {
		case "description":
			body = v.Value
			continue
		case "name":
			k.Value = "title"
		case "id":
			id = v.Value
		case "access":
			private = v.Value == "private"
		}
		kept = append(kept, k, v)
	}
	if id == "" {
		return "", nil, errors.New("no id")
	}
	if private {
		kept = append(kept,
			&yaml.Node{Kind: yaml.ScalarNode, Value: "draft"},
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"})
	}
	m.Content = kept

	var b bytes.Buffer
	b.WriteString("---\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(m); err != nil {
		return "", nil, err
	}
	b.WriteString("---\n\n")
	b.WriteString(strings.TrimRight(body, "\n"))
	b.WriteString("\n")
	return id, b.Bytes(), nil
}

// blockStyle clears the flow and quoting styles that a JSON source brings,
// so the front matter reads like hand-written YAML.
func blockStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		blockStyle(c)
	}
}
