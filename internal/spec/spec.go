// Package spec reads the definition of one reconciliation control: which
// inputs, which columns identify a record, which measures must balance.
//
// A spec comes from a YAML file (--config), from flags of `reconcile run`,
// or both; flags override the file field by field. The YAML keys are the
// flag names in snake case:
//
//	name: ledger-daily            # control name for the evidence (optional)
//	description: …                # what the control asserts (optional)
//	source: samples/ledger/source.csv        # or {uri: …, kind-specific options}
//	sink:   {uri: "exports/*.csv", delimiter: ";"}
//	id: [entry_id]                # record id; several columns = composite id
//	measures: [amount]            # exact-decimal columns that must balance
//	group_by: [account]           # balance count and sums per group too
//	grain: {sink: balance}        # a balance control (group_by + measures, no id):
//	opening: opening.csv          # postings vs balances, or a roll-forward (ledger.go)
//	checkpoint: checkpoint_id     # sink column: checkpoint/epoch that wrote the row
//	logical_key: [entry_id]       # sink's deterministic output key
//	duplicates: [aid, tid, delta, mtime]   # columns that make a posting unique (duplicate_postings)
//	out: evidence/ledger          # evidence folder
//
// compare, ignore, normalize, tolerance, balance_tolerance and allow_empty
// say how the attributes of matched records are compared and when an empty
// input is legitimate (see accuracy.go).
//
// A windowed (aggregate) sink is described by reperform: instead of id (see
// Reperform); watermark, emission and restarts go with it, and time_zone
// (the zone of zone-less timestamps, for record-level runs too; an input's
// own time_zone: in its long form overrides it, see Spec.ZoneOf):
//
//	reperform:
//	  event_time: event_time      # source column, a timestamp
//	  window: {size: 1h}          # tumbling; {size: 10m, slide: 5m} sliding; offset: as Flink's assigners
//	  window_end: window_end      # sink column (or window_start:)
//	  group_by: [account]         # columns present in both inputs
//	  aggregates: {revenue: sum(amount), events: count(*)}
//	watermark: watermark          # sink column: the watermark when the row was written
//	emission: all                 # or {last_by: emit_seq}
//	restarts: flink/              # Flink REST JSON (checkpoints, exceptions) or CSV
//	time_zone: Europe/Berlin      # zone of timestamps written without one (default UTC)
//
// Nightly operation adds a run history and parameters in any string:
//
//	history: evidence/history.duckdb        # run history (package history)
//	sink: exports/day=${day}/*.csv          # --param day=2026-11-30 (see Params)
//
// An unknown key is an error. Relative paths (file inputs, out) in a file
// are relative to the file's folder.
package spec

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"time"
	_ "time/tzdata" // zone names, whatever the host has installed

	"go.yaml.in/yaml/v3"

	"github.com/reconcile-dev/reconcile/internal/fault"
)

// ErrInvalid wraps every problem with a spec: unreadable YAML, an unknown
// key, a missing required field. It is a usage error (exit code 2).
var ErrInvalid = fault.Usage.New("spec: invalid")

// Spec is one reconciliation control.
type Spec struct {
	Name        string   `yaml:"name,omitempty" json:"name,omitempty"`
	Description string   `yaml:"description,omitempty" json:"description,omitempty"`
	Source      Input    `yaml:"source" json:"source"`
	Sink        Input    `yaml:"sink" json:"sink"`
	ID          []string `yaml:"id" json:"id"`
	Measures    []string `yaml:"measures,omitempty" json:"measures,omitempty"`
	GroupBy     []string `yaml:"group_by,omitempty" json:"group_by,omitempty"`
	Checkpoint  string   `yaml:"checkpoint,omitempty" json:"checkpoint,omitempty"`
	LogicalKey  []string `yaml:"logical_key,omitempty" json:"logical_key,omitempty"`
	// Duplicates are the columns that together make a posting unique
	// (duplicates: [aid, tid, delta, mtime]): the check duplicate_postings
	// lists every combination of their values on more than one row of an
	// input that has all of them, with or without an id. Nil for none.
	Duplicates []string `yaml:"duplicates,omitempty" json:"duplicates,omitempty"`
	Out        string   `yaml:"out,omitempty" json:"out,omitempty"`

	// Opening is a roll-forward's third input: the balances at the start
	// of the period, per group (a balance control only; see ledger.go).
	// Nil for none.
	Opening *Input `yaml:"opening,omitempty" json:"opening,omitempty"`
	// Grain says, per input of a balance control, whether its rows are
	// postings or balances (see ledger.go); nil: every input at posting
	// grain, the opening at balance grain.
	Grain *Grain `yaml:"grain,omitempty" json:"grain,omitempty"`

	// Reperform describes how a windowed sink was computed from the source
	// events; with it, id is not required (an aggregate row has no record id).
	Reperform *Reperform `yaml:"reperform,omitempty" json:"reperform,omitempty"`
	// Watermark is the sink column holding the watermark when the row was
	// written (optional; enables the early-write check).
	Watermark string `yaml:"watermark,omitempty" json:"watermark,omitempty"`
	// Emission says which sink rows of one window and group are compared:
	// all of them (nil or {}), or only the last by a column (late firings).
	Emission *Emission `yaml:"emission,omitempty" json:"emission,omitempty"`
	// Restarts is the path of the job's restart history: a Flink REST JSON
	// response (/jobs/<id>/checkpoints or /jobs/<id>/exceptions), a CSV
	// restart_time,restored_checkpoint_id, or a folder of such files.
	// Relative to the spec's folder.
	Restarts string `yaml:"restarts,omitempty" json:"restarts,omitempty"`
	// TimeZone is the IANA zone in which timestamps written without a zone
	// or offset are read ("" = UTC), in a record-level run as in a
	// windowed one, for each input without a time_zone: of its own.
	// Windows are always assigned on UTC instants.
	TimeZone string `yaml:"time_zone,omitempty" json:"time_zone,omitempty"`
	// History is the run history database file each run appends to and
	// classifies its exceptions against (package history); "" for none.
	// Relative to the spec's folder.
	History string `yaml:"history,omitempty" json:"history,omitempty"`
	// Engine is where the checks run: "" for the embedded DuckDB session,
	// or a distributed engine's URI, trino://user@host:port (package
	// internal/trino; docs/trino.md), whose inputs are then its tables
	// (trino:catalog.schema.table). --engine overrides it.
	Engine string `yaml:"engine,omitempty" json:"engine,omitempty"`

	// Params are the parameters the spec's strings used (see Params) and
	// their values as the evidence records them. Not a YAML key.
	Params map[string]string `yaml:"-" json:"-"`
	// Accuracy of attributes and empty inputs (see accuracy.go): Compare
	// lists the columns compared on every matched id (nil: every column in
	// both inputs but the id, checkpoint and logical-key columns), Ignore
	// removes columns from that default, Normalize compares text columns,
	// and matches and groups text id and group columns, after trimming,
	// removing leading zeros and/or lower-casing, Tolerance and
	// BalanceTolerance accept a difference up to a declared amount, share
	// or duration (by column or measure, or for all not named under the
	// key default: ToleranceDefault), and
	// AllowEmpty names the inputs that may hold no records.
	Compare          []string             `yaml:"compare,omitempty" json:"compare,omitempty"`
	Ignore           []string             `yaml:"ignore,omitempty" json:"ignore,omitempty"`
	Normalize        map[string][]string  `yaml:"normalize,omitempty" json:"normalize,omitempty"`
	Tolerance        map[string]Tolerance `yaml:"tolerance,omitempty" json:"tolerance,omitempty"`
	BalanceTolerance map[string]Tolerance `yaml:"balance_tolerance,omitempty" json:"balance_tolerance,omitempty"`
	AllowEmpty       []string             `yaml:"allow_empty,omitempty" json:"allow_empty,omitempty"`

	// Dir is the folder relative paths resolve against: the spec file's
	// folder, or the working directory for flags. Not a YAML key.
	Dir string `yaml:"-" json:"-"`
	// File is the spec file read, if any. Not a YAML key.
	File string `yaml:"-" json:"-"`
	// FileSHA256 is the SHA-256 (lower-case hex) of File's bytes as Load
	// read them: the spec that runs, whatever the file holds later. Not a
	// YAML key.
	FileSHA256 string `yaml:"-" json:"-"`
}

// Input is the `source:` or `sink:` field: a URI string, or a mapping with a
// `uri:` key and kind-specific options.
type Input struct {
	URI string `json:"uri"`
	// TimeZone is the IANA zone in which this input's timestamps written
	// without a zone or offset are read (the long form's time_zone:, such
	// as Asia/Shanghai for a JDBC sink written by a JVM in that zone); ""
	// falls back to the spec's time_zone, then UTC (see Spec.ZoneOf).
	TimeZone string `json:"time_zone,omitempty"`
	// Rename maps a column's name in this input to the control's name for
	// it (the long form's rename: {txn_id: entry_id}); every other field of
	// the spec, the input's types: included, uses the control's names. It
	// applies to every kind, once the input is loaded (package load), and is
	// checked against the input's columns before any row is read where the
	// kind can tell them (sources.Schemer). Nil for none.
	Rename map[string]string `json:"rename,omitempty"`
	// Options are the kind-specific keys of the long form.
	Options map[string]any `json:"options,omitempty"`
	// Dir is the folder this input's relative file paths resolve against
	// when it is not the spec's: the working directory for an input given
	// as a flag next to a spec file (--config spec.yaml --sink part.csv
	// reads ./part.csv). "" is Spec.Dir (see Spec.InputDir). Only file
	// kinds resolve paths: a connection string or URI is kept as written.
	// Not a YAML key.
	Dir string `yaml:"-" json:"-"`
}

// UnmarshalYAML accepts a scalar URI or a mapping with uri plus options.
func (in *Input) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		in.URI = n.Value
		return nil
	case yaml.MappingNode:
		var m map[string]any
		if err := n.Decode(&m); err != nil {
			return err
		}
		u, ok := m["uri"].(string)
		if !ok || u == "" {
			return fmt.Errorf("line %d: a mapping input needs uri: (a path, glob or connection URI)", n.Line)
		}
		delete(m, "uri")
		in.URI = u
		if z, present := m["time_zone"]; present {
			zs, isStr := z.(string)
			if !isStr || zs == "" {
				return fmt.Errorf("line %d: time_zone: want an IANA zone name such as Europe/Berlin", n.Line)
			}
			in.TimeZone = zs
			delete(m, "time_zone")
		}
		if r, present := m["rename"]; present {
			rm, err := renameOf(r)
			if err != nil {
				return fmt.Errorf("line %d: %w", n.Line, err)
			}
			in.Rename = rm
			delete(m, "rename")
		}
		if len(m) > 0 {
			in.Options = m
		}
		return nil
	}
	return fmt.Errorf("line %d: want a URI or a mapping with uri:", n.Line)
}

// MarshalYAML writes the short form when there are no options.
func (in Input) MarshalYAML() (any, error) {
	if len(in.Options) == 0 && in.TimeZone == "" && len(in.Rename) == 0 {
		return in.URI, nil
	}
	m := map[string]any{"uri": in.URI}
	if in.TimeZone != "" {
		m["time_zone"] = in.TimeZone
	}
	if len(in.Rename) > 0 {
		m["rename"] = in.Rename
	}
	for k, v := range in.Options {
		m[k] = v
	}
	return m, nil
}

// InputDir is the folder the relative paths of one input (role "source",
// "sink" or "opening") resolve against: the input's own Dir (a flag input:
// the working directory), else the spec file's folder, else the working
// directory. An error is the working directory's (os.Getwd).
func (s *Spec) InputDir(role string) (string, error) {
	in := s.Source
	switch {
	case role == "sink":
		in = s.Sink
	case role == RoleOpening && s.Opening != nil:
		in = *s.Opening
	}
	switch {
	case in.Dir != "":
		return in.Dir, nil
	case s.Dir != "":
		return s.Dir, nil
	}
	return os.Getwd()
}

// columns is a YAML list of column names that also accepts one name.
type columns []string

func (c *columns) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*c = []string{n.Value}
		return nil
	}
	var s []string
	if err := n.Decode(&s); err != nil {
		return err
	}
	*c = s
	return nil
}

// Load reads a spec file with no parameters but the built-in ones (see
// LoadWith).
func Load(path string) (*Spec, error) { return LoadWith(path, nil) }

// LoadWith reads a spec file and replaces the placeholders of its strings
// with p (Spec.Expand; nil: only ${run_date} and ${env:NAME}), before
// relative paths are resolved. Errors wrap ErrInvalid and name the file
// and the line or field.
func LoadWith(path string, p *Params) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	s, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := s.Expand(p); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	s.File = path
	sum := sha256.Sum256(data)
	s.FileSHA256 = hex.EncodeToString(sum[:])
	s.Dir = filepath.Dir(abs)
	if s.Out != "" && !filepath.IsAbs(s.Out) {
		s.Out = filepath.Join(s.Dir, s.Out)
	}
	if s.Restarts != "" && !filepath.IsAbs(s.Restarts) {
		s.Restarts = filepath.Join(s.Dir, s.Restarts)
	}
	if s.History != "" && !filepath.IsAbs(s.History) {
		s.History = filepath.Join(s.Dir, s.History)
	}
	return s, nil
}

// Parse decodes YAML. Unknown keys are errors.
func Parse(data []byte) (*Spec, error) {
	var raw struct {
		Name        string     `yaml:"name"`
		Description string     `yaml:"description"`
		Source      Input      `yaml:"source"`
		Sink        Input      `yaml:"sink"`
		ID          columns    `yaml:"id"`
		Measures    columns    `yaml:"measures"`
		GroupBy     columns    `yaml:"group_by"`
		Checkpoint  string     `yaml:"checkpoint"`
		LogicalKey  columns    `yaml:"logical_key"`
		Duplicates  columns    `yaml:"duplicates"`
		Out         string     `yaml:"out"`
		Reperform   *Reperform `yaml:"reperform"`
		Watermark   string     `yaml:"watermark"`
		Emission    *Emission  `yaml:"emission"`
		Restarts    string     `yaml:"restarts"`
		TimeZone    string     `yaml:"time_zone"`
		History     string     `yaml:"history"`
		Engine      string     `yaml:"engine"`

		Compare          columns              `yaml:"compare"`
		Ignore           columns              `yaml:"ignore"`
		Normalize        map[string]columns   `yaml:"normalize"`
		Tolerance        map[string]Tolerance `yaml:"tolerance"`
		BalanceTolerance map[string]Tolerance `yaml:"balance_tolerance"`
		AllowEmpty       columns              `yaml:"allow_empty"`

		Opening *Input `yaml:"opening"`
		Grain   *Grain `yaml:"grain"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, friendlyYAML(syntaxLine(data, err), reflect.TypeOf(raw)))
	}
	var normalize map[string][]string
	for col, ns := range raw.Normalize {
		if normalize == nil {
			normalize = map[string][]string{}
		}
		normalize[col] = ns
	}
	return &Spec{
		Compare: raw.Compare, Ignore: raw.Ignore, Normalize: normalize, Tolerance: raw.Tolerance,
		BalanceTolerance: raw.BalanceTolerance, AllowEmpty: raw.AllowEmpty,
		Name: raw.Name, Description: raw.Description, Source: raw.Source, Sink: raw.Sink, Opening: raw.Opening,
		ID: raw.ID, Measures: raw.Measures, GroupBy: raw.GroupBy, Grain: raw.Grain, Checkpoint: raw.Checkpoint,
		LogicalKey: raw.LogicalKey, Duplicates: raw.Duplicates, Out: raw.Out,
		Reperform: raw.Reperform, Watermark: raw.Watermark, Emission: raw.Emission, Restarts: raw.Restarts, TimeZone: raw.TimeZone,
		History: raw.History, Engine: raw.Engine,
	}, nil
}

var unknownField = regexp.MustCompile(`field (\S+) not found in type (.*)$`)

// friendlyYAML rewrites yaml's "field x not found in type struct {…}" — a Go
// type in a user's face — as "unknown key x", listing the keys the spec's
// top level takes when that is where the key was.
func friendlyYAML(err error, top reflect.Type) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err
	}
	var keys []string
	for i := range top.NumField() {
		keys = append(keys, strings.Split(top.Field(i).Tag.Get("yaml"), ",")[0])
	}
	msgs := make([]string, len(te.Errors))
	for i, m := range te.Errors {
		msgs[i] = unknownField.ReplaceAllStringFunc(m, func(match string) string {
			sub := unknownField.FindStringSubmatch(match)
			if strings.HasPrefix(sub[2], "struct {") {
				return fmt.Sprintf("unknown key %s (a spec takes: %s)", sub[1], strings.Join(keys, ", "))
			}
			return fmt.Sprintf("unknown key %s under %s", sub[1], strings.ToLower(strings.TrimPrefix(sub[2], "spec.")))
		})
	}
	return &friendlyError{msg: strings.Join(msgs, "; "), err: err}
}

type friendlyError struct {
	msg string
	err error
}

func (e *friendlyError) Error() string { return e.msg }
func (e *friendlyError) Unwrap() error { return e.err }

// SplitColumns turns a comma-separated flag value into column names,
// trimming spaces around each name. An empty value gives nil.
func SplitColumns(v string) []string {
	if strings.TrimSpace(v) == "" {
		return nil
	}
	parts := strings.Split(v, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// Validate reports every missing or contradictory field at once, wrapped in
// ErrInvalid.
func (s *Spec) Validate() error {
	var errs []string
	if s.Source.URI == "" {
		errs = append(errs, "source is required (--source or source:)")
	}
	if s.Sink.URI == "" {
		errs = append(errs, "sink is required (--sink or sink:)")
	}
	if len(s.ID) == 0 && s.Reperform == nil && !s.BalanceControl() {
		errs = append(errs, "id is required (--id or id:): the column(s) that identify a record in both inputs (a balance control, which has no record id, needs group_by and measures instead)")
	}
	if s.Out == "" {
		errs = append(errs, "out is required (--out or out:): the evidence folder to create")
	}
	if s.History != "" && s.Name == "" {
		errs = append(errs, "name is required with history: (the history follows a control by its name, which must not change with the evidence folder)")
	}
	// In the order of the spec's keys, so that the same spec always gets
	// the same message.
	for _, f := range []struct {
		field string
		cols  []string
	}{{"id", s.ID}, {"measures", s.Measures}, {"group_by", s.GroupBy}, {"logical_key", s.LogicalKey}, {"duplicates", s.Duplicates}} {
		seen := map[string]bool{}
		for _, c := range f.cols {
			if c == "" {
				errs = append(errs, f.field+": empty column name")
			} else if seen[c] {
				errs = append(errs, f.field+": column "+c+" named twice")
			}
			seen[c] = true
		}
	}
	for _, m := range s.Measures {
		for _, id := range s.ID {
			if m == id {
				errs = append(errs, "column "+m+" is both an id and a measure")
			}
		}
	}
	for _, z := range []struct{ field, zone string }{{"time_zone", s.TimeZone}, {"source.time_zone", s.Source.TimeZone}, {"sink.time_zone", s.Sink.TimeZone}} {
		if z.zone == "" {
			continue
		}
		if _, err := time.LoadLocation(z.zone); err != nil || z.zone == "Local" {
			errs = append(errs, fmt.Sprintf("%s: %q is not an IANA time zone name (such as UTC, Europe/Berlin or Asia/Shanghai)", z.field, z.zone))
		}
	}
	errs = append(errs, validateRename("source.rename", s.Source.Rename)...)
	errs = append(errs, validateRename("sink.rename", s.Sink.Rename)...)
	if len(s.Duplicates) > 0 && s.Reperform != nil {
		errs = append(errs, "duplicates applies to inputs of records or postings; a windowed sink is re-performed (reperform:), where duplicate_keys lists the windows written more than once")
	}
	errs = append(errs, s.validateLedger()...)
	errs = append(errs, s.validateReplay()...)
	errs = append(errs, s.validateAccuracy()...)
	if len(errs) > 0 {
		return fmt.Errorf("%w: %s", ErrInvalid, strings.Join(errs, "; "))
	}
	return nil
}

// DeclaredName is the name: that the spec file at path declares, read
// leniently: it labels a control whose spec cannot be loaded (an unset
// ${parameter}, an unknown key) as its runs are labelled, in metrics and
// messages. It is "" when the file cannot be read or is not YAML, and when
// name: is missing, not a plain string, or holds a ${parameter}.
func DeclaredName(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var doc struct {
		Name string `yaml:"name"`
	}
	if yaml.Unmarshal(b, &doc) != nil || strings.Contains(doc.Name, "${") {
		return ""
	}
	return strings.TrimSpace(doc.Name)
}
