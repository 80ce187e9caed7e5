package prof

import (
	"context"
	"os"
	"testing"

	"github.com/skillcat/skillcat/build"
)

func TestProf(t *testing.T) {
	res, err := build.Build(context.Background(), build.Config{Content: os.DirFS("/dev/shm/syn10k"), Out: "/dev/shm/outprof"})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res.Phases)
}
