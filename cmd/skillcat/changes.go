package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	skillcat "github.com/skillcat/skillcat"
	"github.com/skillcat/skillcat/client"
)

// changesOutput is what discover --since --format json prints.
type changesOutput struct {
	Epoch  string                 `json:"epoch"`
	Latest int64                  `json:"latest"`
	Events []skillcat.ChangeEvent `json:"events"`
}

// followChanges prints the change feed's events after opts.Since, collapsed
// to the last per id, with every upserted descriptor verified, and the
// latest sequence number and epoch for the next call.
func followChanges(ctx context.Context, e *env, c *client.Client, site string, opts client.ChangesOptions, format string) int {
	ch, err := c.Changes(ctx, site, opts)
	if ch != nil {
		var werr error
		if format == "json" {
			out := changesOutput{Epoch: ch.Epoch, Latest: ch.Latest, Events: ch.Events}
			if out.Events == nil {
				out.Events = []skillcat.ChangeEvent{}
			}
			enc := json.NewEncoder(e.stdout)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			werr = enc.Encode(out)
		} else if len(ch.Events) == 0 {
			_, werr = fmt.Fprintf(e.stdout, "no changes after %d\n", opts.Since)
			if werr == nil {
				_, werr = fmt.Fprintf(e.stdout, "latest: %d (epoch %s): next time, --since %d --epoch %s\n", ch.Latest, printable(ch.Epoch), ch.Latest, printable(ch.Epoch))
			}
		} else {
			tw := tabwriter.NewWriter(e.stdout, 0, 8, 2, ' ', 0)
			fmt.Fprintln(tw, "SEQ\tOP\tID\tVERSION")
			for _, ev := range ch.Events {
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", ev.Seq, ev.Op, ev.ID, printable(ev.Version))
			}
			werr = tw.Flush()
			if werr == nil {
				_, werr = fmt.Fprintf(e.stdout, "latest: %d (epoch %s): next time, --since %d --epoch %s\n", ch.Latest, printable(ch.Epoch), ch.Latest, printable(ch.Epoch))
			}
		}
		if werr != nil {
			fmt.Fprintf(e.stderr, "skillcat: discover: write output: %v\n", werr)
			return exitInternal
		}
	}
	if err == nil {
		return exitOK
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		fmt.Fprintf(e.stderr, "skillcat: discover: %s\n", printable(line))
	}
	return exitInvalid
}
