package sources

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Progress reports a long load on Location.Progress: a live line of rows
// and rows/s (github.com/schollz/progressbar) when the writer is a terminal,
// otherwise a single summary line when the load ends, so cron logs stay
// clean. ReadRows reports its records' progress itself; a kind reports
// with a Progress of its own only what it reads before (the Kafka fetch).
// A nil *Progress does nothing.
type Progress struct {
	w     io.Writer
	label string
	start time.Time
	bar   *progressbar.ProgressBar

	mu   sync.Mutex
	rows int64
}

// NewProgress starts the report of a read named label ("reading sink
// public.ledger") on w; it returns nil when w is nil.
func NewProgress(w io.Writer, label string) *Progress {
	if w == nil {
		return nil
	}
	p := &Progress{w: w, label: label, start: time.Now()}
	if isTerminal(w) {
		p.bar = progressbar.NewOptions64(-1,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(label),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("rows"),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionSpinnerType(14),
			progressbar.OptionClearOnFinish(),
			// Rendering at once starts the clock now, so the first rate shown
			// is rows over elapsed time, not over a few microseconds.
			progressbar.OptionSetRenderBlankState(true),
		)
	}
	return p
}

// isTerminal reports whether w is a file attached to a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}

// Add counts n more rows loaded.
func (p *Progress) Add(n int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.rows += n
	p.mu.Unlock()
	if p.bar != nil {
		p.bar.Add64(n)
	}
}

// Done ends the report with one line: rows, duration and rows/s.
func (p *Progress) Done() {
	if p == nil {
		return
	}
	if p.bar != nil {
		p.bar.Finish()
	}
	p.mu.Lock()
	rows := p.rows
	p.mu.Unlock()
	d := time.Since(p.start)
	rate := 0.0
	if d > 0 {
		rate = float64(rows) / d.Seconds()
	}
	fmt.Fprintf(p.w, "%s: %d rows in %s (%.0f rows/s)\n", p.label, rows, d.Round(time.Millisecond), rate)
}

// Abort ends a live line without a summary, so an error message that
// follows starts on a line of its own.
func (p *Progress) Abort() {
	if p == nil || p.bar == nil {
		return
	}
	p.bar.Exit()
	fmt.Fprintln(p.w)
}
