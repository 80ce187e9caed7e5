package skillcat_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/skillcat/skillcat"
)

func TestZZScratch(t *testing.T) {
	for _, f := range []string{"/tmp/scratch/a.json"} {
		data, _ := os.ReadFile(f)
		d, vs := skillcat.ParseDescriptor("a.json", data)
		fmt.Println(d != nil)
		for _, v := range vs {
			fmt.Printf("%s | ptr=%q sev=%s\n", v.Error(), v.Pointer, v.Severity)
		}
	}
}
