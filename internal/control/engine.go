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
	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/leftover"
	"github.com/reconcile-dev/reconcile/internal/memory"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/internal/trino"
	"github.com/reconcile-dev/reconcile/queries"
	"github.com/reconcile-dev/reconcile/sources"
)

// runOnEngine is Run for a spec whose checks run in a distributed engine
// (s.Engine, a trino:// URI; docs/trino.md): the inputs are the engine's
// tables, read where they lie; each check is rendered in the engine's
// dialect and run there, and only its exception rows travel, into an
// embedded DuckDB session that holds nothing else, from which the
// evidence is written as for an embedded run (the same files, columns and
// order). Before any check runs: what has no exact form on the engine is
// refused (trino.Refuse, trino.Engine.Prepare; exit 2), each input is
// pinned (an Iceberg table to its snapshot) and fingerprinted (rows and
// checksum() of every column), and an input no version pins is
// fingerprinted again after the checks — a change is an error
// (trino.ErrChanged), never evidence of two states. The evidence names the
// engine, its nodes, every input's snapshot and fingerprint, and each
// check's statement as sent with its query id.
func runOnEngine(ctx context.Context, s *spec.Spec, opt Options, now func() time.Time, logw io.Writer, started time.Time) (*evidence.Summary, error) {
	if !trino.IsURI(s.Engine) {
		return nil, fmt.Errorf("%w: engine: %q: want trino://user@host:port (or nothing, for the embedded engine)", spec.ErrInvalid, sources.Redact(s.Engine))
	}
	if _, err := trino.ParseURI(s.Engine); err != nil {
		return nil, err
	}
	if err := trino.Refuse(s); err != nil {
		return nil, err
	}
	if opt.Queries != nil {
		return nil, fmt.Errorf("%w: --queries: check files of one's own have no statements in Trino's dialect; run them on the embedded engine", trino.ErrRefused)
	}
	budget, err := budgetOf(opt.MemoryLimit)
	if err != nil {
		return nil, err
	}
	// The session holds the exceptions only: memory.Budget.Remote.
	budget = budget.Remote()
	defer budget.Apply()()
	all, err := checks.Load(queries.FS)
	if err != nil {
		return nil, err
	}
	writers, err := pickWriters(opt.Formats)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", spec.ErrInvalid, err)
	}
	src, err := trino.ParseInput("source", s.Source.URI, s.Source.Options)
	if err != nil {
		return nil, err
	}
	sink, err := trino.ParseInput("sink", s.Sink.URI, s.Sink.Options)
	if err != nil {
		return nil, err
	}
	src.Rename, sink.Rename = s.Source.Rename, s.Sink.Rename
	if src.Query == "" && src.Name() == sink.Name() && src.Snapshot == sink.Snapshot {
		return nil, fmt.Errorf("%w: %s is read as both source and sink: the control would compare a table with itself, which proves nothing", spec.ErrInvalid, src.Name())
	}
	folder, err := evidence.NewFolder(s.Out, opt.Force)
	if err != nil {
		return nil, err
	}
	committed := false
	defer func() {
		if !committed {
			folder.Abort()
		}
	}()

	eng, err := trino.Open(ctx, s.Engine)
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	nodes, err := eng.Nodes(ctx)
	if err != nil {
		return nil, err
	}
	version, err := eng.Version(ctx)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(logw, "engine %s: Trino %s, %d nodes\n", eng.URI(), version, len(nodes))
	for _, in := range []*trino.Input{src, sink} {
		if err := eng.Describe(ctx, in); err != nil {
			return nil, err
		}
	}
	params, notes, err := eng.Prepare(columnsOf(s), src, sink)
	if err != nil {
		return nil, err
	}
	for _, in := range []*trino.Input{src, sink} {
		t0 := time.Now()
		if in.Before, err = eng.Fingerprint(ctx, in); err != nil {
			return nil, err
		}
		pin := "not pinned: fingerprinted again after the checks"
		if in.Pinned() {
			pin = "snapshot " + in.Snapshot
		}
		fmt.Fprintf(logw, "fingerprinted %s %s: %d rows (%s) in %s\n", in.Role, in.Name(), in.Before.Rows, pin, time.Since(t0).Round(time.Millisecond))
	}

	// The embedded session holds the exception rows only.
	tmp, err := leftover.MkdirTemp()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	db, err := duck.Open(ctx, tmp)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	if err := db.SetMemoryLimit(ctx, memory.DuckDBSize(budget.DuckDB)); err != nil {
		return nil, err
	}
	runID := runIDOf(started, s)
	outcomes, err := checks.RunOn(ctx, eng, db, all, params, logw)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	totals, err := checks.ComputeTotalsOn(ctx, eng, db, params, outcomes)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(logw, "computed the totals in %s\n", time.Since(t0).Round(time.Millisecond))
	for _, in := range []*trino.Input{src, sink} {
		if in.Pinned() {
			continue
		}
		if in.After, err = eng.Fingerprint(ctx, in); err != nil {
			return nil, err
		}
		if !in.After.Same(in.Before) {
			return nil, fmt.Errorf("%w: the %s %s (catalog %s, connector %s, which no version pins) held %d rows when the run began and %d at its end; changed: %s (checksum()): the checks may have read either; run again, or read a snapshot (an Iceberg table)", trino.ErrChanged, in.Role, in.Location, in.Catalog, in.Connector, in.Before.Rows, in.After.Rows, strings.Join(in.Before.Changed(in.After), ", "))
		}
	}
	if err := writeExceptions(ctx, db, folder, outcomes); err != nil {
		return nil, err
	}
	for _, o := range outcomes {
		if o.SQL == "" {
			continue
		}
		if q, ok := eng.Sent(o.SQL); ok {
			o.SQL = fmt.Sprintf("-- check %s, run in Trino at %s as query %s\n%s", o.ID, eng.URI(), q.ID, q.SQL)
		}
	}
	if err := writeQueries(folder, outcomes, params); err != nil {
		return nil, err
	}
	dv, err := db.Version(ctx)
	if err != nil {
		return nil, err
	}
	notes = append(notes, engineNotes(eng.URI(), version, nodes, src, sink, trino.Unsupported(all, params))...)
	res := &evidence.Summary{
		SchemaVersion: evidence.SchemaVersion,
		Status:        evidence.Pass,
		Control:       evidence.Control{Name: Name(s), Description: s.Description},
		Parameters:    parametersOf(redactSpec(s)),
		Totals:        totalsOf(totals),
		Notes:         notes,
		Comparison:    comparisonOf(params),
	}
	for _, in := range []*trino.Input{src, sink} {
		res.Inputs = append(res.Inputs, engineInputOf(eng.URI(), in))
	}
	for _, o := range outcomes {
		res.Checks = append(res.Checks, checkOf(o))
		if o.Status == checks.Fail {
			res.Status = evidence.Fail
		}
	}
	res.Run = runInfo(runID, started, now().UTC(), dv, s)
	res.Run.Memory = memoryOf(budget)
	res.Run.Engine = &evidence.Engine{Name: "trino", URI: eng.URI(), Version: version, Nodes: []evidence.EngineNode{}}
	for _, n := range nodes {
		res.Run.Engine.Nodes = append(res.Run.Engine.Nodes, evidence.EngineNode{ID: n.ID, URI: n.URI, Version: n.Version, Coordinator: n.Coordinator, State: n.State})
	}
	if err := publish(ctx, folder, &runSetup{writers: writers}, res, opt.SignKey, s.Out, logw); err != nil {
		return nil, err
	}
	committed = true
	return res, nil
}

// engineNotes are the notes of a run on Trino: where the checks ran, how
// each input was read (pinned or fingerprinted), and the checks that apply
// but were not run for want of a statement in Trino's dialect.
func engineNotes(uri, version string, nodes []trino.Node, src, sink *trino.Input, unsupported []string) []string {
	var workers []string
	coordinator := ""
	for _, n := range nodes {
		if n.Coordinator {
			coordinator = n.ID
		} else {
			workers = append(workers, n.ID+" ("+n.State+")")
		}
	}
	notes := []string{fmt.Sprintf("the checks ran in Trino %s at %s (coordinator %s; workers %s); only their exception rows and the totals were brought back, into the embedded DuckDB session that wrote this evidence", version, uri, coordinator, strings.Join(workers, ", "))}
	for _, in := range []*trino.Input{src, sink} {
		if in.Pinned() {
			notes = append(notes, fmt.Sprintf("the %s %s was read as of Iceberg snapshot %s (%s, committed %s): FOR VERSION AS OF, so every statement read the same rows; %d rows, fingerprint in details", in.Role, in.Name(), in.Snapshot, in.SnapshotBy, in.SnapshotFacts["committed_at"], in.Before.Rows))
		} else {
			notes = append(notes, fmt.Sprintf("the %s %s (connector %s) cannot be pinned to a version: its fingerprint (rows and checksum() of every column) was taken before and after the checks and is the same, %d rows", in.Role, in.Name(), in.Connector, in.Before.Rows))
		}
	}
	if len(unsupported) > 0 {
		notes = append(notes, fmt.Sprintf("not run on Trino (no statement in Trino's dialect yet, listed as skipped): %s; run on the embedded engine for them", strings.Join(unsupported, ", ")))
	}
	return notes
}

// engineInputOf is an input read by the engine as summary.json states it:
// kind trino, its rows and columns as Trino read them, and in details the
// relation, the connector, the snapshot read and the fingerprints.
func engineInputOf(uri string, in *trino.Input) *evidence.Input {
	out := &evidence.Input{Role: in.Role, Kind: "trino", Location: in.Location, Rows: in.Before.Rows, Columns: []evidence.Column{}}
	for _, c := range in.Columns {
		ec := evidence.Column{Name: c.Name, Type: c.DuckDB}
		if to, ok := in.Rename[c.Name]; ok {
			ec.Name, ec.RenamedFrom = to, c.Name
		}
		if ec.Type == "" {
			ec.Type = "trino " + c.Trino
		}
		out.Columns = append(out.Columns, ec)
	}
	d := map[string]any{"engine": uri, "relation": in.Relation(), "definition": in.Definition, "pinned": in.Pinned(), "fingerprint": in.Before}
	if in.Query != "" {
		d["query"] = in.Query
	} else {
		d["catalog"], d["schema"], d["table"], d["connector"] = in.Catalog, in.Schema, in.Table, in.Connector
	}
	if in.Pinned() {
		d["snapshot_id"], d["snapshot_selected_by"] = in.Snapshot, in.SnapshotBy
		for k, v := range in.SnapshotFacts {
			if k != "table_location" {
				k = "snapshot_" + k
			}
			d[k] = v
		}
	}
	if in.After != nil {
		d["fingerprint_after"] = in.After
	}
	out.Details = d
	return out
}

// noEngineInputs refuses a Trino table or query (trino:…) as an input of
// command cmd when no engine: runs the checks: such an input is read by the
// Trino engine only (docs/trino.md).
func noEngineInputs(s *spec.Spec, cmd string) error {
	ins := map[string]*spec.Input{spec.RoleSource: &s.Source, spec.RoleSink: &s.Sink, spec.RoleOpening: s.Opening}
	for _, role := range []string{spec.RoleSource, spec.RoleSink, spec.RoleOpening} {
		if in := ins[role]; in != nil && trino.IsInput(in.URI) {
			return fmt.Errorf("%w: the %s %s is a Trino table or query, which %s reads only with --engine trino://user@host:port (engine:), the checks run in the cluster (docs/trino.md)", spec.ErrInvalid, role, sources.Redact(in.URI), cmd)
		}
	}
	return nil
}
