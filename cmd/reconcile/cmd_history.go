package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/internal/history"
)

func init() {
	subcommands = append(subcommands, newCmdHistory)
}

// historyOptions are the parsed flags of `reconcile history`.
type historyOptions struct {
	f       *factory
	file    string
	control string
	json    bool
}

func newCmdHistory(f *factory) *cobra.Command {
	o := &historyOptions{f: f}
	cmd := &cobra.Command{
		Use:   "history --history FILE [--control NAME] [--json]",
		Short: "List the runs recorded in a run history, with exceptions per check and what is new or resolved",
		Long: `List the runs of each control recorded in the run history FILE (the spec's
history:, run --history), oldest first: run id, start, parameters, status,
and for each check with exceptions (or with exceptions resolved since the
previous run) its exception rows and its new, recurring and resolved keys.

Exit codes: 0 listed; 2 FILE does not exist or is not a run history, or
--control names a control with no run in it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runHistory(cmd, o)
		},
	}
	fl := cmd.Flags()
	onceVar(fl, &o.file, "history", "the run history database file (required)")
	onceVar(fl, &o.control, "control", "only this control's runs")
	fl.BoolVar(&o.json, "json", false, "print JSON instead of a table, for scripts")
	return cmd
}

// historyRun is one run as `reconcile history --json` prints it.
type historyRun struct {
	Control    string            `json:"control"`
	Seq        int64             `json:"seq"`
	RunID      string            `json:"run_id"`
	StartedAt  string            `json:"started_at"`
	FinishedAt string            `json:"finished_at"`
	Status     evidence.Status   `json:"status"`
	Params     map[string]string `json:"params,omitempty"`
	Evidence   string            `json:"evidence"`
	// EvidenceState is whether the folder still holds this run's evidence
	// (history.EvidenceState): "in place", "replaced", "changed",
	// "missing" or "unreadable"; EvidenceNote says more for replaced (the
	// run it holds) and unreadable (the error).
	EvidenceState  string         `json:"evidence_state"`
	EvidenceNote   string         `json:"evidence_note,omitempty"`
	SourceRows     int64          `json:"source_rows"`
	SinkRows       int64          `json:"sink_rows"`
	SinkRowsPerKey *float64       `json:"sink_rows_per_key,omitempty"`
	Restarts       *int64         `json:"restarts,omitempty"`
	Checks         []historyCheck `json:"checks"`
}

type historyCheck struct {
	ID         string          `json:"id"`
	Status     evidence.Status `json:"status"`
	Exceptions int64           `json:"exceptions"`
	KeyColumns []string        `json:"key_columns"`
	Compared   bool            `json:"compared"`
	New        int64           `json:"new"`
	Recurring  int64           `json:"recurring"`
	Resolved   int64           `json:"resolved"`
}

func runHistory(cmd *cobra.Command, o *historyOptions) error {
	if o.file == "" {
		return fault.Usage.Mark(errors.New("history needs --history FILE"))
	}
	runs, err := history.List(cmd.Context(), o.file, o.control)
	if errors.Is(err, os.ErrNotExist) {
		return fault.Usage.Mark(fmt.Errorf("%s does not exist: no run has been recorded there", o.file))
	}
	if err != nil {
		return err
	}
	if o.control != "" && len(runs) == 0 {
		all, err := history.List(cmd.Context(), o.file, "")
		if err != nil {
			return err
		}
		var names []string
		for _, r := range all {
			if !slices.Contains(names, r.Control) {
				names = append(names, r.Control)
			}
		}
		sort.Strings(names)
		return fault.Usage.Mark(fmt.Errorf("%s has no run of control %s (controls: %s)", o.file, o.control, strings.Join(names, ", ")))
	}
	out := make([]historyRun, 0, len(runs))
	for _, r := range runs {
		hr := historyRun{Control: r.Control, Seq: r.Seq, RunID: r.ID, StartedAt: r.StartedAt, FinishedAt: r.FinishedAt, Status: r.Status,
			Params: r.Params, Evidence: r.Evidence, SourceRows: r.SourceRows, SinkRows: r.SinkRows, SinkRowsPerKey: r.SinkRowsPerKey,
			Restarts: r.Restarts, Checks: []historyCheck{}}
		hr.EvidenceState, hr.EvidenceNote = history.EvidenceState(cmd.Context(), r)
		for _, c := range r.Checks {
			hr.Checks = append(hr.Checks, historyCheck{ID: c.ID, Status: c.Status, Exceptions: c.Exceptions, KeyColumns: c.KeyColumns,
				Compared: c.Compared, New: c.New, Recurring: c.Recurring, Resolved: c.Resolved})
		}
		out = append(out, hr)
	}
	if o.json {
		enc := json.NewEncoder(o.f.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	return writeHistory(o.f.stdout, o.file, out)
}

// writeHistory prints the runs per control as a table: one line per run,
// continued by one line per check with exceptions or resolved keys.
func writeHistory(w interface{ Write([]byte) (int, error) }, file string, runs []historyRun) error {
	var controls []string
	byControl := map[string][]historyRun{}
	for _, r := range runs {
		if _, ok := byControl[r.Control]; !ok {
			controls = append(controls, r.Control)
		}
		byControl[r.Control] = append(byControl[r.Control], r)
	}
	sort.Strings(controls)
	for i, name := range controls {
		if i > 0 {
			fmt.Fprintln(w)
		}
		rs := byControl[name]
		fmt.Fprintf(w, "%s: %d run(s) in %s\n", name, len(rs), file)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "STARTED\tRUN\tPARAMETERS\tSTATUS\tCHECK\tEXCEPTIONS\tNEW\tRECURRING\tRESOLVED")
		for _, r := range rs {
			lead := fmt.Sprintf("%s\t%s\t%s\t%s", r.StartedAt, r.RunID, paramText(r.Params), strings.ToUpper(string(r.Status)))
			n := 0
			for _, c := range r.Checks {
				if c.Exceptions == 0 && c.Resolved == 0 {
					continue
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\n", lead, c.ID, c.Exceptions, c.New, c.Recurring, c.Resolved)
				lead = "\t\t\t"
				n++
			}
			if n == 0 {
				fmt.Fprintf(tw, "%s\t-\t0\t0\t0\t0\n", lead)
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, r := range rs {
			switch r.EvidenceState {
			case history.EvidenceReplaced:
				fmt.Fprintf(w, "note: run %s's evidence folder %s now holds another run's evidence (%s: a later run, --force, wrote there); its own evidence is gone\n", r.RunID, r.Evidence, r.EvidenceNote)
			case history.EvidenceChanged:
				fmt.Fprintf(w, "note: run %s's evidence folder %s was changed after the run published it (%s; reconcile verify %s says more)\n", r.RunID, r.Evidence, r.EvidenceNote, r.Evidence)
			case history.EvidenceMissing:
				fmt.Fprintf(w, "note: run %s's evidence folder %s (or its manifest.json) is missing\n", r.RunID, r.Evidence)
			case history.EvidenceUnreadable:
				fmt.Fprintf(w, "note: run %s's evidence folder %s cannot be read: %s\n", r.RunID, r.Evidence, r.EvidenceNote)
			}
		}
	}
	return nil
}

// paramText renders parameters as name=value, sorted; "-" for none.
func paramText(p map[string]string) string {
	if len(p) == 0 {
		return "-"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(p)) {
		parts = append(parts, k+"="+p[k])
	}
	return strings.Join(parts, " ")
}
