// Package control runs one reconciliation end to end: validate the spec and
// every check file, load source and sink into DuckDB, prepare exact types,
// run the checks, convert their results into the evidence schema
// (evidence.Summary) and publish the evidence folder with its reports.
// Everything is validated before any input is read, and the evidence folder
// appears only complete.
package control

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/history"
	"github.com/reconcile-dev/reconcile/internal/load"
	"github.com/reconcile-dev/reconcile/internal/memory"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/queries"
	"github.com/reconcile-dev/reconcile/report"
	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/restarts"
)

// Options tune a run beyond the spec.
type Options struct {
	// Queries replaces the embedded check files (nil: queries.FS).
	Queries fs.FS
	// Force replaces an existing evidence folder (at commit time only).
	Force bool
	// Formats are the report formats to write besides summary.json
	// (nil: every registered format).
	Formats []string
	// Log receives progress lines (nil: discarded).
	Log io.Writer
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// SignKey, if set, signs manifest.json (written as manifest.sig).
	SignKey ed25519.PrivateKey
	// MemoryLimit is the run's memory budget, the whole process's, in
	// DuckDB's notation such as "4GB" (--memory-limit); "" takes
	// memory.MachineShare of the memory available to the process (its
	// memory cgroup, else /proc/meminfo). DuckDB gets memory.DuckDBShare of
	// it before it spills to a temporary folder, the Go heap
	// memory.GoShare as its soft limit (see package memory). The budget
	// and where it came from are recorded in summary.json (run.memory).
	MemoryLimit string
}

// Run performs the control described by s and returns its result. The
// evidence folder s.Out is published when the checks ran, whatever their
// verdict; on any error nothing is published.
//
// Errors wrap the sentinel of their cause, whose class (fault.Of) decides
// the exit code: spec.ErrInvalid, checks.ErrLoad, checks.ErrRestarts,
// sources.ErrUnknownKind, sources.ErrInvalidLocation, checks.ErrColumn and
// evidence.ErrExists are usage errors; anything else (an input that cannot
// be read, a bad value, a failed query, duck.ErrOutOfMemory, cancellation)
// is a runtime error. A result whose Status is Fail is not an error.
//
// With a run history (s.History), the exceptions are classified against
// the control's previous run before the evidence is written (a history
// file that is not one wraps history.ErrHistory, exit 2, before any input
// is read), and the run is appended once the folder is published; if that
// fails, Run returns the result and the error (the evidence stands, the
// history is unchanged).
func Run(ctx context.Context, s *spec.Spec, opt Options) (*evidence.Summary, error) {
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	logw := opt.Log
	if logw == nil {
		logw = io.Discard
	}
	started := now().UTC()
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if s.Engine != "" {
		return runOnEngine(ctx, s, opt, now, logw, started)
	}
	if err := noEngineInputs(s, "run"); err != nil {
		return nil, err
	}
	budget, err := budgetOf(opt.MemoryLimit)
	if err != nil {
		return nil, err
	}
	defer budget.Apply()()
	set, err := setUp(ctx, s, opt, logw)
	if err != nil {
		return nil, err
	}
	defer set.ins.Close()

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
	// The spec against the inputs' locations and columns, before any row
	// is read.
	if err := checkLocations(s); err != nil {
		return nil, err
	}
	if err := checkTypes(ctx, s); err != nil {
		return nil, err
	}
	if err := checkColumns(ctx, s, set.ins); err != nil {
		return nil, err
	}

	ss, err := set.ins.load(ctx, budget, logw)
	if err != nil {
		return nil, err
	}
	defer ss.Close()
	prep, err := prepare(ctx, s, set, ss, logw)
	if err != nil {
		return nil, err
	}
	runID := runIDOf(started, s)
	outcomes, err := checks.Run(ctx, ss.db, set.checks, prep.params, logw)
	if err != nil {
		return nil, err
	}
	if err := set.hist.classify(ctx, ss.db, history.Run{Control: Name(s), ID: runID, StartedAt: started,
		Parameters: parametersOf(redactSpec(s)), Comparison: comparisonOf(prep.params)}, outcomes); err != nil {
		return nil, err
	}
	res, duckdbVersion, err := conclude(ctx, s, set, ss, prep, outcomes, folder, logw)
	if err != nil {
		return nil, err
	}
	res.Run = runInfo(runID, started, now().UTC(), duckdbVersion, s)
	res.Run.Memory = memoryOf(budget)
	set.hist.summarize(res, s.Out)
	if err := publish(ctx, folder, set, res, opt.SignKey, s.Out, logw); err != nil {
		return nil, err
	}
	committed = true
	if err := set.hist.record(ctx, ss.db, res, s.Out); err != nil {
		return res, err
	}
	return res, nil
}

// runSetup is what a run reads and opens before any input is read: the
// check files, the restart history, the report writers, the run history
// (checked) and the inputs (opened, not read).
type runSetup struct {
	checks   []*checks.Check
	restarts *restarts.Restarts
	writers  []report.Writer
	hist     *runHistory
	ins      *pair
}

// setUp reads the check files (opt.Queries, else the embedded ones) and
// the spec's restarts, picks the report writers, checks the run history and
// opens the inputs; the source of a re-performance reads only the columns
// it needs (replayColumns), where it lies when it can.
func setUp(ctx context.Context, s *spec.Spec, opt Options, logw io.Writer) (*runSetup, error) {
	fsys := opt.Queries
	if fsys == nil {
		fsys = queries.FS
	}
	all, err := checks.Load(fsys)
	if err != nil {
		return nil, err
	}
	restarts, err := readRestarts(s)
	if err != nil {
		return nil, err
	}
	writers, err := pickWriters(opt.Formats)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", spec.ErrInvalid, err)
	}
	hist, err := openHistory(ctx, s)
	if err != nil {
		return nil, err
	}
	ins, err := openInputs(s, logw)
	if err != nil {
		return nil, err
	}
	if opt.Queries == nil {
		ins.opts[0].Columns = replayColumns(s)
		ins.opts[0].View = readInPlace && ins.opts[0].Columns != nil
	}
	return &runSetup{checks: all, restarts: restarts, writers: writers, hist: hist, ins: ins}, nil
}

// prepared is a loaded session made ready for the checks: their
// parameters, the notes for the evidence, the re-performance, and the
// statements that made table restarts for a sink of records.
type prepared struct {
	params   *checks.Params
	notes    []string
	replay   *replayRun
	restarts []string
}

// prepare checks the input files read, converts the loaded tables to exact
// types (checks.Prepare), reads the sink's uncommitted records (their ids
// normalised as the sink's are) and
// re-performs a windowed sink, and gathers the notes of each step and of
// the inputs.
func prepare(ctx context.Context, s *spec.Spec, set *runSetup, ss *session, logw io.Writer) (*prepared, error) {
	db, inputs := ss.db, ss.inputs
	inputNotes, err := checkInputFiles(s, inputs)
	if err != nil {
		return nil, err
	}
	cols := columnsOf(s)
	cols.SourceLocation, cols.SinkLocation = inputs[0].LocationForm, inputs[1].LocationForm
	cols.SourceProvenance, cols.SinkProvenance = inputs[0].Provenance, inputs[1].Provenance
	cols.SourceDecimalSeparator, cols.SinkDecimalSeparator = inputs[0].Formats.DecimalSeparator, inputs[1].Formats.DecimalSeparator
	if len(inputs) > 2 { // a roll-forward's opening
		cols.Opening, cols.OpeningZone, cols.OpeningLocation = true, s.ZoneOf(spec.RoleOpening), inputs[2].LocationForm
	}
	if cols.BadRecords, err = load.BadRecords(ctx, db, inputs); err != nil {
		return nil, err
	}
	if cols.CommitHistory, err = load.CommitHistory(ctx, db, inputs); err != nil {
		return nil, err
	}
	t0 := time.Now()
	params, notes, err := checks.Prepare(ctx, db, cols)
	if err != nil {
		return nil, err
	}
	if err := countRefused(ctx, db, inputs); err != nil {
		return nil, err
	}
	sinkDir, err := s.InputDir("sink")
	if err != nil {
		return nil, err
	}
	uncommitted, unotes, err := readUncommitted(ctx, db, set.ins.sink, inputs[1], set.ins.opts[1], s.ID, sinkDir)
	if err != nil {
		return nil, err
	}
	params.Uncommitted = uncommitted
	if uncommitted {
		// Matched with the sink's ids, so normalised as they are.
		if err := params.NormalizeKeys(ctx, db, checks.SinkUncommittedTable); err != nil {
			return nil, err
		}
	}
	notes = append(notes, unotes...)
	replay, rnotes, err := prepareReplay(ctx, db, s, params, set.restarts, logw)
	if err != nil {
		return nil, inPlaceError(inputs[0], err)
	}
	notes = append(notes, rnotes...)
	restartsSQL, err := recordRestarts(ctx, db, s, set.restarts)
	if err != nil {
		return nil, err
	}
	notes = append(notes, inputNotes...)
	if n := snapshotNote(inputs[:2], ss.readAt[:2]); n != "" {
		notes = append(notes, n)
	}
	for _, in := range inputs {
		notes = append(notes, in.Notes...)
	}
	fmt.Fprintf(logw, "prepared exact types in %s\n", time.Since(t0).Round(time.Millisecond))
	return &prepared{params: params, notes: notes, replay: replay, restarts: restartsSQL}, nil
}

// countRefused updates each input that lists bad records (bad_records:
// report) for the rows the checks' preparation removed from its table as
// bad records (load.Refuse): its Rows, and, for an input read in place whose
// view had to become a table for it, ReadInPlace and its note.
func countRefused(ctx context.Context, db *duck.DB, inputs []*sources.Input) error {
	for i, in := range inputs {
		if !in.ReportsBadRecords {
			continue
		}
		table := []string{checks.SourceTable, checks.SinkTable, checks.OpeningTable}[i]
		n, err := load.CountRows(ctx, db, table)
		if err != nil {
			return err
		}
		in.Rows = n
		if in.ReadInPlace {
			view, err := db.IsView(ctx, table)
			if err != nil {
				return err
			}
			if !view {
				in.ReadInPlace = false
				in.Notes = slices.DeleteFunc(in.Notes, func(n string) bool { return strings.Contains(n, "was read where it lies") })
			}
		}
	}
	return nil
}

// conclude writes the evidence of the checks' outcomes — the exceptions
// files, the resolved keys of a run history, the queries and the
// re-performance's SQL — once the totals and the replay's attribution are
// computed and every input file is checked unchanged, and returns the
// run's summary, without its Run, and DuckDB's version.
func conclude(ctx context.Context, s *spec.Spec, set *runSetup, ss *session, prep *prepared, outcomes []*checks.Outcome, folder *evidence.Folder, logw io.Writer) (*evidence.Summary, string, error) {
	db, inputs := ss.db, ss.inputs
	t0 := time.Now()
	if err := writeExceptions(ctx, db, folder, outcomes); err != nil {
		return nil, "", err
	}
	fmt.Fprintf(logw, "wrote the exceptions files in %s\n", time.Since(t0).Round(time.Millisecond))
	if err := set.hist.writeResolved(ctx, db, folder); err != nil {
		return nil, "", err
	}
	t0 = time.Now()
	totals, err := checks.ComputeTotals(ctx, db, prep.params, outcomes)
	if err != nil {
		return nil, "", err
	}
	fmt.Fprintf(logw, "computed the totals in %s\n", time.Since(t0).Round(time.Millisecond))
	replaySummary, err := prep.replay.summarize(ctx, db, outcomes)
	if err != nil {
		return nil, "", err
	}
	episodes, err := episodesOf(ctx, db, s, set.restarts, prep, folder)
	if err != nil {
		return nil, "", err
	}
	// The last statement over the inputs has run: each file must still be
	// the one hashed before it was read (an input read in place is read by
	// every statement).
	if err := checkUnchanged(inputs); err != nil {
		return nil, "", err
	}
	if err := writeQueries(folder, outcomes, prep.params); err != nil {
		return nil, "", err
	}
	if err := prep.replay.writeSQL(folder); err != nil {
		return nil, "", err
	}
	dv, err := db.Version(ctx)
	if err != nil {
		return nil, "", err
	}
	res := &evidence.Summary{
		SchemaVersion: evidence.SchemaVersion,
		Status:        evidence.Pass,
		Control:       evidence.Control{Name: s.Name, Description: s.Description},
		Parameters:    parametersOf(redactSpec(s)),
		Totals:        totalsOf(totals),
		Notes:         prep.notes,
		Replay:        replayOf(replaySummary),
		Episodes:      episodes,
		Comparison:    comparisonOf(prep.params),
	}
	res.Notes = append(res.Notes, restartsNotes(s, set.restarts, episodes)...)
	for _, in := range inputs {
		res.Inputs = append(res.Inputs, inputOf(in))
	}
	for _, o := range outcomes {
		res.Checks = append(res.Checks, checkOf(o))
		if o.Status == checks.Fail {
			res.Status = evidence.Fail
		}
	}
	res.Control.Name = Name(s)
	return res, dv, nil
}

// publish writes the reports of res into folder, then the manifest
// (signed with key when set), marks the run as publishing in its run
// history, and commits the folder to its final name.
func publish(ctx context.Context, folder *evidence.Folder, set *runSetup, res *evidence.Summary, key ed25519.PrivateKey, out string, logw io.Writer) error {
	view, err := report.NewView(ctx, res, os.DirFS(folder.Dir()))
	if err != nil {
		return err
	}
	if err := writeReports(ctx, folder, set.writers, view, logw); err != nil {
		return err
	}
	// The manifest fingerprints every other file, so it comes last.
	if _, err := evidence.WriteManifest(ctx, folder.Dir(), res, key); err != nil {
		return err
	}
	if err := set.hist.markPublishing(res, out); err != nil {
		return err
	}
	return folder.Commit()
}

// inPlaceError names the files of an input read where it lies in err: its
// rows are first read by the statement that failed, so a file DuckDB cannot
// read (a corrupt page) fails there, not in the load that names it. A
// refusal of the re-performance's own (a bad timestamp or value, a column),
// which names its input, file and line already, is left as it is: it may
// be about the sink.
func inPlaceError(in *sources.Input, err error) error {
	if !in.ReadInPlace {
		return err
	}
	for _, own := range []error{checks.ErrTime, checks.ErrValue, checks.ErrColumn, spec.ErrInvalid} {
		if errors.Is(err, own) {
			return err
		}
	}
	var names []string
	for i, f := range in.Files {
		if i == 5 {
			names = append(names, fmt.Sprintf("and %d more", len(in.Files)-i))
			break
		}
		names = append(names, f.Path)
	}
	return fmt.Errorf("the %s %s, read where it lies (%s): %w", in.Role, in.Location, strings.Join(names, ", "), err)
}

// readInPlace lets a re-performance read its events where they lie
// (load.Options.View); tests turn it off to compare with the loaded table.
var readInPlace = true

// checkUnchanged waits for the SHA-256 of every input file (hashed while
// the run read them: sources.Input.Hashed) and returns an error wrapping
// sources.ErrChanged, naming the input and the file, when a file of an
// input is no longer the one listed before the run read it
// (sources.File.Unchanged).
func checkUnchanged(inputs []*sources.Input) error {
	for _, in := range inputs {
		if err := in.Hashed(); err != nil {
			return fmt.Errorf("the %s %s: %w", in.Role, in.Location, err)
		}
		for _, f := range in.Files {
			if err := f.Unchanged(); err != nil {
				return fmt.Errorf("the %s %s: %w", in.Role, in.Location, err)
			}
		}
	}
	return nil
}

// checkInputFiles refuses an input file inside the evidence folder (which
// --force would replace) and a file read as two inputs, source and sink
// or either and the opening (the control would compare a file with
// itself: one file by os.SameFile, so a symbolic or hard link too; or one
// table, Input.Relation), both usage errors, and notes an input with no
// records that allow_empty: declares legitimate (without it, the
// population check fails).
func checkInputFiles(s *spec.Spec, inputs []*sources.Input) ([]string, error) {
	out, err := filepath.Abs(s.Out)
	if err != nil {
		return nil, err
	}
	var notes []string
	// Files are the same when os.SameFile says so (device and inode on
	// Unix: a symbolic or hard link, a path spelt otherwise), never by
	// their names; only files of one size can be one file.
	type read struct {
		role, path string
		info       os.FileInfo
	}
	bySize := map[int64][]read{}
	relations := map[string]string{}
	for _, in := range inputs {
		base, err := s.InputDir(in.Role)
		if err != nil {
			return nil, err
		}
		if in.Relation != "" {
			if other, ok := relations[in.Relation]; ok && other != in.Role {
				return nil, fmt.Errorf("%w: %s is read as both %s and %s (%s): the control would compare a table with itself, which proves nothing", spec.ErrInvalid, in.Location, other, in.Role, in.Relation)
			}
			relations[in.Relation] = in.Role
		}
		for _, f := range in.Files {
			p := f.Path
			if !filepath.IsAbs(p) {
				p = filepath.Join(base, p)
			}
			if inside(out, p) || inside(RealPath(out), RealPath(p)) { // a link in either path too
				return nil, fmt.Errorf("%w: the %s file %s lies inside the evidence folder %s, which this run would replace", spec.ErrInvalid, in.Role, f.Path, s.Out)
			}
			fi, err := os.Stat(p)
			if err != nil {
				return nil, fmt.Errorf("the %s file %s: %w", in.Role, f.Path, err)
			}
			for _, o := range bySize[fi.Size()] {
				if o.role != in.Role && os.SameFile(o.info, fi) {
					same := f.Path
					if o.path != f.Path {
						same = fmt.Sprintf("%s (the %s's %s)", f.Path, o.role, o.path)
					}
					return nil, fmt.Errorf("%w: %s is read as both %s and %s: the control would compare a file with itself, which proves nothing", spec.ErrInvalid, same, o.role, in.Role)
				}
			}
			bySize[fi.Size()] = append(bySize[fi.Size()], read{in.Role, f.Path, fi})
		}
		if in.Rows == 0 && slices.Contains(s.AllowEmpty, in.Role) {
			notes = append(notes, fmt.Sprintf("the %s holds no records; allow_empty: [%s] declares that legitimate, so the population check passes", in.Role, in.Role))
		}
	}
	return notes, nil
}

// redactSpec copies s with passwords removed from input URIs and options.
func redactSpec(s *spec.Spec) *spec.Spec {
	c := *s
	c.Engine = sources.Redact(c.Engine)
	ins := []*spec.Input{&c.Source, &c.Sink}
	if s.Opening != nil {
		o := *s.Opening
		c.Opening = &o
		ins = append(ins, c.Opening)
	}
	for _, in := range ins {
		in.URI = sources.Redact(in.URI)
		if in.Options != nil {
			m := make(map[string]any, len(in.Options))
			for k, v := range in.Options {
				if strings.Contains(strings.ToLower(k), "password") {
					v = "xxxxx"
				} else if sv, ok := v.(string); ok {
					v = sources.Redact(sv)
				}
				m[k] = v
			}
			in.Options = m
		}
	}
	return &c
}

// Version is the module version and VCS revision of this build, as Go's
// build info records them ("(devel)" for a plain go build).
func Version() string {
	t, ok := evidence.BuildInfo()
	if !ok {
		return "unknown"
	}
	v := t.Version
	if t.Revision != "" {
		v += " " + t.Revision
	}
	return v
}

// Name is the control's name: the spec's, or its evidence folder's base
// name.
func Name(s *spec.Spec) string {
	if s.Name != "" {
		return s.Name
	}
	return filepath.Base(s.Out)
}

// runIDOf is the id of a run started at started (evidence.Run.ID).
func runIDOf(started time.Time, s *spec.Spec) string {
	return started.Format("20060102T150405Z") + "-" + shortHash(started.String()+s.Out)
}

func runInfo(id string, started, finished time.Time, duckdbVersion string, s *spec.Spec) evidence.Run {
	ri := evidence.Run{
		ID:            id,
		StartedAt:     started.Format(time.RFC3339),
		FinishedAt:    finished.Format(time.RFC3339),
		ToolVersion:   Version(),
		DuckDBVersion: duckdbVersion,
	}
	if u, err := user.Current(); err == nil {
		ri.User = u.Username
	}
	if h, err := os.Hostname(); err == nil {
		ri.Host = h
	}
	if s.File != "" {
		// the bytes Load parsed, not the file as it is now (it may have
		// been edited while the run went on)
		ri.Spec, ri.SpecSHA256 = s.File, s.FileSHA256
	}
	return ri
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

// budgetOf is the run's memory budget: --memory-limit's (limit, a size in
// DuckDB's notation; a malformed one is a spec.ErrInvalid), else the
// machine's share (memory.Machine).
func budgetOf(limit string) (memory.Budget, error) {
	if limit != "" {
		b, err := memory.FromFlag(limit)
		if err != nil {
			return b, fmt.Errorf("%w: %w", spec.ErrInvalid, err)
		}
		return b, nil
	}
	return memory.Machine("/")
}

// memoryOf is the budget as summary.json records it.
func memoryOf(b memory.Budget) *evidence.Memory {
	return &evidence.Memory{LimitBytes: b.Bytes, Source: b.Source, AvailableBytes: b.Available,
		CgroupLimitBytes: b.CgroupLimit, DuckDBBytes: b.DuckDB, GoBytes: b.Go}
}
