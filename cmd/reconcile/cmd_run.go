package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reconcile-dev/reconcile/internal/control"
	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/report"
)

// runOptions are the parsed flags of `reconcile run`.
type runOptions struct {
	f          *factory
	configs    []string // --config, then the arguments (spec files or folders)
	source     string
	sink       string
	id         string
	measure    string
	groupBy    string
	checkpoint string
	logicalKey string
	duplicates string
	compare    string
	ignore     string
	out        string
	name       string
	queries    string
	formats    []string
	force      bool
	memory     string
	signKey    string
	engine     string
	// sourceOpts and sinkOpts are --source-option and --sink-option
	// KEY=VALUE, in order (input_options.go).
	sourceOpts, sinkOpts []string
	set                  func(name string) bool // whether a flag was given
	nightly                                     // --param, --history, --metrics, --quiet, --progress (suite.go)
}

func newCmdRun(f *factory) *cobra.Command {
	o := &runOptions{f: f}
	cmd := &cobra.Command{
		Use:   "run [--config SPEC]... [SPEC|FOLDER]... [--source URI --sink URI --id COLS --out DIR]",
		Short: "Reconcile a source against a sink and write evidence",
		Long: `Reconcile source records against a sink's committed output.

` + inputKindsHelp() + `

Ids are compared as written (or as a spec's normalize: says); measures as
exact decimals; every other column in both inputs is compared on each
matched id by its type (--compare, --ignore). A YAML spec (--config) holds
the same fields in snake case; flags override it.

Checks: population, null_ids, missing_ids, unexpected_ids, duplicate_ids,
duplicate_postings (--duplicates), normalized_collisions, normalized_matches,
value_mismatches, row_count_balance, sum_balance, key_checkpoint_conflicts.
A windowed sink (reperform: in the spec) is re-performed from the source
events instead: duplicate_keys, reperformance_mismatches, missing_keys,
unexpected_keys, early_writes, superseded_emissions
(docs/replay-forensics.md).
A check whose columns were not given is skipped, not passed.

Several specs (--config given more than once, spec files or folders of
*.yaml as arguments) run as a suite: each control in turn, one evidence
folder each, a roll-up line per control, and the worst exit code of all; a
control that errors does not stop the others. See docs/nightly.md for
--param, history:, --metrics and --quiet.

` + exitCodesHelp,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.set = func(name string) bool { return cmd.Flags().Changed(name) }
			o.configs = append(o.configs, args...)
			return runRun(cmd, o)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&o.configs, "config", nil, "YAML spec file; flags given override its fields (repeat, or give files and folders as arguments, for a suite)")
	onceVar(fl, &o.source, "source", "source records: path, glob or URI (what should have been posted)")
	onceVar(fl, &o.sink, "sink", "committed sink output: path, glob or URI (what was posted)")
	fl.StringArrayVar(&o.sourceOpts, "source-option", nil, "KEY=VALUE: an option of the source's long form (delimiter=';', encoding=latin-1, rename=txn_id:entry_id, …; repeatable)")
	fl.StringArrayVar(&o.sinkOpts, "sink-option", nil, "KEY=VALUE: an option of the sink's long form, as --source-option (repeatable)")
	columnsVar(fl, &o.id, "id", "record id column(s), comma-separated for a composite id")
	columnsVar(fl, &o.measure, "measure", "numeric column(s) to balance as exact decimals, comma-separated")
	columnsVar(fl, &o.groupBy, "group-by", "column(s) to balance count and sums per group, comma-separated")
	onceVar(fl, &o.checkpoint, "checkpoint", "sink column holding the checkpoint/epoch id that wrote each row")
	columnsVar(fl, &o.logicalKey, "logical-key", "sink column(s) of the deterministic output key, comma-separated")
	columnsVar(fl, &o.duplicates, "duplicates", "column(s) that make a posting unique, comma-separated: duplicate_postings lists every combination on more than one row of an input that has them all")
	columnsVar(fl, &o.compare, "compare", "column(s) compared on every matched id, comma-separated (default: every column in both inputs but the id, checkpoint and logical key)")
	columnsVar(fl, &o.ignore, "ignore", "column(s) left out of that default, comma-separated")
	onceVar(fl, &o.out, "out", "evidence folder to create (must not exist unless --force)")
	onceVar(fl, &o.name, "name", "control name for the evidence (default: the evidence folder's name)")
	onceVar(fl, &o.queries, "queries", "folder of check .sql files to use instead of the built-in ones")
	fl.StringSliceVar(&o.formats, "format", nil, "report formats besides summary.json: "+strings.Join(report.Formats(), ", ")+" or all (default all)")
	onceVar(fl, &o.memory, "memory-limit", "memory budget of the whole run, e.g. 4GB; DuckDB spills to disk beyond its share of it (default: half the memory available, cgroup-aware)")
	fl.BoolVar(&o.force, "force", false, "replace an existing evidence folder (only once the new one is complete)")
	onceVar(fl, &o.engine, "engine", "run the checks in a distributed engine instead of the embedded DuckDB: trino://user@host:port, the inputs named as its tables (trino:catalog.schema.table; docs/trino.md)")
	onceVar(fl, &o.signKey, "sign-key", "Ed25519 private key (PEM, PKCS #8) to sign manifest.json with; check with verify --public-key")
	o.nightly.flags(fl)
	return cmd
}

// specFrom merges the spec file config (if any) with the flags given; the
// parameters p go into the file's strings and the flags' values.
func specFrom(o *runOptions, config string, p *spec.Params) (*spec.Spec, error) {
	s := &spec.Spec{}
	if config != "" {
		var err error
		if s, err = spec.LoadWith(config, p); err != nil {
			return nil, err
		}
	}
	var errs []error
	expand := func(field, v string) string {
		out, err := s.ExpandValue(p, field, v)
		if err != nil {
			errs = append(errs, err)
		}
		return out
	}
	// A flag input is kept as written (a libpq key=value string is no
	// path); a file kind resolves its relative paths against the working
	// directory, not the spec file's folder.
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	if o.set("source") {
		s.Source = spec.Input{URI: expand("--source", o.source), Dir: wd}
	}
	if o.set("sink") {
		s.Sink = spec.Input{URI: expand("--sink", o.sink), Dir: wd}
	}
	if err := applyInputOptions(&s.Source, "--source-option", o.sourceOpts, expand); err != nil {
		return nil, err
	}
	if err := applyInputOptions(&s.Sink, "--sink-option", o.sinkOpts, expand); err != nil {
		return nil, err
	}
	if o.set("id") {
		s.ID = spec.SplitColumns(o.id)
	}
	if o.set("measure") {
		s.Measures = spec.SplitColumns(o.measure)
	}
	if o.set("group-by") {
		s.GroupBy = spec.SplitColumns(o.groupBy)
	}
	if o.set("checkpoint") {
		s.Checkpoint = strings.TrimSpace(o.checkpoint)
	}
	if o.set("logical-key") {
		s.LogicalKey = spec.SplitColumns(o.logicalKey)
	}
	if o.set("duplicates") {
		s.Duplicates = spec.SplitColumns(o.duplicates)
	}
	if o.set("compare") {
		s.Compare = spec.SplitColumns(o.compare)
	}
	if o.set("ignore") {
		s.Ignore = spec.SplitColumns(o.ignore)
	}
	if o.set("out") {
		s.Out = expand("--out", o.out)
	}
	if o.set("name") {
		s.Name = expand("--name", o.name)
	}
	if o.set("history") {
		s.History = expand("--history", o.history)
	}
	if o.set("engine") {
		s.Engine = expand("--engine", o.engine)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return s, nil
}

func runRun(cmd *cobra.Command, o *runOptions) error {
	opt := control.Options{Force: o.force, Formats: o.formats, MemoryLimit: o.memory}
	if o.signKey != "" {
		var err error
		if opt.SignKey, err = evidence.LoadPrivateKey(o.signKey); err != nil {
			return fault.Usage.Mark(err)
		}
	}
	if o.queries != "" {
		opt.Queries = os.DirFS(o.queries)
	}
	return runSuite(cmd.Context(), o, opt)
}

// toleranceText is what declared tolerances did to a check's verdict:
// "; 1 within tolerance (amount 0.01)", "" when none applied.
func toleranceText(c *evidence.Check) string {
	if len(c.Tolerances) == 0 {
		return ""
	}
	ts := make([]string, len(c.Tolerances))
	for i, t := range c.Tolerances {
		ts[i] = t.Column + " " + t.Tolerance
	}
	var within int64
	if c.WithinTolerance != nil {
		within = *c.WithinTolerance
	}
	return fmt.Sprintf("; %d within tolerance (%s)", within, strings.Join(ts, ", "))
}
