package control

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/leftover"
	"github.com/reconcile-dev/reconcile/internal/load"
	"github.com/reconcile-dev/reconcile/internal/memory"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/sources"
)

// pair is the source and the sink of a spec, and its opening when it has
// one (a roll-forward), opened but not read.
type pair struct {
	source, sink sources.Source
	// opening is the spec's opening: (nil for none), loaded as table
	// checks.OpeningTable after the sink, in the same Group.
	opening sources.Source
	// group is shared by both inputs (sources.Group): what one input keeps
	// for the other to read in the same snapshot is released once both
	// are loaded.
	group *sources.Group
	// opts are how each input's columns are named and read once loaded
	// (its rename:, the control's measures): source, then sink, then the
	// opening.
	opts [3]load.Options
	// zones are the zones each input's zone-less timestamps are read in
	// (spec.Spec.ZoneOf), by role.
	zones map[string]string
	// zoneDeclared says, by role, that the spec gives the input a zone (its
	// own time_zone: or the spec's).
	zoneDeclared map[string]bool
}

// openInputs opens the source and sink of s, and its opening, without
// reading them (so location errors surface before anything is created).
// progress receives the loads' progress lines.
func openInputs(s *spec.Spec, progress io.Writer) (*pair, error) {
	srcDir, err := s.InputDir("source")
	if err != nil {
		return nil, err
	}
	sinkDir, err := s.InputDir("sink")
	if err != nil {
		return nil, err
	}
	group := sources.NewGroup()
	src, err := sources.Open(sources.Location{Role: "source", URI: s.Source.URI, Options: s.Source.Options, BaseDir: srcDir, Progress: progress, Group: group})
	if err != nil {
		return nil, err
	}
	sink, err := sources.Open(sources.Location{Role: "sink", URI: s.Sink.URI, Options: s.Sink.Options, BaseDir: sinkDir, Progress: progress, Group: group})
	if err != nil {
		src.Close()
		return nil, err
	}
	p := &pair{source: src, sink: sink, group: group, opts: [3]load.Options{
		{Rename: s.Source.Rename, Measures: s.Measures, TimeZone: s.ZoneOf("source")},
		{Rename: s.Sink.Rename, Measures: s.Measures, TimeZone: s.ZoneOf("sink")},
	}, zoneDeclared: map[string]bool{"source": s.Source.TimeZone != "" || s.TimeZone != "", "sink": s.Sink.TimeZone != "" || s.TimeZone != ""}}
	if o := s.Opening; o != nil {
		dir, err := s.InputDir(spec.RoleOpening)
		if err != nil {
			p.Close()
			return nil, err
		}
		if p.opening, err = sources.Open(sources.Location{Role: spec.RoleOpening, URI: o.URI, Options: o.Options, BaseDir: dir, Progress: progress, Group: group}); err != nil {
			p.Close()
			return nil, err
		}
		p.opts[2] = load.Options{Rename: o.Rename, Measures: s.Measures, TimeZone: s.ZoneOf(spec.RoleOpening)}
		p.zoneDeclared[spec.RoleOpening] = o.TimeZone != "" || s.TimeZone != ""
	}
	return p, nil
}

func (p *pair) Close() {
	p.group.Close()
	p.source.Close()
	p.sink.Close()
	if p.opening != nil {
		p.opening.Close()
	}
}

// session is a DuckDB database, spilling to its own temporary folder
// (named for the process, leftover.MkdirTemp, so that a later run can
// remove it if this one is killed), with
// the source and sink loaded (package load) as the tables
// checks.SourceTable and checks.SinkTable, and an opening as
// checks.OpeningTable.
type session struct {
	db     *duck.DB
	tmp    string
	inputs []*sources.Input // source, then sink, then the opening; locations redacted
	readAt []time.Time      // when each input's read began, by this host's clock
}

// load starts a session and loads the inputs into it (source, sink, then
// the opening). DuckDB is capped at the budget's share
// (memory.Budget.DuckDB) before it spills. logw receives one line per
// input loaded.
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
	loads := []struct {
		table, role string
		src         sources.Source
		opt         load.Options
	}{{checks.SourceTable, "source", p.source, p.opts[0]}, {checks.SinkTable, "sink", p.sink, p.opts[1]}}
	if p.opening != nil {
		loads = append(loads, loads[0])
		loads[2].table, loads[2].role, loads[2].src, loads[2].opt = checks.OpeningTable, spec.RoleOpening, p.opening, p.opts[2]
	}
	for _, in := range loads {
		t0 := time.Now()
		ss.readAt = append(ss.readAt, t0)
		info, err := load.TableWith(ctx, db, in.table, in.src, in.opt)
		if err != nil {
			ss.Close()
			return nil, fmt.Errorf("load %s: %w", in.role, err)
		}
		info.Role = in.role
		if !p.zoneDeclared[in.role] && !readsZoneless(info) {
			info.TimeZone = "" // no value was read in a zone: none to record
		}
		info.Location = sources.Redact(info.Location)
		ss.inputs = append(ss.inputs, info)
		fmt.Fprintf(logw, "loaded %s: %d rows in %s\n", in.role, info.Rows, time.Since(t0).Round(time.Millisecond))
	}
	// Every input is read: a snapshot kept open for the next is done.
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

// snapshotNote says, when at least one input was read in a database
// transaction (Details transaction_started_at) and the two were not read in
// one shared snapshot (Details shared_snapshot true in both), what each was
// read as of — a database snapshot (Details snapshot, PostgreSQL's
// pg_current_snapshot()), a transaction of its own, files or offsets as
// read — and the seconds between the two reads, by this host's clock:
// a record committed to both inputs between the reads shows as missing or
// unexpected. "" otherwise.
func snapshotNote(inputs []*sources.Input, readAt []time.Time) string {
	if len(inputs) != 2 || len(readAt) != 2 {
		return ""
	}
	inTx := func(in *sources.Input) bool { _, ok := in.Details["transaction_started_at"]; return ok }
	a, b := inputs[0], inputs[1]
	if !inTx(a) && !inTx(b) || a.Details["shared_snapshot"] == true && b.Details["shared_snapshot"] == true {
		return ""
	}
	asOf := func(in *sources.Input) string {
		switch snap, ok := in.Details["snapshot"].(string); {
		case ok:
			return fmt.Sprintf("the %s in %s snapshot %s (transaction started %v)", in.Role, in.Kind, snap, in.Details["transaction_started_at"])
		case inTx(in):
			return fmt.Sprintf("the %s in a %s transaction of its own (started %v)", in.Role, in.Kind, in.Details["transaction_started_at"])
		case len(in.Files) > 0:
			return fmt.Sprintf("the %s from its files as they were when read", in.Role)
		}
		return fmt.Sprintf("the %s as its %s location gave it when read", in.Role, in.Kind)
	}
	note := fmt.Sprintf("the source and the sink were not read as of one instant: %s; %s; the sink's read began %.3f s after the source's, so a record written to both in between can show as missing or unexpected", asOf(a), asOf(b), readAt[1].Sub(readAt[0]).Seconds())
	if why, ok := b.Details["shared_snapshot_reason"].(string); ok {
		note += " (sink: " + why + ")"
	}
	return note
}

// readsZoneless reports whether a loaded input holds a zone-less TIMESTAMP
// column or a column declared TIMESTAMP WITH TIME ZONE (types:), whose
// zone-less values were read in the input's zone.
func readsZoneless(in *sources.Input) bool {
	for _, c := range in.Columns {
		if t := strings.ToUpper(c.Type); strings.HasPrefix(t, "TIMESTAMP") && !strings.Contains(t, "WITH TIME ZONE") {
			return true
		}
	}
	for _, d := range in.Declared {
		if t := strings.ToUpper(strings.Join(strings.Fields(d.Type), " ")); t == "TIMESTAMPTZ" || t == "TIMESTAMP WITH TIME ZONE" {
			return true
		}
	}
	return false
}
