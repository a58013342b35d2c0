// Command reconcile proves, after the fact, that a data pipeline posted every
// record exactly once: it reconciles source records against a sink's
// committed output and writes evidence an auditor can re-perform.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	_ "github.com/reconcile-dev/reconcile/sources/all" // every input kind
)

func main() {
	// A closed stdout or stderr (reconcile … | head) must not kill the
	// process mid-run: with SIGPIPE delivered to a channel, writes to a
	// broken pipe fail with EPIPE instead, the run completes and its evidence
	// is published (or cleaned up) as usual.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(int(code))
}
