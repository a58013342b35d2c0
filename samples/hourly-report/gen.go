//go:build ignore

// gen writes the hourly-report sample, the seed-000 night: a day of raw
// revenue events (source.csv), the hourly report a Flink job wrote with a
// plain-insert sink (sink.csv: one row per tumbling hour, flushed when the
// event-time timer fires, with the checkpoint epoch and the watermark of the
// write), and the job's REST responses saved as JSON (flink/).
//
// The night: checkpoints every 2 minutes (id 1 at 00:00). The autoscaler
// kills a TaskManager at 03:14:20 and at 05:40:10, each while the
// checkpoint of that minute is in flight (it fails); the job restores from
// the checkpoint two minutes earlier (97 of 03:12, 170 of 05:38). The
// 02:00 window flushed at 03:13 and the 04:00 window at 05:39 — inside
// those gaps — so the restored timers fire again and both hours are
// inserted a second time under the next checkpoint epoch. Deterministic:
// `go run gen.go` in this folder rewrites identical files.
package main

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/reconcile-dev/reconcile/samples/internal/samplegen"
)

//go:generate go run gen.go

var (
	day      = time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	interval = 2 * time.Minute
	kills    = []time.Time{day.Add(3*time.Hour + 14*time.Minute + 20*time.Second), day.Add(5*time.Hour + 40*time.Minute + 10*time.Second)}
)

// ckptID is the id of the checkpoint triggered at t (a multiple of the
// interval since midnight).
func ckptID(t time.Time) int64 { return int64(t.Sub(day)/interval) + 1 }

// epoch is the checkpoint whose barrier follows a write at t: the first
// checkpoint triggered after t.
func epoch(t time.Time) int64 { return int64(t.Sub(day)/interval) + 2 }

// lag is how long after its end a window is flushed: 13 minutes until the
// first restart, 39 minutes after it (the job runs downscaled).
func lag(end time.Time) time.Duration {
	if end.Before(kills[0]) {
		return 13 * time.Minute
	}
	return 39 * time.Minute
}

type hour struct {
	revenue int64 // cents
	events  int
}

func main() {
	hours := writeSource()
	writeSink(hours)
	writeCheckpoints()
	writeExceptions()
}

// writeSource writes source.csv, the night's revenue events (one every 20
// to 70 seconds), and returns each hour's revenue and events.
func writeSource() [24]hour {
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
	return hours
}

// sinkRow is one row the job wrote: the hour it is of, and when.
type sinkRow struct {
	start   time.Time
	written time.Time
}

// sinkRows are the rows the job wrote, in write order: each hour once when
// its window is flushed, and again when a restore undid that flush.
func sinkRows() []sinkRow {
	var rows []sinkRow
	for h := 0; h < 24; h++ {
		start := day.Add(time.Duration(h) * time.Hour)
		end := start.Add(time.Hour)
		w := end.Add(lag(end))
		rows = append(rows, sinkRow{start, w})
		// A flush after the last checkpoint before a kill is undone by the
		// restore and written again once the replayed events rebuild the
		// window (25 seconds after the kill).
		for _, k := range kills {
			restored := day.Add(k.Sub(day).Truncate(interval) - interval)
			if w.After(restored) && w.Before(k) {
				rows = append(rows, sinkRow{start, k.Add(25 * time.Second)})
			}
		}
	}
	// The sink table in write order.
	for i := 1; i < len(rows); i++ {
		for j := i; j > 0 && rows[j].written.Before(rows[j-1].written); j-- {
			rows[j], rows[j-1] = rows[j-1], rows[j]
		}
	}
	return rows
}

// writeSink writes sink.csv, the hourly report as the job wrote it, with
// the checkpoint epoch and watermark of each write.
func writeSink(hours [24]hour) {
	samplegen.WriteCSV("sink.csv", []string{"window_start", "window_end", "revenue", "events", "checkpoint_id", "watermark", "written_at"}, func(emit func(...string)) {
		for _, x := range sinkRows() {
			h := hours[x.start.Hour()]
			end := x.start.Add(time.Hour)
			emit(x.start.Format(time.RFC3339), end.Format(time.RFC3339), money(h.revenue), fmt.Sprint(h.events),
				fmt.Sprint(epoch(x.written)), end.Add(2*time.Second).Format(time.RFC3339), x.written.Format(time.RFC3339))
		}
	})
}

// checkpoint is one entry of the history of Flink's
// /jobs/<jobid>/checkpoints response.
type checkpoint struct {
	ClassName          string `json:"className"`
	ID                 int64  `json:"id"`
	Status             string `json:"status"`
	IsSavepoint        bool   `json:"is_savepoint"`
	TriggerTimestamp   int64  `json:"trigger_timestamp"`
	LatestAckTimestamp int64  `json:"latest_ack_timestamp"`
	StateSize          int64  `json:"state_size"`
	EndToEndDuration   int64  `json:"end_to_end_duration"`
	NumSubtasks        int    `json:"num_subtasks"`
	NumAcknowledged    int    `json:"num_acknowledged_subtasks"`
	CheckpointType     string `json:"checkpoint_type"`
	FailureTimestamp   int64  `json:"failure_timestamp,omitempty"`
	FailureMessage     string `json:"failure_message,omitempty"`
}

// writeCheckpoints writes flink/checkpoints.json, /jobs/<jobid>/checkpoints
// as saved at 06:00:30 with web.checkpoints.history: 121 (checkpoints 02:00
// to 06:00, newest first): the checkpoint of each kill's minute failed,
// the last in progress, and the last restore the second kill's.
func writeCheckpoints() {
	var history []checkpoint
	counts := map[string]int64{}
	last := day.Add(6 * time.Hour)
	for t := day.Add(2 * time.Hour); !t.After(last); t = t.Add(interval) {
		h := checkpoint{ClassName: "completed", ID: ckptID(t), Status: "COMPLETED", TriggerTimestamp: t.UnixMilli(),
			LatestAckTimestamp: t.Add(1500 * time.Millisecond).UnixMilli(), StateSize: 48213 + int64(t.Minute())*17,
			EndToEndDuration: 1500, NumSubtasks: 4, NumAcknowledged: 4, CheckpointType: "CHECKPOINT"}
		for _, k := range kills {
			if t.Equal(k.Truncate(interval)) {
				h.ClassName, h.Status, h.NumAcknowledged = "failed", "FAILED", 2
				h.LatestAckTimestamp = t.Add(900 * time.Millisecond).UnixMilli()
				h.FailureTimestamp = k.UnixMilli()
				h.FailureMessage = "Checkpoint was canceled because a barrier from a failed task was not received."
			}
		}
		if t.Equal(last) {
			h.ClassName, h.Status, h.NumAcknowledged = "in_progress", "IN_PROGRESS", 1
			h.LatestAckTimestamp = t.Add(400 * time.Millisecond).UnixMilli()
		}
		counts[h.Status]++
		history = append([]checkpoint{h}, history...)
	}
	lastCompleted := history[1]
	restoreAt := kills[1].Add(5 * time.Second)
	restoredFrom := ckptID(kills[1].Truncate(interval).Add(-interval))
	samplegen.WriteJSON("flink/checkpoints.json", map[string]any{
		"counts": map[string]int64{"restored": 2, "total": ckptID(last), "in_progress": counts["IN_PROGRESS"], "completed": ckptID(last) - 3, "failed": counts["FAILED"]},
		"latest": map[string]any{
			"completed": lastCompleted,
			"savepoint": nil,
			"failed":    history[len(history)-1-int((kills[1].Truncate(interval).Sub(day.Add(2*time.Hour)))/interval)],
			"restored": map[string]any{"id": restoredFrom, "restore_timestamp": restoreAt.UnixMilli(), "is_savepoint": false,
				"external_path": fmt.Sprintf("s3://flink/checkpoints/7f3a9c2e/chk-%d", restoredFrom)},
		},
		"history": history,
	})
}

// writeExceptions writes flink/exceptions.json, /jobs/<jobid>/exceptions:
// one entry per kill, newest first.
func writeExceptions() {
	var entries []map[string]any
	for i := len(kills) - 1; i >= 0; i-- {
		entries = append(entries, map[string]any{
			"exceptionName":        "org.apache.flink.runtime.jobmaster.JobMasterException",
			"stacktrace":           "org.apache.flink.runtime.jobmaster.JobMasterException: TaskManager with id tm-2 is no longer reachable.",
			"timestamp":            kills[i].UnixMilli(),
			"taskName":             "Window(TumblingEventTimeWindows(3600000), EventTimeTrigger, RevenueAggregate) -> Sink: report (2/4)",
			"endpoint":             "10.0.3.17:6122",
			"taskManagerId":        "tm-2",
			"failureLabels":        map[string]string{},
			"concurrentExceptions": []any{},
		})
	}
	samplegen.WriteJSON("flink/exceptions.json", map[string]any{"exceptionHistory": map[string]any{"entries": entries, "truncated": false}})
}

func money(cents int64) string { return fmt.Sprintf("%d.%02d", cents/100, cents%100) }
