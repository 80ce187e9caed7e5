package browsertest

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestScreenshots photographs the home page, a skill page, a type page and
// the 404 page at desktop and phone widths, light and dark, for people to
// look at. It checks that nothing is wider than the screen.
func TestScreenshots(t *testing.T) {
	s := builtSite(t, sample, true)
	dir := artifactsDir(t)
	skill := screenshotSkill(t, s)
	pages := []struct{ name, path string }{
		{"home", ""},
		{"skill", "skills/" + skill + "/"},
		{"type", "types/api/"},
		{"404", "no/such/page/"},
	}
	ctx := newTab(t)
	for _, width := range []int64{1280, 390} {
		for _, sch := range []string{"light", "dark"} {
			do(t, ctx, viewport(width, 900), scheme(sch))
			for _, p := range pages {
				if p.name == "type" || p.name == "404" {
					if width != 390 || sch != "dark" {
						continue // one look at each is enough
					}
				}
				load(t, ctx, s.URL+p.path)
				if over := eval[float64](t, ctx, `document.documentElement.scrollWidth - document.documentElement.clientWidth`); over > 0 {
					t.Errorf("%s at %dpx (%s): the page is %vpx wider than the screen", p.name, width, sch, over)
				}
				img, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
				if err != nil {
					t.Fatal(err)
				}
				name := filepath.Join(dir, p.name+"-"+strconv.FormatInt(width, 10)+"-"+sch+".png")
				if err := os.WriteFile(name, img, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	t.Logf("screenshots in %s", dir)
}

// screenshotSkill is the skill the screenshots show: the one whose page has
// the most to show (the longest descriptor), so the layout meets tables,
// code and long values.
func screenshotSkill(t *testing.T, s *site) string {
	t.Helper()
	best, size := "", int64(-1)
	for _, e := range s.Index.Skills {
		st, err := os.Stat(filepath.Join(s.Dir, "skills", e.ID+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > size || (st.Size() == size && e.ID < best) {
			best, size = e.ID, st.Size()
		}
	}
	return best
}
