package build

import "path"

// IDsCollide reports whether skills a and b cannot both be published: a
// file of one would be a folder of the other (skills "x" and "x.json"
// both need skills/x.json). The build reports it at the id; skillcat new
// refuses such an id before writing.
func IDsCollide(a, b string) bool {
	r := routes{}
	files := map[string]bool{}
	for _, f := range append(r.skillFiles(a), r.skillFiles(b)...) {
		files[f] = true
	}
	for _, id := range []string{a, b} {
		for _, f := range r.skillFiles(id) {
			for dir := path.Dir(f); dir != "."; dir = path.Dir(dir) {
				if files[dir] {
					return true
				}
			}
		}
	}
	return false
}
