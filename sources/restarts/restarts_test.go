package restarts_test

import (
	"strings"
	"testing"
	"time"

	"github.com/reconcile-dev/reconcile/sources/restarts"
)

// A checkpoint history with a FAILED and an IN_PROGRESS checkpoint after the
// last completed one, both acknowledged by some subtasks before the failure:
// the job restored checkpoint 11, the latest COMPLETED. Taking the latest
// checkpoint in the history (13) or the latest acknowledged (13) is wrong.
func TestReadRestartsFlinkJSON(t *testing.T) {
	rs, err := restarts.ReadRestarts("testdata/json", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Restarts) != 1 {
		t.Fatalf("restarts %+v, want 1", rs.Restarts)
	}
	r := rs.Restarts[0]
	if r.RestoredCheckpoint != 11 || r.OpenEpoch != 14 || !r.Time.Equal(time.Date(2026, 11, 26, 10, 3, 30, 0, time.UTC)) ||
		r.RestoredCheckpointTime == nil || !r.RestoredCheckpointTime.Equal(time.Date(2026, 11, 26, 10, 1, 0, 0, time.UTC)) {
		t.Errorf("restart %+v (barrier %v), want checkpoint 11 of 10:01:00 restored at the 10:03:30 failure, open epoch 14", r, r.RestoredCheckpointTime)
	}
	if got := r.Label(); got != "restart 1 at 2026-11-26T10:03:30Z from checkpoint 11" {
		t.Errorf("label %q", got)
	}
	if len(rs.History) != 4 || strings.Join(rs.Files, ",") != "json/checkpoints.json,json/exceptions.json" {
		t.Errorf("history %d entries, files %v", len(rs.History), rs.Files)
	}
}

// Only the checkpoints response: latest.restored names the last restore,
// and Flink's restore count says there were more.
func TestReadRestartsCheckpointsOnly(t *testing.T) {
	rs, err := restarts.ReadRestarts("testdata/checkpoints-only/checkpoints.json", "UTC")
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Restarts) != 1 || rs.Restarts[0].RestoredCheckpoint != 11 {
		t.Fatalf("restarts %+v", rs.Restarts)
	}
	if !strings.Contains(strings.Join(rs.Notes, "\n"), "Flink counted 2 restore(s) but the files show 1") {
		t.Errorf("notes %q", rs.Notes)
	}
}

// The CSV form: times with or without a zone (the latter in the spec's
// zone); no history, so a write is taken as before a restart up to the
// restored checkpoint + 1.
func TestReadRestartsCSV(t *testing.T) {
	rs, err := restarts.ReadRestarts("testdata/restarts.csv", "Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Restarts) != 2 {
		t.Fatalf("restarts %+v", rs.Restarts)
	}
	if r := rs.Restarts[0]; !r.Time.Equal(time.Date(2026, 11, 26, 2, 14, 20, 0, time.UTC)) || r.RestoredCheckpoint != 97 || r.OpenEpoch != 98 {
		t.Errorf("restart 1 %+v: 03:14:20 Berlin is 02:14:20Z", r)
	}
	if r := rs.Restarts[1]; !r.Time.Equal(time.Date(2026, 11, 26, 5, 40, 10, 0, time.UTC)) || r.No != 2 {
		t.Errorf("restart 2 %+v", r)
	}
	if _, err := restarts.ReadRestarts("testdata/no-header.csv", "UTC"); err == nil || !strings.Contains(err.Error(), "want the header restart_time,restored_checkpoint_id") {
		t.Errorf("a CSV without the header: %v", err)
	}
}
