package control

import (
	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/sources"
)

// The conversions from the run's results to the evidence schema: the one
// place where a field of checks, sources or spec meets a key of
// summary.json. Each copies field by field, so a renamed Go field is a
// compile error here, never a silently different file.

// parametersOf is the effective spec s (already redacted) as summary.json
// states it.
func parametersOf(s *spec.Spec) *evidence.Parameters {
	p := &evidence.Parameters{
		Name: s.Name, Description: s.Description,
		Source: evidence.InputSpec{URI: s.Source.URI, TimeZone: s.Source.TimeZone, Rename: s.Source.Rename, Options: s.Source.Options},
		Sink:   evidence.InputSpec{URI: s.Sink.URI, TimeZone: s.Sink.TimeZone, Rename: s.Sink.Rename, Options: s.Sink.Options},
		ID:     s.ID, Measures: s.Measures, GroupBy: s.GroupBy, Checkpoint: s.Checkpoint, LogicalKey: s.LogicalKey, Duplicates: s.Duplicates,
		Out: s.Out, Watermark: s.Watermark, Restarts: s.Restarts, TimeZone: s.TimeZone,
		History: s.History, Params: s.Params, Engine: s.Engine,
		Compare: s.Compare, Ignore: s.Ignore, Normalize: s.Normalize, AllowEmpty: s.AllowEmpty,
		Tolerance: tolerancesOf(s.Tolerance), BalanceTolerance: tolerancesOf(s.BalanceTolerance),
	}
	if r := s.Reperform; r != nil {
		w := evidence.Window{Size: r.Window.Size.String()}
		if r.Window.Slide != 0 {
			w.Slide = r.Window.Slide.String()
		}
		if r.Window.Offset != 0 {
			w.Offset = r.Window.Offset.String()
		}
		p.Reperform = &evidence.Reperform{EventTime: r.EventTime, Window: w, WindowEnd: r.WindowEnd, WindowStart: r.WindowStart, GroupBy: r.GroupBy}
		if r.Aggregates != nil {
			p.Reperform.Aggregates = make([]evidence.Aggregate, len(r.Aggregates))
		}
		for i, a := range r.Aggregates {
			p.Reperform.Aggregates[i] = evidence.Aggregate{Column: a.Column, Func: a.Func, Distinct: a.Distinct, Arg: a.Arg}
		}
	}
	if e := s.Emission; e != nil {
		p.Emission = &evidence.Emission{LastBy: e.LastBy}
	}
	if o := s.Opening; o != nil {
		p.Opening = &evidence.InputSpec{URI: o.URI, TimeZone: o.TimeZone, Rename: o.Rename, Options: o.Options}
	}
	if g := s.Grain; g != nil {
		p.Grain = &evidence.Grain{Source: g.Source, Sink: g.Sink, Opening: g.Opening}
	}
	return p
}

// tolerancesOf is a spec's tolerances as written, by column (nil when none).
func tolerancesOf(m map[string]spec.Tolerance) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, t := range m {
		out[k] = t.Text
	}
	return out
}

// comparisonOf is what the checks compared on every matched id (nil for a
// windowed sink, which has no record id).
func comparisonOf(p *checks.Params) *evidence.Comparison {
	if len(p.ID) == 0 {
		return nil
	}
	out := &evidence.Comparison{Compared: []evidence.ComparedColumn{}, Uncompared: []evidence.UncomparedColumn{}}
	for _, c := range p.Compared {
		cc := evidence.ComparedColumn{Column: c.Name, SourceType: c.SourceType, SinkType: c.SinkType, Method: string(c.Method), Normalize: c.Normalize}
		if c.Tolerance != nil {
			cc.Tolerance = c.Tolerance.Text
		}
		if c.ToleranceDefault {
			cc.ToleranceFrom = spec.ToleranceDefault
		}
		cc.NoTolerance = c.NoTolerance
		if c.Method == checks.MethodTimestamp {
			if c.Source.Kind != "zoned" {
				cc.SourceZone = c.Source.Zone
			}
			if c.Sink.Kind != "zoned" {
				cc.SinkZone = c.Sink.Zone
			}
		}
		out.Compared = append(out.Compared, cc)
	}
	for _, u := range p.Uncompared {
		out.Uncompared = append(out.Uncompared, evidence.UncomparedColumn{Column: u.Name, Input: u.Input, Reason: u.Reason})
	}
	return out
}

// inputOf is one loaded input as summary.json states it.
func inputOf(in *sources.Input) *evidence.Input {
	out := &evidence.Input{Role: in.Role, Kind: in.Kind, Location: in.Location, Ignored: in.Ignored, Partitions: in.Partitions, Rows: in.Rows, ReadInPlace: in.ReadInPlace, TimeZone: in.TimeZone, Details: in.Details}
	for _, f := range in.Files {
		ef := evidence.File{Path: f.Path, Bytes: f.Bytes, SHA256: f.SHA256}
		if v := f.ValidLength; v != nil {
			ef.ValidLength = &evidence.ValidLength{SideFile: v.SideFile, SideSHA256: v.SideSHA256, Length: v.Length}
		}
		out.Files = append(out.Files, ef)
	}
	for _, s := range in.Skipped {
		out.Skipped = append(out.Skipped, evidence.SkippedFile{Path: s.Path, Reason: s.Reason, Uncommitted: s.Uncommitted,
			Bytes: s.Bytes, SHA256: s.SHA256, Rows: s.Rows, ReadError: s.ReadError})
	}
	if in.Columns != nil { // "columns" has no omitempty: null and [] differ
		out.Columns = make([]evidence.Column, 0, len(in.Columns))
	}
	for _, c := range in.Columns {
		out.Columns = append(out.Columns, evidence.Column{Name: c.Name, Type: c.Type, RenamedFrom: c.RenamedFrom})
	}
	for _, c := range in.NotRead {
		out.NotRead = append(out.NotRead, evidence.Column{Name: c.Name, Type: c.Type})
	}
	return out
}

// checkOf is one check's outcome as summary.json states it. A check that
// ran names the exceptions CSV writeExceptions wrote (o.File).
func checkOf(o *checks.Outcome) *evidence.Check {
	c := &evidence.Check{ID: o.ID, Assertion: o.Assertion, Description: o.Description, Status: o.Status, Exceptions: o.Exceptions,
		File: o.File, SkipReason: o.SkipReason, Notes: o.Notes, Chart: o.Chart, Finding: o.Finding, WithinTolerance: o.WithinTolerance}
	for _, t := range o.Tolerances {
		c.Tolerances = append(c.Tolerances, evidence.Tolerance{Column: t.Column, Tolerance: t.Tolerance})
	}
	for _, col := range o.Columns {
		c.Columns = append(c.Columns, evidence.Column{Name: col.Name, Type: col.Type, Role: col.Role, Measure: col.Measure})
	}
	return c
}

// totalsOf is the population figures as summary.json states them.
func totalsOf(t *checks.Totals) *evidence.Totals {
	out := &evidence.Totals{SourceRows: t.SourceRows, SinkRows: t.SinkRows, SourceDistinctIDs: t.SourceDistinctIDs, SinkDistinctIDs: t.SinkDistinctIDs, OpeningRows: t.OpeningRows}
	for _, m := range t.Measures {
		out.Measures = append(out.Measures, evidence.MeasureTotal{Name: m.Name, Type: m.Type, SourceSum: m.SourceSum, SinkSum: m.SinkSum, Difference: m.Difference,
			OpeningSum: m.OpeningSum, ExpectedSum: m.ExpectedSum, RollForwardDifference: m.RollForwardDifference})
	}
	return out
}

// replayOf is the re-performance summary as summary.json states it (nil
// for a sink of records).
func replayOf(r *checks.ReplaySummary) *evidence.Replay {
	if r == nil {
		return nil
	}
	out := &evidence.Replay{EventTime: r.EventTime, Window: r.Window, WindowColumn: r.WindowColumn, TimeZone: r.TimeZone, Emission: r.Emission,
		SourceEvents: r.SourceEvents, ExpectedKeys: r.ExpectedKeys, SinkRows: r.SinkRows, SinkDistinctKeys: r.SinkDistinctKeys, SinkRowsPerKey: r.SinkRowsPerKey,
		RestartFiles: r.RestartFiles, RestartNotes: r.RestartNotes, Unexplained: r.Unexplained, UnexplainedKeys: r.UnexplainedKeys}
	if r.Restarts != nil { // "restarts" has no omitempty: null and [] differ
		out.Restarts = make([]evidence.Restart, 0, len(r.Restarts))
	}
	for _, x := range r.Restarts {
		out.Restarts = append(out.Restarts, evidence.Restart{No: x.No, Time: x.Time, RestoredCheckpoint: x.RestoredCheckpoint, RestoredCheckpointTime: x.RestoredCheckpointTime,
			OpenEpoch: x.OpenEpoch, From: x.From, Label: x.Label, Findings: x.Findings, Keys: x.Keys})
	}
	return out
}
