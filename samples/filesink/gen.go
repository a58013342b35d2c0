//go:build ignore

// gen writes the filesink sample: the seed-000 night of samples/hourly-report
// (the same raw revenue events, source.csv) with the hourly report written
// through Flink's FileSink instead of a plain-insert table: the Flink SQL
// filesystem connector, PARTITIONED BY window_end, format csv (no header),
// a rolling policy that rolls on every checkpoint. Each window's row goes
// into the in-progress part file of its bucket folder
// (window_end=2026-11-26T03%3A00%3A00Z/, the value escaped as Hive escapes
// a path), named .part-<uid>-<n>.csv.inprogress.<uuid>; the checkpoint after
// the write rolls it (pending, not renamed) and, once complete, commits it
// as part-<uid>-<n>.csv.
//
// The night is seed 000's: checkpoints every 2 minutes, TaskManagers killed
// at 03:14:20 and 05:40:10 while the checkpoint of that minute is in flight,
// restores from the checkpoint two minutes earlier. The 02:00 and 04:00
// windows were flushed inside those gaps: their in-progress files were never
// committed and stay behind (stale), and the restored job (a new subtask
// uid) writes both windows again into files that the next checkpoint
// commits. The folder is read at 00:40:01 the next morning: the 23:00
// window, flushed at 00:39, is in a pending file whose checkpoint (00:40)
// has not completed yet. Deterministic: `go run gen.go` in this folder
// rewrites identical files.
package main

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/reconcile-dev/reconcile/samples/internal/samplegen"
)

var (
	day      = time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	interval = 2 * time.Minute
	kills    = []time.Time{day.Add(3*time.Hour + 14*time.Minute + 20*time.Second), day.Add(5*time.Hour + 40*time.Minute + 10*time.Second)}
	readAt   = day.Add(24*time.Hour + 40*time.Minute + 1*time.Second)
	// The sink subtask's uid: regenerated at each recovery.
	uids = []string{"4005733d-a830-4323-8291-8866de98b582", "81fc4980-a6af-41c8-9937-9939408a734b", "2b475fec-1482-4dea-9946-eb4353b475f1"}
)

func epoch(t time.Time) int64 { return int64(t.Sub(day)/interval) + 2 }

func lag(end time.Time) time.Duration {
	if end.Before(kills[0]) {
		return 13 * time.Minute
	}
	return 39 * time.Minute
}

type hour struct {
	revenue int64
	events  int
}

func money(c int64) string { return fmt.Sprintf("%d.%02d", c/100, c%100) }

// uuid is a deterministic random UUID text.
func uuid(r *rand.Rand) string {
	b := make([]byte, 16)
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func main() {
	r := rand.New(rand.NewPCG(2026, 0))
	var hours [24]hour
	samplegen.WriteCSV("source.csv", []string{"event_id", "account", "amount", "event_time"}, func(emit func(...string)) {
		t := day
		for i := 1; ; i++ {
			t = t.Add(time.Duration(20+r.IntN(50)) * time.Second)
			if !t.Before(day.Add(24 * time.Hour)) {
				break
			}
			cents := int64(r.IntN(40000) + 100)
			h := t.Hour()
			hours[h].revenue += cents
			hours[h].events++
			emit(fmt.Sprintf("EV%06d", i), fmt.Sprintf("ACC-%02d", r.IntN(8)+1), money(cents), t.Format(time.RFC3339))
		}
	})

	if err := os.RemoveAll("sink"); err != nil {
		panic(err)
	}
	ids := rand.New(rand.NewPCG(0, 2026))
	part := map[int]int{} // part counter per subtask uid
	write := func(start, written time.Time, committed bool) {
		end := start.Add(time.Hour)
		life := 0
		for _, k := range kills {
			if !written.Before(k) {
				life++
			}
		}
		n := part[life]
		part[life]++
		name := fmt.Sprintf("part-%s-%d.csv", uids[life], n)
		if !committed {
			name = "." + name + ".inprogress." + uuid(ids)
		}
		h := hours[start.Hour()]
		bucket := "window_end=" + strings.ReplaceAll(url.PathEscape(end.Format(time.RFC3339)), ":", "%3A")
		line := strings.Join([]string{money(h.revenue), fmt.Sprint(h.events), fmt.Sprint(epoch(written)), end.Add(2 * time.Second).Format(time.RFC3339)}, ",") + "\n"
		p := filepath.Join("sink", bucket, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			panic(err)
		}
		if err := os.WriteFile(p, []byte(line), 0o644); err != nil {
			panic(err)
		}
	}
	for h := 0; h < 24; h++ {
		start := day.Add(time.Duration(h) * time.Hour)
		w := start.Add(time.Hour).Add(lag(start.Add(time.Hour)))
		stale := false
		for _, k := range kills {
			restored := day.Add(k.Sub(day).Truncate(interval) - interval)
			if w.After(restored) && w.Before(k) {
				// Flushed after the checkpoint the job restores: the
				// in-progress file is never committed; the replay writes
				// the window again 25 seconds after the kill.
				write(start, w, false)
				write(start, k.Add(25*time.Second), true)
				stale = true
			}
		}
		if stale {
			continue
		}
		// Committed once the checkpoint after the write completes (1.5 s
		// after its trigger); else still pending when the folder is read.
		commit := day.Add(time.Duration(epoch(w)-1)*interval + 1500*time.Millisecond)
		write(start, w, commit.Before(readAt))
	}
}
