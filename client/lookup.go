package client

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	skillcat "github.com/skillcat/skillcat"
)

// ErrNotListed means a catalog's index does not list the skill asked for.
var ErrNotListed = errors.New("skill not listed")

// DiscoverSkill fetches the index of the catalog at baseURL, as Discover
// does (within Deadline), and verifies only the descriptor of the skill id.
// It returns the skill, or a *DiscoveryError with the one problem found:
// with the index, an id the index does not list (ErrNotListed), or with
// the descriptor (the errors of Discover). opts applies as it does to
// Discover; its Type, when set, must be the skill's type.
func (c *Client) DiscoverSkill(ctx context.Context, baseURL, id string, opts DiscoverOptions) (skill *VerifiedSkill, err error) {
	defer func() {
		if r := recover(); r != nil {
			skill, err = nil, fmt.Errorf("discover %s: %w: %v", baseURL, ErrInternal, r)
		}
	}()
	u, err := IndexURL(baseURL)
	if err != nil {
		return nil, err
	}
	hc := c.httpClient()
	parent := ctx
	ctx, cancel := c.bounded(ctx, "not verified: discovery")
	defer cancel()
	index, _, final, sig, err := c.openIndex(ctx, parent, hc, u, opts)
	if err != nil {
		return nil, err
	}
	var entry *skillcat.IndexEntry
	for i := range index.Skills {
		if e := &index.Skills[i]; e.ID == id && (opts.Type == "" || e.CapabilityType == opts.Type) {
			entry = e
			break
		}
	}
	if entry == nil {
		msg := "the index lists no skill " + strconv.Quote(id)
		if opts.Type != "" {
			msg += " of type " + string(opts.Type)
		}
		msg += " (" + strconv.Itoa(len(index.Skills)) + " listed; run discover to see them)"
		return nil, &DiscoveryError{IndexURL: final.String(), Problems: []Problem{{ID: id, URL: final.Redacted(), Err: &detailError{ErrNotListed, msg}}}}
	}
	s, name, err := c.fetchSkill(ctx, hc, final, *entry, nil)
	if err != nil {
		if parent.Err() != nil {
			return nil, fmt.Errorf("discover %s: %w", u.Redacted(), context.Cause(parent))
		}
		return nil, &DiscoveryError{IndexURL: final.String(), Problems: []Problem{{ID: id, URL: name, Err: err}}}
	}
	s.Signature = sig
	return &s, nil
}
