package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/reconcile-dev/reconcile/internal/control"
	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/internal/spec"
)

func init() {
	subcommands = append(subcommands, newCmdExplain)
}

// explainOptions are the parsed flags of `reconcile explain`.
type explainOptions struct {
	f            *factory
	config       string
	evidence     string
	keys         []string
	keysFrom     string
	json         bool
	params       []string
	allowChanged bool
}

func newCmdExplain(f *factory) *cobra.Command {
	o := &explainOptions{f: f}
	cmd := &cobra.Command{
		Use:   "explain (--config SPEC | --evidence DIR) (--key VALUE[,VALUE…] … | --keys-from FILE)",
		Short: "Show every source and sink row of some keys and every check's finding on them",
		Long: `Show the story of one key or several: every source and sink row, every
check's finding on the key (the exception rows of each check that carry it:
value mismatches with the column, both values and the tolerance applied,
duplicates with their locations and checkpoints, missing, unexpected, …),
and for a windowed sink each sink row's checkpoint id, watermark and
emission, each source event's window(s), the re-performed value and the
restart nearest to each row.

A key is a record id (one value per id column), or for a windowed sink
(reperform:) the window timestamp as the sink names it (window_end or
window_start; with or without a zone) followed by one value per group column.
Values are compared as the inputs wrote them. --key may be repeated;
--keys-from reads the keys from a CSV file with a header, such as an
exceptions file of the evidence (exceptions/duplicate_ids.csv): the columns
named as the key's (the id columns; or the window column — the sink's name
for it, else window_end or window_start — and the group columns), each
distinct key once, in file order. Nothing is written.

--config explains from the inputs as they are now. --evidence explains from
a run's evidence folder: the folder is verified against its manifest, the
spec is the one the run recorded (its --param values and flags applied; no
--config or --param), and every input file is fingerprinted again before
anything is explained: an input that is no longer what the run read (a file
changed, gone or new, another number of rows) is refused with exit 4,
naming the input, the file and both fingerprints, unless
--allow-changed-inputs explains from the inputs as they are now with a
warning.

Exit 0 when every key was found, 2 when a key has no row (the others are
explained all the same) or the spec is wrong, 3 when an input cannot be
read, 4 when an input changed since the run (--evidence).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExplain(cmd, o)
		},
	}
	fl := cmd.Flags()
	onceVar(fl, &o.config, "config", "YAML spec file of the control: explain from the inputs as they are now")
	onceVar(fl, &o.evidence, "evidence", "evidence folder of a run: explain with its spec, from its inputs as that run read them")
	fl.StringArrayVar(&o.keys, "key", nil, `a key: comma-separated values, CSV-quoted when a value holds a comma ('A,"1,x"') (repeatable)`)
	onceVar(fl, &o.keysFrom, "keys-from", "CSV file with a header whose key columns hold the keys, such as exceptions/duplicate_ids.csv")
	fl.BoolVar(&o.json, "json", false, "print JSON instead of text, for scripts (an array when several keys may be asked: --key twice or --keys-from)")
	fl.StringArrayVar(&o.params, "param", nil, "NAME=VALUE for ${NAME} in the spec's strings (repeatable), as for run (with --config)")
	fl.BoolVar(&o.allowChanged, "allow-changed-inputs", false, "with --evidence: explain even when an input changed since the run, from the inputs as they are now, with a warning")
	return cmd
}

func runExplain(cmd *cobra.Command, o *explainOptions) error {
	switch {
	case (o.config == "") == (o.evidence == ""):
		return fault.Usage.Mark(errors.New("explain needs --config SPEC or --evidence DIR (one of them) and --key VALUE[,VALUE…] or --keys-from FILE"))
	case len(o.keys) == 0 && o.keysFrom == "":
		return fault.Usage.Mark(errors.New("explain needs --key VALUE[,VALUE…] or --keys-from FILE"))
	case o.evidence != "" && len(o.params) > 0:
		return fault.Usage.Mark(errors.New("explain --evidence takes the parameters the run recorded: --param is for --config"))
	case o.allowChanged && o.evidence == "":
		return fault.Usage.Mark(errors.New("--allow-changed-inputs is for --evidence: --config always explains from the inputs as they are now"))
	}
	var s *spec.Spec
	opt := control.ExplainOptions{AllowChanged: o.allowChanged}
	var warnings []string
	if o.evidence != "" {
		var sum *evidence.Summary
		var err error
		if s, sum, warnings, err = control.SpecFromEvidence(cmd.Context(), o.evidence); err != nil {
			return err
		}
		if e := sum.Run.Engine; e != nil && s.Engine == "" {
			s.Engine = e.URI
		}
		opt.Recorded, opt.RunID = sum.Inputs, sum.Run.ID
	} else {
		params, err := paramsOf(o.params)
		if err != nil {
			return err
		}
		if s, err = spec.LoadWith(o.config, params); err != nil {
			return err
		}
		if s.Out == "" {
			// explain writes no evidence: a spec without out: is explained
			// as it would run.
			s.Out = "(explain writes no evidence)"
		}
	}
	keys, err := explainKeys(o, s)
	if err != nil {
		return err
	}
	exs, err := control.Explain(cmd.Context(), s, keys, opt)
	if err != nil {
		return err
	}
	if len(exs) > 0 {
		warnings = append(warnings, exs[0].Warnings...)
	}
	for _, w := range warnings {
		fmt.Fprintf(o.f.stderr, "reconcile: %s\n", w)
	}
	if o.json {
		for _, ex := range exs {
			ex.Warnings = warnings
		}
		enc := json.NewEncoder(o.f.stdout)
		enc.SetIndent("", "  ")
		var v any = exs
		if len(o.keys) == 1 && o.keysFrom == "" {
			v = exs[0]
		}
		if err := enc.Encode(v); err != nil {
			return err
		}
	} else {
		for i, ex := range exs {
			if i > 0 {
				fmt.Fprintln(o.f.stdout)
			}
			if err := writeExplanation(o.f.stdout, ex); err != nil {
				return err
			}
		}
	}
	if missing := control.NotFound(exs); len(missing) > 0 {
		return fmt.Errorf("%w: %s", control.ErrNoKey, strings.Join(missing, "; "))
	}
	return nil
}

// explainKeys are the keys asked for: each --key, then those of
// --keys-from, each distinct key once, in order.
func explainKeys(o *explainOptions, s *spec.Spec) ([][]string, error) {
	var keys [][]string
	seen := map[string]bool{}
	add := func(k []string) {
		id := strings.Join(k, "\x00")
		if !seen[id] {
			seen[id] = true
			keys = append(keys, k)
		}
	}
	for _, k := range o.keys {
		values, err := keyValues(k)
		if err != nil {
			return nil, fault.Usage.Mark(err)
		}
		add(values)
	}
	if o.keysFrom != "" {
		from, err := keysFromFile(o.keysFrom, s)
		if err != nil {
			return nil, err
		}
		if len(from) == 0 {
			return nil, fmt.Errorf("%w: --keys-from %s holds no key (a header only)", spec.ErrInvalid, o.keysFrom)
		}
		for _, k := range from {
			add(k)
		}
	}
	return keys, nil
}

// keysFromFile reads the keys of spec s from a CSV file with a header
// (an exceptions file of the evidence, or any other): the values of the
// columns named as the key's, row by row — the id columns; for a windowed
// sink the window column (named as the sink names it, else window_end or
// window_start as the spec's window edge) then the group columns. A file
// without one of them is a spec.ErrInvalid naming it and the header.
func keysFromFile(path string, s *spec.Spec) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: --keys-from: %w", spec.ErrInvalid, err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%w: --keys-from %s: %w", spec.ErrInvalid, path, err)
	}
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\ufeff")
	}
	var want [][]string // per key part, the header names it may have
	if r := s.Reperform; r != nil {
		edge, col := "window_end", r.WindowEnd
		if col == "" {
			edge, col = "window_start", r.WindowStart
		}
		want = append(want, []string{col, edge})
		for _, g := range r.GroupBy {
			want = append(want, []string{g})
		}
	} else {
		for _, id := range s.ID {
			want = append(want, []string{id})
		}
	}
	idx := make([]int, len(want))
	var missing []string
	for i, names := range want {
		idx[i] = -1
		for _, n := range names {
			if j := slices.Index(header, n); j >= 0 {
				idx[i] = j
				break
			}
		}
		if idx[i] < 0 {
			missing = append(missing, strings.Join(names, " or "))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: --keys-from %s has no column %s (its header: %s)", spec.ErrInvalid, path, strings.Join(missing, ", "), strings.Join(header, ","))
	}
	var keys [][]string
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: --keys-from %s: %w", spec.ErrInvalid, path, err)
		}
		k := make([]string, len(idx))
		for i, j := range idx {
			if j >= len(rec) {
				return nil, fmt.Errorf("%w: --keys-from %s line %d has %d field(s), no %s", spec.ErrInvalid, path, line, len(rec), header[j])
			}
			k[i] = rec[j]
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// writeExplanation renders an explanation for a terminal.
func writeExplanation(w io.Writer, ex *control.Explanation) error {
	var b strings.Builder
	parts := make([]string, len(ex.Key))
	for i, k := range ex.Key {
		parts[i] = k.Column + "=" + k.Value
	}
	fmt.Fprintf(&b, "Key %s\n", strings.Join(parts, ", "))
	if !ex.Found {
		fmt.Fprintf(&b, "  verdict    %s\n", ex.Verdict)
		_, err := io.WriteString(w, b.String())
		return err
	}
	if ex.Window != nil {
		fmt.Fprintf(&b, "  window     [%s, %s)  %s, on UTC instants; zone-less timestamps read in %s\n", ex.Window.Start, ex.Window.End, ex.Window.Assigner, ex.TimeZone)
		if ex.Expected != nil {
			fmt.Fprintf(&b, "  expected   %s  (re-performed from %d source event(s))\n", values(ex.Expected), ex.Window.Events)
		}
		if len(ex.Sink) > 0 {
			fmt.Fprintf(&b, "  sink sum   %s  (the compared rows summed, as a dashboard shows them)\n", values(ex.SinkSum))
		}
	}
	fmt.Fprintf(&b, "  verdict    %s\n", ex.Verdict)
	if ex.Restart != "" {
		fmt.Fprintf(&b, "  explained  by %s\n", ex.Restart)
	} else if len(ex.Restarts) > 0 && unexplained(ex) {
		b.WriteString("  explained  by no restart\n")
	}
	writeFindings(&b, ex.Findings)
	writeRows(&b, ex)

	if len(ex.Restarts) > 0 {
		fmt.Fprintf(&b, "\nRestarts (%d)\n", len(ex.Restarts))
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  no\tat (UTC)\trestored checkpoint\tits barrier (UTC)\trows written before it carry checkpoint ≤\tfrom")
		for _, r := range ex.Restarts {
			at := "–"
			if r.RestoredCheckpointTime != nil {
				at = r.RestoredCheckpointTime.UTC().Format("2006-01-02T15:04:05Z")
			}
			fmt.Fprintf(tw, "  %d\t%s\t%d\t%s\t%d\t%s\n", r.No, r.Time.UTC().Format("2006-01-02T15:04:05Z"), r.RestoredCheckpoint, at, r.OpenEpoch, r.From)
		}
		tw.Flush()
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// unexplained reports whether ex has something a restart could explain
// and none does: a window that does not agree with its re-performance, a
// record with an exception.
func unexplained(ex *control.Explanation) bool {
	if ex.Window != nil {
		return !strings.HasPrefix(ex.Verdict, "agrees")
	}
	return slices.ContainsFunc(ex.Findings, func(f control.Finding) bool { return f.Status == string(evidence.Fail) })
}

// writeFindings writes each check's findings on the key: check, status,
// the row's values and the tolerance applied.
func writeFindings(b *strings.Builder, fs []control.Finding) {
	if len(fs) == 0 {
		b.WriteString("\nFindings: none (no check has an exception row with this key)\n")
		return
	}
	fmt.Fprintf(b, "\nFindings (%d)\n", len(fs))
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	for _, f := range fs {
		status := strings.ToUpper(strings.ReplaceAll(f.Status, "_", " "))
		line := values(f.Values)
		if f.Tolerance != "" {
			line += "  tolerance " + f.Tolerance
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", f.Check, status, line)
	}
	tw.Flush()
}

// writeRows writes the key's sink rows, then its source rows. The
// checkpoint, watermark and emission columns are shown for a windowed
// sink; for records, the checkpoint column when the spec names one and
// the nearest restart when restarts are known.
func writeRows(b *strings.Builder, ex *control.Explanation) {
	fmt.Fprintf(b, "\nSink rows (%d)\n", len(ex.Sink))
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	if ex.Window != nil {
		fmt.Fprintln(tw, "  location\tcheckpoint\twatermark\temission\tvalues\tnearest restart")
		for _, r := range ex.Sink {
			em := r.Emission
			if r.Compared != nil && !*r.Compared {
				em += " (superseded)"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", r.Location, dash(r.Checkpoint), dash(r.Watermark), dash(em), values(r.Values), dash(r.NearestRestart))
		}
	} else {
		checkpoint, restart := ex.Checkpoint != "", len(ex.Restarts) > 0
		head := []string{"location"}
		if checkpoint {
			head = append(head, "checkpoint")
		}
		head = append(head, "values")
		if restart {
			head = append(head, "nearest restart")
		}
		fmt.Fprintln(tw, "  "+strings.Join(head, "\t"))
		for _, r := range ex.Sink {
			cells := []string{r.Location}
			if checkpoint {
				cells = append(cells, dash(r.Checkpoint))
			}
			cells = append(cells, values(r.Values))
			if restart {
				cells = append(cells, dash(r.NearestRestart))
			}
			fmt.Fprintln(tw, "  "+strings.Join(cells, "\t"))
		}
	}
	tw.Flush()

	fmt.Fprintf(b, "\nSource rows (%d)\n", len(ex.Source))
	tw = tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	if ex.Window != nil {
		fmt.Fprintln(tw, "  location\tevent time (UTC)\twindows\tvalues\tnearest restart")
		for _, r := range ex.Source {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", r.Location, r.EventTime, strings.Join(r.Windows, " "), values(r.Values), dash(r.NearestRestart))
		}
	} else {
		fmt.Fprintln(tw, "  location\tvalues")
		for _, r := range ex.Source {
			fmt.Fprintf(tw, "  %s\t%s\n", r.Location, values(r.Values))
		}
	}
	tw.Flush()
}

func values(vs []control.Value) string {
	out := make([]string, len(vs))
	for i, v := range vs {
		s := "NULL"
		if v.Value != nil {
			s = *v.Value
		}
		out[i] = v.Name + "=" + s
	}
	return strings.Join(out, " ")
}

func dash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// sumValues adds up per-check counts.
func sumValues(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// keyValues splits --key as one CSV record, so a value holding a comma is
// given quoted: A,"1,x" is two values. Values are taken as written (no
// trimming: "A1 " is not "A1").
func keyValues(v string) ([]string, error) {
	r := csv.NewReader(strings.NewReader(v))
	r.LazyQuotes = false
	rec, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("--key %q: %w", v, err)
	}
	return rec, nil
}
