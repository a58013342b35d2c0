package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/reconcile-dev/reconcile/internal/control"
	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/internal/spec"
)

func init() {
	subcommands = append(subcommands, newCmdExplain)
}

// explainOptions are the parsed flags of `reconcile explain`.
type explainOptions struct {
	f      *factory
	config string
	key    string
	json   bool
	params []string
}

func newCmdExplain(f *factory) *cobra.Command {
	o := &explainOptions{f: f}
	cmd := &cobra.Command{
		Use:   "explain --config SPEC --key VALUE[,VALUE…]",
		Short: "Show every source and sink row of one key, with checkpoints, watermark, window and restarts",
		Long: `Show the story of one key: every source and sink row, with each sink row's
checkpoint id, watermark and emission, each source event's window(s), the
re-performed value and the restart nearest to each row.

The key is a record id (one value per id column), or for a windowed sink
(reperform:) the window timestamp as the sink names it (window_end or
window_start; with or without a zone) followed by one value per group column.
Values are compared as the inputs wrote them. Nothing is written.

Exit 0 when the key was found, 2 when no row has it or the spec is wrong,
3 when an input cannot be read.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExplain(cmd, o)
		},
	}
	fl := cmd.Flags()
	onceVar(fl, &o.config, "config", "YAML spec file of the control (required)")
	onceVar(fl, &o.key, "key", `the key: comma-separated values, CSV-quoted when a value holds a comma ('A,"1,x"') (required)`)
	fl.BoolVar(&o.json, "json", false, "print JSON instead of text, for scripts")
	fl.StringArrayVar(&o.params, "param", nil, "NAME=VALUE for ${NAME} in the spec's strings (repeatable), as for run")
	return cmd
}

func runExplain(cmd *cobra.Command, o *explainOptions) error {
	if o.config == "" || o.key == "" {
		return fault.Usage.Mark(errors.New("explain needs --config SPEC and --key VALUE[,VALUE…]"))
	}
	params, err := paramsOf(o.params)
	if err != nil {
		return err
	}
	s, err := spec.LoadWith(o.config, params)
	if err != nil {
		return err
	}
	values, err := keyValues(o.key)
	if err != nil {
		return fault.Usage.Mark(err)
	}
	ex, err := control.Explain(cmd.Context(), s, values)
	if err != nil {
		return err
	}
	if o.json {
		enc := json.NewEncoder(o.f.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(ex)
	}
	return writeExplanation(o.f.stdout, ex)
}

// writeExplanation renders an explanation for a terminal.
func writeExplanation(w io.Writer, ex *control.Explanation) error {
	var b strings.Builder
	parts := make([]string, len(ex.Key))
	for i, k := range ex.Key {
		parts[i] = k.Column + "=" + k.Value
	}
	fmt.Fprintf(&b, "Key %s\n", strings.Join(parts, ", "))
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
	} else if len(ex.Restarts) > 0 && !strings.HasPrefix(ex.Verdict, "agrees") {
		b.WriteString("  explained  by no restart\n")
	}

	fmt.Fprintf(&b, "\nSink rows (%d)\n", len(ex.Sink))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  location\tcheckpoint\twatermark\temission\tvalues\tnearest restart")
	for _, r := range ex.Sink {
		em := r.Emission
		if r.Compared != nil && !*r.Compared {
			em += " (superseded)"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", r.Location, dash(r.Checkpoint), dash(r.Watermark), dash(em), values(r.Values), dash(r.NearestRestart))
	}
	tw.Flush()

	fmt.Fprintf(&b, "\nSource rows (%d)\n", len(ex.Source))
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
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

	if len(ex.Restarts) > 0 {
		fmt.Fprintf(&b, "\nRestarts (%d)\n", len(ex.Restarts))
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
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
