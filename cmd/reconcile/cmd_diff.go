package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/reconcile-dev/reconcile/internal/diff"
	"github.com/reconcile-dev/reconcile/internal/fault"
)

func init() {
	subcommands = append(subcommands, newCmdDiff)
}

// errDiffers is returned when the two folders' exceptions differ: exit 1,
// the differences already printed.
var errDiffers = fault.Failed.New("diff: the evidence folders' exceptions differ")

// diffOptions are the parsed arguments of `reconcile diff`.
type diffOptions struct {
	f    *factory
	a, b string
}

func newCmdDiff(f *factory) *cobra.Command {
	o := &diffOptions{f: f}
	cmd := &cobra.Command{
		Use:   "diff EVIDENCE_A EVIDENCE_B",
		Short: "Show the exceptions present in one evidence folder and not in the other",
		Long: `Compare the exceptions of two evidence folders check by check — before and
after a fix, last night and tonight — keyed as the run history keys them:
the check id and the values of the exception's id, group, logical-key,
window and measure columns (by their roles in summary.json). Each folder is
verified against its manifest first, as reconcile verify does.

Lines starting with "-" are exceptions of EVIDENCE_A that EVIDENCE_B no
longer has; "+" those EVIDENCE_B has and EVIDENCE_A had not; "~" those both
have with other values (a balance of the same account off by another
amount; locations and the run-history columns are not compared).

Exit codes: 0 the same exceptions; 1 they differ; 2 a folder has no
manifest.json or does not exist; 3 a folder does not verify against its
manifest, or cannot be read.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.a, o.b = args[0], args[1]
			return runDiff(cmd, o)
		},
	}
	return cmd
}

func runDiff(cmd *cobra.Command, o *diffOptions) error {
	c, err := diff.Diff(cmd.Context(), o.a, o.b)
	if err != nil {
		return err
	}
	w := o.f.stdout
	fmt.Fprintf(w, "A  %s: %s, run %s, %s\n", o.a, c.A.Summary.Control.Name, c.A.Summary.Run.ID, strings.ToUpper(string(c.A.Summary.Status)))
	fmt.Fprintf(w, "B  %s: %s, run %s, %s\n", o.b, c.B.Summary.Control.Name, c.B.Summary.Run.ID, strings.ToUpper(string(c.B.Summary.Status)))
	if c.A.Summary.Control.Name != c.B.Summary.Control.Name {
		fmt.Fprintf(w, "note: the folders are of two controls (%s, %s)\n", c.A.Summary.Control.Name, c.B.Summary.Control.Name)
	}
	for _, d := range c.Checks {
		if d.Note == "" && d.InA+d.InB == 0 {
			continue // no exceptions in either
		}
		if d.Note != "" {
			fmt.Fprintf(w, "%s: %d in A, %d in B; %s\n", d.ID, d.InA, d.InB, d.Note)
			continue
		}
		fmt.Fprintf(w, "%s: %d in A, %d in B: %d only in A, %d only in B, %d in both (%d with other values)\n", d.ID, d.InA, d.InB, len(d.OnlyA), len(d.OnlyB), d.Both, len(d.Changed))
		for _, k := range d.OnlyA {
			fmt.Fprintf(w, "  - %s\n", keyText(d.KeyColumns, k))
		}
		for _, k := range d.OnlyB {
			fmt.Fprintf(w, "  + %s\n", keyText(d.KeyColumns, k))
		}
		for _, k := range d.Changed {
			fmt.Fprintf(w, "  ~ %s\n", keyText(d.KeyColumns, k))
		}
	}
	if c.Differs() {
		return errDiffers
	}
	fmt.Fprintln(w, "same exceptions")
	return nil
}

// keyText renders a key as col=value pairs; NULL as NULL, a value that
// could be misread (empty, spaces, commas, quotes, the word NULL) quoted.
func keyText(cols []string, k diff.Key) string {
	if len(cols) == 0 {
		return "(the check's one key: it fails)"
	}
	parts := make([]string, len(k))
	for i, v := range k {
		text := "NULL"
		if v != nil {
			text = *v
			if text == "" || text == "NULL" || strings.ContainsAny(text, " ,=\"\t\n") {
				text = strconv.Quote(text)
			}
		}
		parts[i] = cols[i] + "=" + text
	}
	return strings.Join(parts, ", ")
}
