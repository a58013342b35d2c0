//go:build ignore

// gen writes the session-counts sample, the seed-001 incident: a Flink job
// counts sessions per user and day and maintains the count in PostgreSQL
// with an incrementing upsert (INSERT … ON CONFLICT (user_id, day) DO
// UPDATE SET sessions = sessions + 1), which no checkpoint can roll back.
// Checkpoints every 15 minutes (id 1 at 00:00); the job fails at 15:00:20
// while checkpoint 61 (15:00) is in flight and restores from checkpoint 60
// (14:45): every session that started between 14:45 and the failure is
// counted again. One row per key, no duplicate — but those users are
// inflated.
//
// Files: source.csv (session starts), sink.csv (the table at the end of the
// day, with the epoch and time of each row's last update) and flink/ (the
// REST responses saved at 15:20, web.checkpoints.history at its default of
// 10). Deterministic: `go run gen.go` rewrites identical files.
package main

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/reconcile-dev/reconcile/samples/internal/samplegen"
)

//go:generate go run gen.go

var (
	day      = time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	interval = 15 * time.Minute
	failAt   = day.Add(15*time.Hour + 20*time.Second)
	restored = day.Add(14*time.Hour + 45*time.Minute)
	resumeAt = failAt.Add(10 * time.Second) // replay of 14:45..15:00:20 done by 15:00:40
	savedAt  = day.Add(15*time.Hour + 20*time.Minute)
)

func ckptID(t time.Time) int64 { return int64(t.Sub(day)/interval) + 1 }

// epoch is the checkpoint whose barrier follows a write at t.
func epoch(t time.Time) int64 { return int64(t.Sub(day)/interval) + 2 }

type session struct {
	id, user string
	start    time.Time
}

type row struct {
	sessions int
	epoch    int64
	updated  time.Time
}

func main() {
	r := rand.New(rand.NewPCG(2026, 1))
	var ss []session
	t := day
	for i := 1; ; i++ {
		t = t.Add(time.Duration(15+r.IntN(90)) * time.Second)
		if !t.Before(day.Add(24 * time.Hour)) {
			break
		}
		ss = append(ss, session{fmt.Sprintf("S%05d", i), fmt.Sprintf("U%03d", r.IntN(150)+1), t})
	}
	samplegen.WriteCSV("source.csv", []string{"session_id", "user_id", "event_time"}, func(emit func(...string)) {
		for _, s := range ss {
			emit(s.id, s.user, s.start.Format(time.RFC3339))
		}
	})

	// The sink: each session increments its user's row when processed (no
	// lag); sessions in the replayed interval increment it a second time
	// after the restore.
	rows := map[string]*row{}
	inc := func(user string, at time.Time) {
		x := rows[user]
		if x == nil {
			x = &row{}
			rows[user] = x
		}
		x.sessions++
		x.epoch, x.updated = epoch(at), at
	}
	for _, s := range ss {
		inc(s.user, s.start)
		if !s.start.Before(restored) && s.start.Before(failAt) {
			// replayed after the restore, at the speed of catch-up
			inc(s.user, resumeAt.Add(s.start.Sub(restored)/60))
		}
	}
	users := make([]string, 0, len(rows))
	for u := range rows {
		users = append(users, u)
	}
	sort.Strings(users)
	samplegen.WriteCSV("sink.csv", []string{"user_id", "day", "sessions", "checkpoint_id", "updated_at"}, func(emit func(...string)) {
		for _, u := range users {
			x := rows[u]
			emit(u, day.Format("2006-01-02"), fmt.Sprint(x.sessions), fmt.Sprint(x.epoch), x.updated.Format(time.RFC3339))
		}
	})

	// /jobs/<jobid>/checkpoints at 15:20: the last 10 checkpoints, newest
	// first; 61 failed with the task.
	type hist struct {
		ClassName          string `json:"className"`
		ID                 int64  `json:"id"`
		Status             string `json:"status"`
		IsSavepoint        bool   `json:"is_savepoint"`
		TriggerTimestamp   int64  `json:"trigger_timestamp"`
		LatestAckTimestamp int64  `json:"latest_ack_timestamp"`
		EndToEndDuration   int64  `json:"end_to_end_duration"`
		NumSubtasks        int    `json:"num_subtasks"`
		NumAcknowledged    int    `json:"num_acknowledged_subtasks"`
		CheckpointType     string `json:"checkpoint_type"`
	}
	var history []hist
	last := savedAt.Truncate(interval)
	for c := last.Add(-9 * interval); !c.After(last); c = c.Add(interval) {
		h := hist{ClassName: "completed", ID: ckptID(c), Status: "COMPLETED", TriggerTimestamp: c.UnixMilli(),
			LatestAckTimestamp: c.Add(2 * time.Second).UnixMilli(), EndToEndDuration: 2000, NumSubtasks: 2, NumAcknowledged: 2, CheckpointType: "CHECKPOINT"}
		if c.Equal(failAt.Truncate(interval)) {
			h.ClassName, h.Status, h.NumAcknowledged = "failed", "FAILED", 1
			h.LatestAckTimestamp = c.Add(300 * time.Millisecond).UnixMilli()
		}
		history = append([]hist{h}, history...)
	}
	samplegen.WriteJSON("flink/checkpoints.json", map[string]any{
		"counts": map[string]int64{"restored": 1, "total": ckptID(last), "in_progress": 0, "completed": ckptID(last) - 1, "failed": 1},
		"latest": map[string]any{
			"completed": history[0],
			"restored": map[string]any{"id": ckptID(restored), "restore_timestamp": failAt.Add(5 * time.Second).UnixMilli(), "is_savepoint": false,
				"external_path": fmt.Sprintf("s3://flink/checkpoints/session-count/chk-%d", ckptID(restored))},
		},
		"history": history,
	})
	samplegen.WriteJSON("flink/exceptions.json", map[string]any{"exceptionHistory": map[string]any{"truncated": false, "entries": []any{map[string]any{
		"exceptionName":        "org.apache.flink.util.FlinkException",
		"stacktrace":           "org.apache.flink.util.FlinkException: Disconnect from JobManager responsible for 9c1f.",
		"timestamp":            failAt.UnixMilli(),
		"taskName":             "SessionCounter -> Sink: user_daily_sessions (1/2)",
		"endpoint":             "10.0.4.9:6122",
		"taskManagerId":        "tm-1",
		"failureLabels":        map[string]string{},
		"concurrentExceptions": []any{},
	}}}})
}
