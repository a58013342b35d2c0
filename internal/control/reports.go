package control

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/reconcile-dev/reconcile/checks"
	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/report"
)

// pickWriters returns the report writers of formats (--format): the json
// writer (summary.json) first, then each other format once, in the order
// given; none, or "all", is every registered format. An unknown format is
// report.Lookup's error.
func pickWriters(formats []string) ([]report.Writer, error) {
	if len(formats) == 0 {
		formats = report.Formats()
	}
	seen := map[string]bool{"json": true}
	ws := []report.Writer{}
	j, err := report.Lookup("json")
	if err != nil {
		return nil, err
	}
	ws = append(ws, j)
	for _, f := range formats {
		if f == "all" {
			return pickWriters(nil)
		}
		if seen[f] {
			continue
		}
		seen[f] = true
		w, err := report.Lookup(f)
		if err != nil {
			return nil, err
		}
		ws = append(ws, w)
	}
	return ws, nil
}

// writeReports writes every report of writers from v into folder, each
// in a goroutine of its own (they only read v, and each reads the
// exceptions files itself: View.EachRow), and logs one line per report in
// writers' order once all are done. The error is that of the first writer
// to fail, which cancels the others (theirs may be that cancellation); a
// cancelled ctx is ctx's error. Side by side, the hourly
// re-performance's summary.json, report.html, report.md and workbook
// (4,804 sink rows) take the time of the workbook alone: 40 → 21 ms.
func writeReports(parent context.Context, folder *evidence.Folder, writers []report.Writer, v *report.View, logw io.Writer) error {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	took := make([]time.Duration, len(writers))
	errs := make([]error, len(writers))
	first := -1 // the writer whose failure cancelled the others
	var once sync.Once
	var wg sync.WaitGroup
	for i, w := range writers {
		wg.Go(func() {
			t0 := time.Now()
			if errs[i] = writeReport(ctx, folder, w, v); errs[i] != nil {
				once.Do(func() { first = i; cancel() })
			}
			took[i] = time.Since(t0)
		})
	}
	wg.Wait()
	if err := parent.Err(); err != nil {
		return err
	}
	for i, w := range writers {
		if errs[i] == nil {
			fmt.Fprintf(logw, "wrote %s in %s\n", w.File(), took[i].Round(time.Millisecond))
		}
	}
	if first >= 0 {
		// the others' errors may be the cancellation it caused
		return errs[first]
	}
	return nil
}

func writeReport(ctx context.Context, folder *evidence.Folder, w report.Writer, v *report.View) error {
	f, err := folder.Create(w.File())
	if err != nil {
		return err
	}
	if err := w.Write(ctx, f, v); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", w.File(), err)
	}
	return f.Close()
}

// writeQueries saves the exact SQL of every check that ran, for
// re-performance.
func writeQueries(folder *evidence.Folder, outs []*checks.Outcome, p *checks.Params) error {
	if p.IDCounts {
		// The id checks read table id_counts: its statement comes first.
		body := "-- Run this over tables source and sink as loaded by reconcile before the id checks in this folder.\n" +
			strings.TrimSpace(p.IDCountsSQL) + ";\n"
		if err := folder.WriteFile(evidence.IDCountsFile, []byte(body)); err != nil {
			return err
		}
	}
	if p.KeySpellingsSQL != "" {
		// normalized_matches and normalized_collisions read table
		// key_spellings, which holds the ids and groups as written.
		body := "-- Run this over tables source and sink as loaded by reconcile, before their id and group columns with normalize: are\n" +
			"-- normalised (the checks in this folder run over the normalised tables: reconcile's queries/rules/normalized_text.sql).\n" +
			strings.TrimSpace(p.KeySpellingsSQL) + ";\n"
		if err := folder.WriteFile(evidence.KeySpellingsFile, []byte(body)); err != nil {
			return err
		}
	}
	for _, o := range outs {
		if o.SQL == "" {
			continue
		}
		// The rendered template keeps the check file's header (check,
		// assertion, description); the query runs over the tables source
		// and sink as loaded.
		body := strings.TrimSpace(o.SQL) + "\n"
		if err := folder.WriteFile(evidence.QueryFile(o.ID), []byte(body)); err != nil {
			return err
		}
	}
	return nil
}
