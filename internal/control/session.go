package control

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/leftover"
	"github.com/reconcile-dev/reconcile/internal/load"
	"github.com/reconcile-dev/reconcile/internal/memory"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/sources"
)

// pair is the source and the sink of a spec, opened but not read.
type pair struct {
	source, sink sources.Source
	// group is shared by both inputs (sources.Group): what one input keeps
	// for the other to read in the same snapshot is released once both
	// are loaded.
	group *sources.Group
}

// openInputs opens the source and sink of s without reading them (so
// location errors surface before anything is created). progress receives
// the loads' progress lines.
func openInputs(s *spec.Spec, progress io.Writer) (*pair, error) {
	dir := s.Dir
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	group := sources.NewGroup()
	src, err := sources.Open(sources.Location{Role: "source", URI: s.Source.URI, Options: s.Source.Options, BaseDir: dir, Progress: progress, Group: group})
	if err != nil {
		return nil, err
	}
	sink, err := sources.Open(sources.Location{Role: "sink", URI: s.Sink.URI, Options: s.Sink.Options, BaseDir: dir, Progress: progress, Group: group})
	if err != nil {
		src.Close()
		return nil, err
	}
	return &pair{source: src, sink: sink, group: group}, nil
}

func (p *pair) Close() {
	p.group.Close()
	p.source.Close()
	p.sink.Close()
}

// session is a DuckDB database, spilling to its own temporary folder
// (named for the process, leftover.MkdirTemp, so that a later run can
// remove it if this one is killed), with
// the source and sink loaded (package load) as the tables
// checks.SourceTable and checks.SinkTable.
type session struct {
	db     *duck.DB
	tmp    string
	inputs []*sources.Input // source, then sink; locations redacted
}

// load starts a session and loads both inputs into it. DuckDB is capped at
// the budget's share (memory.Budget.DuckDB) before it spills. logw receives
// one line per input loaded.
func (p *pair) load(ctx context.Context, budget memory.Budget, logw io.Writer) (*session, error) {
	tmp, err := leftover.MkdirTemp()
	if err != nil {
		return nil, err
	}
	db, err := duck.Open(ctx, tmp)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	ss := &session{db: db, tmp: tmp}
	if err := db.SetMemoryLimit(ctx, memory.DuckDBSize(budget.DuckDB)); err != nil {
		ss.Close()
		return nil, err
	}
	for _, in := range []struct {
		table, role string
		src         sources.Source
	}{{checks.SourceTable, "source", p.source}, {checks.SinkTable, "sink", p.sink}} {
		t0 := time.Now()
		info, err := load.Table(ctx, db, in.table, in.src)
		if err != nil {
			ss.Close()
			return nil, fmt.Errorf("load %s: %w", in.role, err)
		}
		info.Role = in.role
		info.Location = sources.Redact(info.Location)
		ss.inputs = append(ss.inputs, info)
		fmt.Fprintf(logw, "loaded %s: %d rows in %s\n", in.role, info.Rows, time.Since(t0).Round(time.Millisecond))
	}
	// Both inputs are read: a snapshot kept open for the second is done.
	if err := p.group.Close(); err != nil {
		ss.Close()
		return nil, fmt.Errorf("release the inputs' shared snapshot: %w", err)
	}
	return ss, nil
}

// Close releases the database and removes its spill folder.
func (ss *session) Close() {
	ss.db.Close()
	os.RemoveAll(ss.tmp)
}
