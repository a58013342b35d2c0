// Package evidence owns the evidence folder a run publishes: the versioned
// types of summary.json (Summary) and manifest.json (Manifest), the folder's
// layout (every path in it, see ExceptionsFile), its atomic publication
// (Folder) and its verification (Verify).
//
// The types here are the schema. They are their own structs, converted to
// from the run's results (checks.Outcome, sources.Input, spec.Spec) by
// internal/control, so that renaming a field in those packages cannot change
// a file an auditor or a nightly history has kept. SchemaVersion and
// ManifestVersion change when a field is removed or changes meaning; adding
// a field changes neither. The package imports nothing of reconcile but the
// exit classes (internal/fault) and process identity (internal/proc, which
// names staging folders).
package evidence

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// SchemaVersion is the version of the summary.json layout.
const SchemaVersion = 1

// Summary is summary.json: everything a reconciliation established, and
// what every report is rendered from.
type Summary struct {
	// SchemaVersion is SchemaVersion.
	SchemaVersion int `json:"schema_version"`
	// Status is the control's verdict: Pass, or Fail when at least one
	// check failed (skipped and info checks count neither way).
	Status Status `json:"status"`
	// Control names and describes the control.
	Control Control `json:"control"`
	// Run says when, where and with what the control ran.
	Run Run `json:"run"`
	// Parameters is the effective spec — file plus flags — with passwords
	// replaced by "xxxxx".
	Parameters *Parameters `json:"parameters"`
	// Inputs are the source, then the sink, as read: rows, columns and
	// fingerprints.
	Inputs []*Input `json:"inputs"`
	// Checks are the checks that apply to this kind of sink, in run order
	// (the NNN prefix of the check files).
	Checks []*Check `json:"checks"`
	// Totals are the population figures of both inputs.
	Totals *Totals `json:"totals"`
	// Notes are facts about how values were compared (types, NULL-safe
	// ids, time zones) and warnings that make a verdict suspect (they
	// start with "WARNING:").
	Notes []string `json:"notes,omitempty"`
	// Replay is the re-performance of a windowed sink; nil unless the spec
	// has reperform:.
	Replay *Replay `json:"replay,omitempty"`
	// Episodes are the replay episodes of the sink (see Episode), in
	// restart order, those no restart explains last; absent when no key was
	// written more than once or the spec names no checkpoint column.
	Episodes []Episode `json:"replay_episodes,omitempty"`
	// Comparison lists the columns compared on every matched id and the
	// columns of either input left uncompared; nil for a windowed sink.
	Comparison *Comparison `json:"comparison,omitempty"`
	// History is the run history the exceptions were classified against
	// (new, recurring, resolved; see SinceLastRun) and the run recorded in;
	// nil unless the spec has history: (or run --history).
	History *History `json:"history,omitempty"`
}

// Comparison is what a control compared on every matched record id.
type Comparison struct {
	// Compared are the columns compared, in order (compare:, or every
	// column of both inputs but the id, checkpoint and logical key).
	Compared []ComparedColumn `json:"compared"`
	// Uncompared are the columns of either input not compared, with the
	// reason.
	Uncompared []UncomparedColumn `json:"uncompared"`
}

// ComparedColumn is one column compared on every matched id.
type ComparedColumn struct {
	// Column is the column's name in both inputs.
	Column string `json:"column"`
	// SourceType and SinkType are its DuckDB types in each input (a
	// measure: its exact DECIMAL).
	SourceType string `json:"source_type"`
	SinkType   string `json:"sink_type"`
	// Method is how the two are compared: text (byte for byte), number
	// (exact value), float (IEEE value), boolean, date, timestamp
	// (instants), interval (field by field: months, days, microseconds),
	// value (DuckDB's equality of one other type); see checks.Comparison.
	Method string `json:"method"`
	// Normalize are the normalisations of a text column (trim, casefold).
	Normalize []string `json:"normalize,omitempty"`
	// Tolerance is the tolerance the column was compared within, as the
	// spec writes it: the column's own, or tolerance:'s default
	// (ToleranceFrom "default").
	Tolerance string `json:"tolerance,omitempty"`
	// ToleranceFrom is "default" when Tolerance is tolerance:'s default
	// rather than one named for the column; "" otherwise.
	ToleranceFrom string `json:"tolerance_from,omitempty"`
	// NoTolerance says why the column was compared exactly although
	// tolerance: declares a default: "default tolerance 0.01 does not apply
	// to VARCHAR" (an amount or a percentage applies to numbers, a duration
	// to timestamps and dates). "" otherwise.
	NoTolerance string `json:"no_tolerance,omitempty"`
	// SourceZone and SinkZone are, for a timestamp column, the IANA zone
	// the input's zone-less values were read in (absent for an input
	// whose values carry their zone).
	SourceZone string `json:"source_zone,omitempty"`
	SinkZone   string `json:"sink_zone,omitempty"`
}

// UncomparedColumn is a column of either input that was not compared.
type UncomparedColumn struct {
	Column string `json:"column"`
	// Input is "source", "sink" or "both".
	Input string `json:"input"`
	// Reason is why: "id: matched, not compared", "checkpoint id",
	// "logical key", "ignore:", "not in compare:", "only in the source",
	// "only in the sink".
	Reason string `json:"reason"`
}

// Control is the control's identity, from the spec.
type Control struct {
	// Name is the spec's name, or the evidence folder's name.
	Name string `json:"name"`
	// Description is what the control asserts ("" when the spec has none).
	Description string `json:"description,omitempty"`
}

// Run is the metadata of one run. Times are UTC, RFC 3339 with whole
// seconds ("2026-11-29T06:00:00Z").
type Run struct {
	// ID identifies the run: its UTC start (20261129T060000Z) and 8 hex
	// digits of a hash of start and evidence folder.
	ID         string `json:"id"`
	StartedAt  string `json:"started_at"`
	FinishedAt string `json:"finished_at"`
	// User and Host ran reconcile ("" when they could not be read).
	User string `json:"user,omitempty"`
	Host string `json:"host,omitempty"`
	// ToolVersion is reconcile's module version and VCS revision.
	ToolVersion   string `json:"tool_version"`
	DuckDBVersion string `json:"duckdb_version"`
	// Spec is the spec file as given (--config) and SpecSHA256 the SHA-256
	// of its bytes, lower-case hex ("" when the spec came from flags).
	Spec       string `json:"spec_file,omitempty"`
	SpecSHA256 string `json:"spec_sha256,omitempty"`
	// Memory is the memory budget the run had and where it came from
	// (nil in evidence written before it was recorded).
	Memory *Memory `json:"memory,omitempty"`
	// Engine is the distributed engine the checks ran in (nil: the
	// embedded DuckDB session, which then only wrote the evidence).
	Engine *Engine `json:"engine,omitempty"`
}

// Engine is the distributed engine a run's checks ran in: its URI (no
// password), its name and version, and its nodes when the run began.
type Engine struct {
	Name    string       `json:"name"`
	URI     string       `json:"uri"`
	Version string       `json:"version"`
	Nodes   []EngineNode `json:"nodes"`
}

// EngineNode is one node of the engine's cluster (Trino's
// system.runtime.nodes).
type EngineNode struct {
	ID          string `json:"node_id"`
	URI         string `json:"http_uri"`
	Version     string `json:"version"`
	Coordinator bool   `json:"coordinator"`
	State       string `json:"state"`
}

// Memory is a run's memory budget (package memory): the whole process's,
// and the shares of it given to DuckDB (its memory_limit, beyond which it
// spills to disk) and to the Go heap (its soft limit). Sizes in bytes.
type Memory struct {
	LimitBytes int64 `json:"limit_bytes"`
	// Source is where LimitBytes came from: "--memory-limit", or the
	// machine's figure it is a share of: "cgroup v2 memory.max", "cgroup
	// v1 memory.limit_in_bytes" (the cgroup's limit less its usage) or
	// "/proc/meminfo MemAvailable".
	Source string `json:"source"`
	// AvailableBytes is the available memory the source read (0 for
	// --memory-limit); CgroupLimitBytes the memory cgroup's limit (0: none
	// found).
	AvailableBytes   int64 `json:"available_bytes,omitempty"`
	CgroupLimitBytes int64 `json:"cgroup_limit_bytes,omitempty"`
	DuckDBBytes      int64 `json:"duckdb_memory_limit_bytes"`
	GoBytes          int64 `json:"go_memory_limit_bytes"`
}

// Parameters is the effective spec, key for key as a spec file writes it
// (see the README's spec reference).
type Parameters struct {
	Name        string    `json:"name,omitempty"`
	Description string    `json:"description,omitempty"`
	Source      InputSpec `json:"source"`
	Sink        InputSpec `json:"sink"`
	// ID are the record id columns; null for a windowed sink.
	ID         []string `json:"id"`
	Measures   []string `json:"measures,omitempty"`
	GroupBy    []string `json:"group_by,omitempty"`
	Checkpoint string   `json:"checkpoint,omitempty"`
	LogicalKey []string `json:"logical_key,omitempty"`
	// Duplicates are the columns that make a posting unique (duplicates:),
	// which duplicate_postings checks for repeated rows.
	Duplicates []string `json:"duplicates,omitempty"`
	// Out is the evidence folder, as resolved (relative to the working
	// directory, or absolute when the spec file gave it).
	Out       string     `json:"out,omitempty"`
	Reperform *Reperform `json:"reperform,omitempty"`
	Watermark string     `json:"watermark,omitempty"`
	// Emission is "all" or {"last_by": column}; absent when not given.
	Emission *Emission `json:"emission,omitempty"`
	// Restarts is the restart history read (a file or folder path).
	Restarts string `json:"restarts,omitempty"`
	// TimeZone is the IANA zone of zone-less timestamps ("" = UTC).
	TimeZone string `json:"time_zone,omitempty"`
	// History is the run history database file (absolute, or relative to
	// the working directory when given as a flag).
	History string `json:"history,omitempty"`
	// Engine is the spec's engine: (a distributed engine's URI, no
	// password); absent for the embedded engine.
	Engine string `json:"engine,omitempty"`
	// Params are the parameters the spec's strings used (${name}: given
	// with run --param; run_date: built in, the UTC date of the run;
	// env:NAME: the environment, whose value is never recorded) and their
	// values. The strings above hold the values put in.
	Params map[string]string `json:"params,omitempty"`
	// Compare, Ignore, Normalize, Tolerance, BalanceTolerance and
	// AllowEmpty are the spec's keys of the same names (tolerances as
	// written: "0.01", "0.1%", "2s").
	Compare          []string            `json:"compare,omitempty"`
	Ignore           []string            `json:"ignore,omitempty"`
	Normalize        map[string][]string `json:"normalize,omitempty"`
	Tolerance        map[string]string   `json:"tolerance,omitempty"`
	BalanceTolerance map[string]string   `json:"balance_tolerance,omitempty"`
	AllowEmpty       []string            `json:"allow_empty,omitempty"`

	// Opening is the spec's opening: (a roll-forward's third input) and
	// Grain its grain: (a balance control's inputs: posting or balance,
	// as written); each absent without.
	Opening *InputSpec `json:"opening,omitempty"`
	Grain   *Grain     `json:"grain,omitempty"`
}

// Grain is the spec's grain: key, per input: "posting", "balance" or
// absent (the default: posting for source and sink, balance for the
// opening).
type Grain struct {
	Source  string `json:"source,omitempty"`
	Sink    string `json:"sink,omitempty"`
	Opening string `json:"opening,omitempty"`
}

// InputSpec is the spec's source: or sink: — the URI (password removed) and
// the kind's options as given (values as YAML read them: text, numbers,
// booleans, lists, mappings).
type InputSpec struct {
	URI string `json:"uri"`
	// TimeZone is the input's own time_zone: (IANA name), in which its
	// zone-less timestamps are read; absent when the spec's applies.
	TimeZone string `json:"time_zone,omitempty"`
	// Rename maps the input's column names to the control's (rename:),
	// absent without.
	Rename  map[string]string `json:"rename,omitempty"`
	Options map[string]any    `json:"options,omitempty"`
}

// Reperform is the spec's reperform: key, a windowed sink's definition.
type Reperform struct {
	// EventTime is the source column of each event's timestamp.
	EventTime string `json:"event_time"`
	Window    Window `json:"window"`
	// WindowEnd or WindowStart (one of them) is the sink column naming a
	// row's window.
	WindowEnd   string   `json:"window_end,omitempty"`
	WindowStart string   `json:"window_start,omitempty"`
	GroupBy     []string `json:"group_by,omitempty"`
	// Aggregates are the sink columns and their aggregates, in spec order.
	Aggregates []Aggregate `json:"aggregates"`
}

// Window is an event-time window assigner. Durations are text in the spec's
// syntax: Go durations ("1h", "10m", "1h30m") or whole days ("1d").
type Window struct {
	Size string `json:"size"`
	// Slide is "" for a tumbling window.
	Slide  string `json:"slide,omitempty"`
	Offset string `json:"offset,omitempty"`
}

// Aggregate is one sink column and the aggregate over source columns that
// produced it.
type Aggregate struct {
	// Column is the sink column.
	Column string `json:"column"`
	// Func is sum, count, min or max.
	Func string `json:"func"`
	// Distinct is true for count(distinct arg).
	Distinct bool `json:"distinct,omitempty"`
	// Arg is the source column, or "*" for count(*).
	Arg string `json:"arg"`
}

// Emission is the spec's emission: "all" (LastBy empty) or {"last_by":
// column}, in JSON as in the spec.
type Emission struct {
	LastBy string
}

// MarshalJSON writes "all" or {"last_by": column}.
func (e Emission) MarshalJSON() ([]byte, error) {
	if e.LastBy == "" {
		return json.Marshal("all")
	}
	return json.Marshal(map[string]string{"last_by": e.LastBy})
}

// UnmarshalJSON reads "all" or {"last_by": column}.
func (e *Emission) UnmarshalJSON(data []byte) error {
	var s string
	if json.Unmarshal(data, &s) == nil {
		if s != "all" {
			return fmt.Errorf("emission %q: want \"all\" or {\"last_by\": column}", s)
		}
		*e = Emission{}
		return nil
	}
	var m struct {
		LastBy string `json:"last_by"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil || m.LastBy == "" {
		return fmt.Errorf("emission %s: want \"all\" or {\"last_by\": column}", data)
	}
	e.LastBy = m.LastBy
	return nil
}

// Input is one input as read.
type Input struct {
	// Role is "source" or "sink".
	Role string `json:"role"`
	// Kind is the input kind that read it: csv, parquet, ndjson, postgres.
	Kind string `json:"kind"`
	// Location is the URI or path, password removed.
	Location string `json:"location"`
	// Files are every file read, in read order (none for a database).
	Files []File `json:"files,omitempty"`
	// Skipped are every file the location (a folder or glob) matched that
	// was not read as records, in path order, each with the reason: output
	// a job wrote but did not commit (a Flink FileSink in-progress or
	// pending part file, …), a commit marker, a checksum, a valid-length
	// side file (applied to its part file: see File.ValidLength).
	Skipped []SkippedFile `json:"skipped_files,omitempty"`
	// Ignored are the paths of Skipped. Deprecated: kept, with the same
	// paths, for readers of ignored_files written before skipped_files
	// (which adds the reasons); new readers read Skipped.
	Ignored []string `json:"ignored_files,omitempty"`
	// Partitions are the columns read from Hive-style key=value folder
	// names (the partitions: option), text, in order; absent without.
	Partitions []string `json:"partitions,omitempty"`
	// Rows is the number of records loaded.
	Rows int64 `json:"rows"`
	// Columns are the columns as loaded (provenance columns __file,
	// __line, __row left out), with their DuckDB types.
	Columns []Column `json:"columns"`
	// NotRead are the input's columns the run did not read, with their
	// types: no check of the control uses them (a re-performance reads
	// the event time, the group and the aggregated columns of its events,
	// and nothing else). Absent when every column was read.
	NotRead []Column `json:"columns_not_read,omitempty"`
	// ReadInPlace says the records were not copied into the run's DuckDB
	// session: the input's relation was a view over its files, so every
	// statement read the files themselves, which the run checked
	// unchanged (size, modification time, file identity) after its last
	// statement. A re-performance's events of one Parquet schema are read
	// so. Absent (false) when the input was loaded as a table.
	ReadInPlace bool `json:"read_in_place,omitempty"`
	// TimeZone is the IANA zone this input's zone-less timestamps were
	// read in (a TIMESTAMP column, PostgreSQL timestamp, MySQL DATETIME,
	// Parquet timestamp without a UTC adjustment, text declared
	// TIMESTAMPTZ without an offset): the input's time_zone:, else the
	// spec's, else UTC. Absent when no zone was declared and the input has
	// no such column.
	TimeZone string `json:"time_zone,omitempty"`
	// Details are the kind's facts on "as of what" the input was read
	// (for PostgreSQL: server_version, database, user, snapshot, wal_lsn,
	// transaction_started_at, sql, columns, …), as JSON values.
	Details map[string]any `json:"details,omitempty"`
}

// File is one file read: path as given (relative to the spec's folder or
// the working directory), size in bytes, SHA-256 of its bytes in
// lower-case hex.
type File struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
	// ValidLength, when present, is the valid-length side file that says
	// how many of the file's bytes are committed: only those were read
	// (Bytes and SHA256 stay those of the whole file as stored).
	ValidLength *ValidLength `json:"valid_length,omitempty"`
}

// ValidLength is a valid-length side file applied to a part file (Flink's
// BucketingSink writes one beside a part file it could not truncate after a
// restore).
type ValidLength struct {
	// SideFile is the side file's path, as File.Path gives paths.
	SideFile string `json:"side_file"`
	// SideSHA256 is the SHA-256 of the side file's bytes, lower-case hex.
	SideSHA256 string `json:"side_file_sha256"`
	// Length is the committed length in bytes (of the file as stored).
	Length int64 `json:"length"`
}

// SkippedFile is a file a location matched that was not read as records.
type SkippedFile struct {
	// Path is the file, as File.Path gives paths.
	Path string `json:"path"`
	// Reason names the rule that skipped it and the rule's source.
	Reason string `json:"reason"`
	// Uncommitted is true for a file that holds output written but not
	// committed. A sink's uncommitted files are read, when readable, only
	// to label findings (a missing id that sits in one carries its
	// location in uncommitted_file), never as records.
	Uncommitted bool `json:"uncommitted,omitempty"`
	// Bytes and SHA256 fingerprint an uncommitted sink file that was read.
	Bytes  int64  `json:"bytes,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
	// Rows is the number of records read from it (up to its last line
	// break when it is uncompressed text); absent when it was not read.
	Rows *int64 `json:"rows,omitempty"`
	// ReadError says why an uncommitted sink file could not be read.
	ReadError string `json:"read_error,omitempty"`
}

// Column is one column of an input or of a check's exception table.
type Column struct {
	// Name is the column name, exactly as loaded or as the check's query
	// returns it (the exceptions CSV's header).
	Name string `json:"name"`
	// Type is the DuckDB type: VARCHAR, BIGINT, DECIMAL(38,2),
	// TIMESTAMP WITH TIME ZONE, BOOLEAN, INTERVAL, …
	Type string `json:"type"`
	// RenamedFrom, for an input column the spec's rename: renamed, is its
	// name in the input (Name is the control's); absent otherwise.
	RenamedFrom string `json:"renamed_from,omitempty"`
	// Role, for an exception column, is what the column holds as the check
	// declares it — a record id, a group, a logical key, checkpoint ids, a
	// restart, a window's start or end, a source or sink figure or their
	// difference, a location (the values of checks.Role…); "" for none or
	// for an input column.
	Role string `json:"role,omitempty"`
	// Measure, for a source, sink or difference figure, names the measure
	// or aggregate it is of ("" for row counts).
	Measure string `json:"measure,omitempty"`
}

// Check is the outcome of one check.
type Check struct {
	// ID is the check id (the check file's name without its NNN_ prefix).
	ID string `json:"id"`
	// Assertion is "completeness", "accuracy" or "completeness, accuracy".
	Assertion   string `json:"assertion"`
	Description string `json:"description"`
	Status      Status `json:"status"`
	// Exceptions is the number of exception rows: every one, never a
	// sample (0 when skipped).
	Exceptions int64 `json:"exceptions"`
	// WithinTolerance counts the rows whose difference is within a
	// declared tolerance (the column of role within_tolerance is true):
	// listed in the exceptions file with the exceptions, but not
	// exceptions. Absent for a check whose rows have no such column.
	WithinTolerance *int64 `json:"within_tolerance,omitempty"`
	// Tolerances are the declared tolerances the check applied, column by
	// column (none when none was declared).
	Tolerances []Tolerance `json:"tolerances,omitempty"`
	// File is the exceptions CSV (ExceptionsFile); "" when skipped. It
	// holds Exceptions + WithinTolerance rows.
	File string `json:"exceptions_file,omitempty"`
	// SkipReason says which spec fields a skipped check needed.
	SkipReason string `json:"skip_reason,omitempty"`
	// Notes qualify the check's result (partly NULL composite ids, …).
	Notes []string `json:"notes,omitempty"`
	// Columns are the exception table's columns, in the CSV's order, with
	// their DuckDB types and roles (none when skipped).
	Columns []Column `json:"columns,omitempty"`
	// Chart names the picture of report.html the exceptions feed
	// ("balance", "replayed_keys", "reperformance"; "" for none), as the
	// check file declares it ("-- chart:"). A failed check whose columns
	// have the role window_start or window_end is drawn on the window
	// timeline whatever its chart.
	Chart string `json:"chart,omitempty"`
	// Finding is "replay" when the exception rows are replay findings that
	// Replay attributes to restarts; "" otherwise.
	Finding string `json:"finding,omitempty"`
	// SinceLastRun classifies the exceptions against the previous run of
	// the control in the run history (nil without a history, or when the
	// check was skipped).
	SinceLastRun *SinceLastRun `json:"since_last_run,omitempty"`
}

// Tolerance is one declared tolerance a check applied.
type Tolerance struct {
	// Column is the compared column or measure.
	Column string `json:"column"`
	// Tolerance is as the spec writes it: an amount ("0.01"), a share of
	// the source value ("0.1%") or a duration ("2s").
	Tolerance string `json:"tolerance"`
}

// Rows is the number of rows of the check's exceptions file: its
// exceptions and the rows within tolerance.
func (c *Check) Rows() int64 {
	if c.WithinTolerance == nil {
		return c.Exceptions
	}
	return c.Exceptions + *c.WithinTolerance
}

// Totals are the population figures. Distinct ids leave NULL ids out and
// count composite ids NULL-safely; both are 0 for a windowed sink, which
// has no record id (Replay counts its keys).
type Totals struct {
	SourceRows        int64          `json:"source_rows"`
	SinkRows          int64          `json:"sink_rows"`
	SourceDistinctIDs int64          `json:"source_distinct_ids"`
	SinkDistinctIDs   int64          `json:"sink_distinct_ids"`
	Measures          []MeasureTotal `json:"measures,omitempty"`
	// OpeningRows is the opening's rows in a roll-forward (spec
	// opening:); absent without one.
	OpeningRows *int64 `json:"opening_rows,omitempty"`
}

// MeasureTotal is the exact sum of one measure on both sides: decimal text
// at the measure's scale ("3375343.63"), Difference = sink − source.
type MeasureTotal struct {
	Name string `json:"name"`
	// Type is the exact type the sums are computed in: DECIMAL(38,s).
	Type       string `json:"type"`
	SourceSum  string `json:"source_sum"`
	SinkSum    string `json:"sink_sum"`
	Difference string `json:"difference"`
	// In a roll-forward (spec opening:), OpeningSum is the opening's sum,
	// ExpectedSum the opening's plus the source's (the postings), and
	// RollForwardDifference = sink − expected: the control in total.
	// Absent without an opening.
	OpeningSum            string `json:"opening_sum,omitempty"`
	ExpectedSum           string `json:"expected_sum,omitempty"`
	RollForwardDifference string `json:"roll_forward_difference,omitempty"`
}

// Replay is the re-performance of a windowed sink: the populations, the
// sink's rows per logical key and what the restarts explain.
type Replay struct {
	// EventTime is the source column of the event time; Window the
	// assigner in words ("tumbling 1h", "sliding 10m every 5m, offset
	// -1h"); WindowColumn the sink column naming the window.
	EventTime    string `json:"event_time"`
	Window       string `json:"window"`
	WindowColumn string `json:"window_column"`
	// TimeZone is the zone zone-less timestamps were read in.
	TimeZone string `json:"time_zone"`
	// Emission is "all" or "last_by <column>".
	Emission string `json:"emission"`
	// SourceEvents counts source rows with an event time; ExpectedKeys the
	// windows and groups re-performed from them.
	SourceEvents int64 `json:"source_events"`
	ExpectedKeys int64 `json:"expected_keys"`
	// SinkRows and SinkDistinctKeys count the sink rows compared (with
	// last_by: the emissions that count) and their distinct logical keys
	// (window + group).
	SinkRows         int64 `json:"sink_rows"`
	SinkDistinctKeys int64 `json:"sink_distinct_keys"`
	// SinkRowsPerKey is SinkRows / SinkDistinctKeys rounded to 4 decimals:
	// 1.0 for a sink that writes each window once (0 when the sink is
	// empty).
	SinkRowsPerKey float64 `json:"sink_rows_per_key"`
	// Restarts are the restarts seen, in time order, each with the
	// findings it explains (null when no restart history was given).
	Restarts []Restart `json:"restarts"`
	// RestartFiles are the restart history files read; RestartNotes what
	// reading them established (a restore the history does not reach, …).
	RestartFiles []string `json:"restart_files,omitempty"`
	RestartNotes []string `json:"restart_notes,omitempty"`
	// Unexplained counts, per check id, the findings no restart explains:
	// the alarming ones.
	Unexplained map[string]int64 `json:"unexplained_findings"`
	// UnexplainedKeys counts the distinct windows and groups among them.
	UnexplainedKeys int64 `json:"unexplained_keys"`
}

// Restart is one restart of the job and the findings it explains.
type Restart struct {
	// No numbers the restarts from 1 in time order.
	No int `json:"no"`
	// Time is when the job failed (Flink: the exception history entry) or
	// restored (Flink: latest.restored; CSV: restart_time), UTC, RFC 3339
	// with the fraction it has.
	Time time.Time `json:"time"`
	// RestoredCheckpoint is the checkpoint id restored, -1 when unknown.
	RestoredCheckpoint int64 `json:"restored_checkpoint"`
	// RestoredCheckpointTime is when that checkpoint was triggered (its
	// barrier), when the history says.
	RestoredCheckpointTime *time.Time `json:"restored_checkpoint_time,omitempty"`
	// OpenEpoch is the highest checkpoint epoch a row written before the
	// restart can carry: 1 + the highest checkpoint id triggered before
	// Time, or RestoredCheckpoint + 1 without a history.
	OpenEpoch int64 `json:"open_epoch"`
	// From is the file the restart was read from (base name).
	From string `json:"from"`
	// Label names the restart in exception rows ("restart 1 at
	// 2026-11-26T03:14:20Z from checkpoint 97").
	Label string `json:"label"`
	// Findings counts the exception rows per check id it explains.
	Findings map[string]int64 `json:"findings"`
	// Keys counts the distinct windows and groups among them.
	Keys int64 `json:"keys"`
}

// Episode is one replay episode: the keys of the sink written again under
// one pair of checkpoint ids, attributed to the restart that rewound the
// earlier write (package checks, queries/replay/episodes.sql). A key's
// copies are ordered by checkpoint epoch, then input order; each copy after
// the first is a write again, across the pair (the copy before it, this
// copy).
type Episode struct {
	// Restart is the label of the restart that explains the episode
	// ("restart 1 at 2026-11-27T03:14:00Z from checkpoint 150"), RestartNo
	// its number and RestartTime its time (UTC); absent when no restart
	// does (or none was given: restarts:).
	Restart     string     `json:"restart,omitempty"`
	RestartNo   int        `json:"restart_no,omitempty"`
	RestartTime *time.Time `json:"restart_time,omitempty"`
	// FromCheckpoint and ToCheckpoint are the checkpoint ids of the
	// earlier write and of the write again, as the sink wrote them ("NULL"
	// for a row without one).
	FromCheckpoint string `json:"from_checkpoint"`
	ToCheckpoint   string `json:"to_checkpoint"`
	// Unit is what a key is: "entries" (record ids) or "windows" (windows
	// and groups).
	Unit string `json:"unit"`
	// Keys counts the keys written again; Copies the rows written again
	// (more than Keys when a key was written three times or more).
	Keys   int64 `json:"keys"`
	Copies int64 `json:"copies"`
	// Amounts are, per measure (records) or aggregate (windows), the exact
	// sum of the rows written again as decimal text: what was posted
	// twice. Absent without measures.
	Amounts []EpisodeAmount `json:"amounts,omitempty"`
}

// EpisodeAmount is the exact sum of one measure or aggregate over an
// episode's rows written again.
type EpisodeAmount struct {
	Column string `json:"column"`
	Amount string `json:"amount"`
}

// Encode writes s as summary.json: indented by two spaces, HTML characters
// unescaped, ending in a newline.
func (s *Summary) Encode(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(s)
}

// DecodeSummary reads a summary.json. Numbers inside free-form values
// (Details, Options) are kept as json.Number, so re-encoding gives the same
// digits. It fails on a schema_version other than SchemaVersion.
func DecodeSummary(r io.Reader) (*Summary, error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	s := &Summary{}
	if err := dec.Decode(s); err != nil {
		return nil, fmt.Errorf("evidence: summary.json: %w", err)
	}
	if s.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("evidence: summary.json has schema_version %d; this reconcile reads %d", s.SchemaVersion, SchemaVersion)
	}
	return s, nil
}

// Check returns the check with id, or nil.
func (s *Summary) Check(id string) *Check {
	for _, c := range s.Checks {
		if c.ID == id {
			return c
		}
	}
	return nil
}
