package control

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/report"
)

// fakeWriter writes its file after delay, fails with err, or (block)
// waits until its context is cancelled.
type fakeWriter struct {
	file  string
	delay time.Duration
	err   error
	block bool
}

func (w fakeWriter) Format() string { return w.file }
func (w fakeWriter) File() string   { return w.file }
func (w fakeWriter) Write(ctx context.Context, out io.Writer, _ *report.View) error {
	if w.block {
		<-ctx.Done()
		return ctx.Err()
	}
	time.Sleep(w.delay)
	if w.err != nil {
		return w.err
	}
	_, err := out.Write([]byte(w.file))
	return err
}

// writeReports logs in the writers' order whatever order they finish in,
// returns a failing writer's own error (not the cancellation it causes
// the others, and even when it wraps context.Canceled itself), and stops a
// writer still running when another fails.
func TestWriteReports(t *testing.T) {
	folder := func() *evidence.Folder {
		f, err := evidence.NewFolder(filepath.Join(t.TempDir(), "ev"), false)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Abort() })
		return f
	}
	lines := regexp.MustCompile(`wrote (\S+) in `)
	files := func(log *bytes.Buffer) string {
		var out string
		for _, m := range lines.FindAllStringSubmatch(log.String(), -1) {
			out += m[1] + " "
		}
		return out
	}

	var log bytes.Buffer
	ws := []report.Writer{fakeWriter{file: "a", delay: 30 * time.Millisecond}, fakeWriter{file: "b"}, fakeWriter{file: "c", delay: 10 * time.Millisecond}}
	if err := writeReports(context.Background(), folder(), ws, nil, &log); err != nil {
		t.Fatal(err)
	}
	if got := files(&log); got != "a b c " {
		t.Errorf("logged %q, want a b c in the writers' order", got)
	}

	bad := errors.New("disk full")
	log.Reset()
	ws = []report.Writer{fakeWriter{file: "a"}, fakeWriter{file: "b", block: true}, fakeWriter{file: "c", delay: 10 * time.Millisecond, err: bad}}
	done := make(chan error, 1)
	go func() { done <- writeReports(context.Background(), folder(), ws, nil, &log) }()
	select {
	case err := <-done:
		if !errors.Is(err, bad) {
			t.Errorf("err = %v, want the failing writer's", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a writer still running was not stopped when another failed")
	}
	if got := files(&log); got != "a " {
		t.Errorf("logged %q, want only a", got)
	}

	// a writer's own error that wraps context.Canceled (nothing was
	// cancelled) is still an error
	own := fmt.Errorf("upload: %w", context.Canceled)
	log.Reset()
	ws = []report.Writer{fakeWriter{file: "a"}, fakeWriter{file: "b", err: own}}
	if err := writeReports(context.Background(), folder(), ws, nil, &log); !errors.Is(err, own) {
		t.Errorf("err = %v, want the writer's own %v", err, own)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ws = []report.Writer{fakeWriter{file: "a", block: true}}
	if err := writeReports(ctx, folder(), ws, nil, io.Discard); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: err = %v", err)
	}
}
