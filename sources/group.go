package sources

import (
	"errors"
	"slices"
	"sync"
)

// Group is shared by the inputs of one run, so that a kind can read two
// inputs on the same server as of one instant: PostgreSQL exports the
// first input's snapshot for the second to import (pg_export_snapshot,
// SET TRANSACTION SNAPSHOT); MySQL and MariaDB, which cannot export a
// snapshot, read the second input in the first one's transaction. The first
// input to read keeps what the next one needs under a key naming the
// server (and the snapshot's kind), with a function that releases it; the
// run closes the group once every input is loaded. Inputs are read one
// after another, never at once.
//
// A nil *Group is valid: Get finds nothing and Put releases at once, so a
// kind works the same with or without a group (each input in a snapshot
// of its own).
type Group struct {
	mu     sync.Mutex
	vals   map[string]any
	keys   []string
	closes []func() error
}

// NewGroup returns an empty group.
func NewGroup() *Group { return &Group{vals: map[string]any{}} }

// Get returns what an earlier input kept under key.
func (g *Group) Get(key string) (any, bool) {
	if g == nil {
		return nil, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	v, ok := g.vals[key]
	return v, ok
}

// Put keeps v under key until Close, which calls release (may be nil). On a
// nil group, release runs at once. A key put twice keeps the first value
// and releases the second.
func (g *Group) Put(key string, v any, release func() error) error {
	if g == nil {
		if release != nil {
			return release()
		}
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, dup := g.vals[key]; dup {
		if release != nil {
			return release()
		}
		return nil
	}
	g.vals[key] = v
	g.keys = append(g.keys, key)
	if release != nil {
		g.closes = append(g.closes, release)
	}
	return nil
}

// Close releases everything kept, the last kept first, and returns every
// error joined.
func (g *Group) Close() error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	closes := slices.Clone(g.closes)
	g.vals, g.keys, g.closes = map[string]any{}, nil, nil
	g.mu.Unlock()
	var errs []error
	for i := len(closes) - 1; i >= 0; i-- {
		errs = append(errs, closes[i]())
	}
	return errors.Join(errs...)
}
