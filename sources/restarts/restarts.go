// Package restarts reads what a stream job's runtime says about its
// restarts — Flink's REST responses saved as JSON (GET /jobs/<jobid>/exceptions
// and GET /jobs/<jobid>/checkpoints) or a CSV restart_time,restored_checkpoint_id
// — into the restarts and checkpoint history a re-performance attributes its
// findings to. It reads an input, as package sources does for records; it
// knows no engine (checks.LoadRestarts turns the result into a table).
package restarts

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // zone names for restart times written without a zone

	"github.com/reconcile-dev/reconcile/internal/fault"
)

// ErrRestarts wraps every problem with the restarts: file(s). It is a usage
// error: the file given is not what the spec says it is.
var ErrRestarts = fault.Usage.New("restarts: bad restarts file")

// Restart is one restore of the job from a checkpoint.
type Restart struct {
	// No numbers restarts 1, 2, … in time order.
	No int `json:"no"`
	// Time is when the job failed (Flink: exceptionHistory entry
	// timestamp) or restored (latest.restored.restore_timestamp; CSV
	// restart_time), UTC.
	Time time.Time `json:"time"`
	// RestoredCheckpoint is the id of the checkpoint the job restored
	// from (-1 when unknown).
	RestoredCheckpoint int64 `json:"restored_checkpoint"`
	// RestoredCheckpointTime is when that checkpoint was triggered (its
	// barrier: the consistent cut), when the history says; events after it
	// were replayed.
	RestoredCheckpointTime *time.Time `json:"restored_checkpoint_time,omitempty"`
	// OpenEpoch is the highest checkpoint epoch a row written before the
	// restart can carry: 1 + the highest checkpoint id triggered before
	// Time, or RestoredCheckpoint+1 without a history.
	OpenEpoch int64 `json:"open_epoch"`
	// From is the file (base name) the restart was read from.
	From string `json:"from"`
}

// Label is the restart as the exception files name it:
// "restart 1 at 2026-11-26T03:14:20Z from checkpoint 97".
func (r Restart) Label() string {
	ck := "an unknown checkpoint"
	if r.RestoredCheckpoint >= 0 {
		ck = fmt.Sprintf("checkpoint %d", r.RestoredCheckpoint)
	}
	return fmt.Sprintf("restart %d at %s from %s", r.No, r.Time.UTC().Format(time.RFC3339), ck)
}

// Checkpoint is one entry of a Flink checkpoint history.
type Checkpoint struct {
	ID int64 `json:"id"`
	// Status is COMPLETED, FAILED or IN_PROGRESS.
	Status      string     `json:"status"`
	TriggeredAt time.Time  `json:"triggered_at"`
	AckedAt     *time.Time `json:"acked_at,omitempty"`
	Savepoint   bool       `json:"savepoint,omitempty"`
}

// Restarts is what the restarts: files say.
type Restarts struct {
	Restarts []Restart `json:"restarts"`
	// History is the checkpoint history, by id (empty for CSV).
	History []Checkpoint `json:"-"`
	// Notes are caveats (a history that does not reach back far enough, a
	// restore count larger than the restarts seen).
	Notes []string `json:"notes,omitempty"`
	// Files are the files read.
	Files []string `json:"files"`
}

// flinkCheckpoints is the part of Flink's GET /jobs/:jobid/checkpoints
// response reconcile reads (CheckpointingStatistics: counts, latest.restored
// {id, restore_timestamp, is_savepoint}, history[] {id, status,
// trigger_timestamp, latest_ack_timestamp, is_savepoint}; times are epoch
// milliseconds).
type flinkCheckpoints struct {
	Counts *struct {
		Restored int64 `json:"restored"`
	} `json:"counts"`
	Latest *struct {
		Restored *struct {
			ID               int64 `json:"id"`
			RestoreTimestamp int64 `json:"restore_timestamp"`
			IsSavepoint      bool  `json:"is_savepoint"`
		} `json:"restored"`
	} `json:"latest"`
	History []struct {
		ID                 int64  `json:"id"`
		Status             string `json:"status"`
		IsSavepoint        bool   `json:"is_savepoint"`
		TriggerTimestamp   int64  `json:"trigger_timestamp"`
		LatestAckTimestamp int64  `json:"latest_ack_timestamp"`
	} `json:"history"`
}

// flinkExceptions is the part of Flink's GET /jobs/:jobid/exceptions
// response reconcile reads (JobExceptionsInfoWithHistory:
// exceptionHistory.entries[].timestamp, epoch milliseconds; each entry is
// one failure of the job, which Flink answers with a restore from its latest
// completed checkpoint).
type flinkExceptions struct {
	ExceptionHistory *struct {
		Entries []struct {
			Timestamp     int64  `json:"timestamp"`
			ExceptionName string `json:"exceptionName"`
		} `json:"entries"`
		Truncated bool `json:"truncated"`
	} `json:"exceptionHistory"`
}

// ReadRestarts reads path: a Flink REST JSON response (checkpoints or
// exceptions; told apart by their keys), a CSV with the header
// restart_time,restored_checkpoint_id, or a folder of such files (*.json,
// *.csv; hidden files skipped). Restart times without a zone are read in
// zone; numbers are epoch milliseconds.
//
// From Flink's JSON, restarts are the failures of the exception history;
// each restored the latest checkpoint COMPLETED (latest_ack_timestamp)
// before it — failed, in-progress checkpoints and savepoints are never
// restored. latest.restored, which names only the last restore, overrides
// the last one. Without an exception history, latest.restored is the only
// restart known, and a note says how many restores Flink counted.
func ReadRestarts(path, zone string) (*Restarts, error) {
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return nil, fmt.Errorf("%w: time zone %q: %w", ErrRestarts, zone, err)
	}
	files, err := restartFiles(path)
	if err != nil {
		return nil, err
	}
	out := &Restarts{}
	var flink flinkFiles
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrRestarts, err)
		}
		if rel, err := filepath.Rel(filepath.Dir(filepath.Clean(path)), f); err == nil {
			out.Files = append(out.Files, filepath.ToSlash(rel))
		} else {
			out.Files = append(out.Files, f)
		}
		base := filepath.Base(f)
		if strings.EqualFold(filepath.Ext(f), ".csv") {
			rs, err := readRestartCSV(data, loc)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %w", ErrRestarts, base, err)
			}
			for i := range rs {
				rs[i].From = base
			}
			out.Restarts = append(out.Restarts, rs...)
			continue
		}
		if err := flink.read(base, data, out); err != nil {
			return nil, err
		}
	}
	lastRestore := out.mergeHistory(flink.checkpoints)
	out.addFailures(flink.failures, flink.failFrom)
	sort.SliceStable(out.Restarts, func(i, j int) bool { return out.Restarts[i].Time.Before(out.Restarts[j].Time) })
	if lastRestore != nil {
		out.applyLatestRestored(lastRestore)
	}
	if flink.restoredCount > int64(len(out.Restarts)) {
		out.Notes = append(out.Notes, fmt.Sprintf("Flink counted %d restore(s) but the files show %d restart(s): save /jobs/<jobid>/exceptions as well to see every failure", flink.restoredCount, len(out.Restarts)))
	}
	sort.SliceStable(out.Restarts, func(i, j int) bool { return out.Restarts[i].Time.Before(out.Restarts[j].Time) })
	out.number()
	if len(out.History) == 0 && len(out.Restarts) > 0 {
		out.Notes = append(out.Notes, "no checkpoint history: a row is taken as written before a restart when its checkpoint id is at most the restored checkpoint + 1")
	}
	return out, nil
}

// restartFiles are the files ReadRestarts reads: path itself, or the
// *.json and *.csv files of the folder path (hidden files and those whose
// name starts with _ skipped; none is an ErrRestarts).
func restartFiles(path string) ([]string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRestarts, err)
	}
	if !st.IsDir() {
		return []string{path}, nil
	}
	ents, err := os.ReadDir(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRestarts, err)
	}
	var files []string
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") {
			continue
		}
		if ext := strings.ToLower(filepath.Ext(n)); ext == ".json" || ext == ".csv" {
			files = append(files, filepath.Join(path, n))
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%w: %s holds no .json or .csv file", ErrRestarts, path)
	}
	return files, nil
}

// flinkFiles is what the Flink REST responses read so far hold: the
// checkpoint histories, the failures of the exception histories (with the
// file each is from), and the restores Flink counted.
type flinkFiles struct {
	checkpoints   []*flinkCheckpoints
	failures      []time.Time
	failFrom      []string
	restoredCount int64
}

// read reads data, the Flink response in file base: its exception history
// (a note in out when Flink truncated it) or its checkpoints, told apart
// by their keys; anything else is an ErrRestarts.
func (ff *flinkFiles) read(base string, data []byte, out *Restarts) error {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrRestarts, base, err)
	}
	switch {
	case probe["exceptionHistory"] != nil:
		var fe flinkExceptions
		if err := json.Unmarshal(data, &fe); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrRestarts, base, err)
		}
		for _, e := range fe.ExceptionHistory.Entries {
			ff.failures = append(ff.failures, time.UnixMilli(e.Timestamp).UTC())
			ff.failFrom = append(ff.failFrom, base)
		}
		if fe.ExceptionHistory.Truncated {
			out.Notes = append(out.Notes, base+": Flink truncated the exception history; earlier failures are not listed")
		}
	case probe["history"] != nil || probe["latest"] != nil:
		var fc flinkCheckpoints
		if err := json.Unmarshal(data, &fc); err != nil {
			return fmt.Errorf("%w: %s: %w", ErrRestarts, base, err)
		}
		ff.checkpoints = append(ff.checkpoints, &fc)
		if fc.Counts != nil {
			ff.restoredCount += fc.Counts.Restored
		}
	default:
		return fmt.Errorf("%w: %s is neither Flink's /jobs/<id>/checkpoints response (history, latest) nor /jobs/<id>/exceptions (exceptionHistory)", ErrRestarts, base)
	}
	return nil
}

// mergeHistory sets rs.History to the checkpoints of cps merged by id, in
// id order, and returns the last restore latest.restored names (nil when
// none does).
func (rs *Restarts) mergeHistory(cps []*flinkCheckpoints) *Restart {
	byID := map[int64]Checkpoint{}
	var lastRestore *Restart
	for _, fc := range cps {
		for _, h := range fc.History {
			c := Checkpoint{ID: h.ID, Status: strings.ToUpper(h.Status), TriggeredAt: time.UnixMilli(h.TriggerTimestamp).UTC(), Savepoint: h.IsSavepoint}
			if h.LatestAckTimestamp > 0 {
				t := time.UnixMilli(h.LatestAckTimestamp).UTC()
				c.AckedAt = &t
			}
			byID[h.ID] = c
		}
		if fc.Latest != nil && fc.Latest.Restored != nil {
			lr := fc.Latest.Restored
			lastRestore = &Restart{Time: time.UnixMilli(lr.RestoreTimestamp).UTC(), RestoredCheckpoint: lr.ID, From: "checkpoints"}
		}
	}
	for _, c := range byID {
		rs.History = append(rs.History, c)
	}
	sort.Slice(rs.History, func(i, j int) bool { return rs.History[i].ID < rs.History[j].ID })
	return lastRestore
}

// addFailures adds a restart for each failure (from: the file it is
// from), restoring the latest checkpoint completed before it; one the
// history does not reach back to restored an unknown checkpoint (-1), with
// a note.
func (rs *Restarts) addFailures(failures []time.Time, from []string) {
	for i, t := range failures {
		r := Restart{Time: t, RestoredCheckpoint: -1, From: from[i]}
		if c, ok := rs.lastCompletedBefore(t); ok {
			r.RestoredCheckpoint = c.ID
		} else if len(rs.History) > 0 {
			rs.Notes = append(rs.Notes, fmt.Sprintf("the checkpoint history does not reach back to the failure at %s: the checkpoint it restored is unknown (raise web.checkpoints.history)", t.Format(time.RFC3339)))
		}
		rs.Restarts = append(rs.Restarts, r)
	}
}

// applyLatestRestored applies latest.restored, the last restore: it
// matches the last failure before it (whose restored checkpoint it names,
// with a note when that differs from the history's), or is the only
// restart known. rs.Restarts is in time order.
func (rs *Restarts) applyLatestRestored(lastRestore *Restart) {
	for i := len(rs.Restarts) - 1; i >= 0; i-- {
		r := &rs.Restarts[i]
		if !r.Time.After(lastRestore.Time) {
			if r.RestoredCheckpoint >= 0 && r.RestoredCheckpoint != lastRestore.RestoredCheckpoint {
				rs.Notes = append(rs.Notes, fmt.Sprintf("the failure at %s restored checkpoint %d by latest.restored, not %d (the latest completed in the history)", r.Time.Format(time.RFC3339), lastRestore.RestoredCheckpoint, r.RestoredCheckpoint))
			}
			r.RestoredCheckpoint = lastRestore.RestoredCheckpoint
			return
		}
	}
	lastRestore.From = "latest.restored"
	rs.Restarts = append(rs.Restarts, *lastRestore)
}

// number numbers the restarts, in time order, from 1 and sets each one's
// open epoch (the checkpoint open at the failure: after the restored one
// and every one triggered before the restart) and the time its restored
// checkpoint was triggered, when the history has it.
func (rs *Restarts) number() {
	for i := range rs.Restarts {
		r := &rs.Restarts[i]
		r.No = i + 1
		r.OpenEpoch = r.RestoredCheckpoint + 1
		if c, ok := rs.byID(r.RestoredCheckpoint); ok {
			t := c.TriggeredAt
			r.RestoredCheckpointTime = &t
		}
		for _, c := range rs.History {
			if c.TriggeredAt.Before(r.Time) && c.ID+1 > r.OpenEpoch {
				r.OpenEpoch = c.ID + 1
			}
		}
	}
}

func (rs *Restarts) lastCompletedBefore(t time.Time) (Checkpoint, bool) {
	var best Checkpoint
	found := false
	for _, c := range rs.History {
		if c.Status != "COMPLETED" || c.Savepoint || c.AckedAt == nil || !c.AckedAt.Before(t) {
			continue
		}
		if !found || c.ID > best.ID {
			best, found = c, true
		}
	}
	return best, found
}

func (rs *Restarts) byID(id int64) (Checkpoint, bool) {
	for _, c := range rs.History {
		if c.ID == id {
			return c, true
		}
	}
	return Checkpoint{}, false
}

// readRestartCSV reads restart_time,restored_checkpoint_id rows.
func readRestartCSV(data []byte, loc *time.Location) ([]Restart, error) {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	ti, ci := -1, -1
	for i, h := range head {
		switch strings.TrimSpace(h) {
		case "restart_time":
			ti = i
		case "restored_checkpoint_id":
			ci = i
		}
	}
	if ti < 0 || ci < 0 {
		return nil, fmt.Errorf("want the header restart_time,restored_checkpoint_id, got %s", strings.Join(head, ","))
	}
	var out []Restart
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		t, err := parseTime(strings.TrimSpace(rec[ti]), loc)
		if err != nil {
			return nil, fmt.Errorf("line %d: restart_time: %w", line, err)
		}
		id, err := strconv.ParseInt(strings.TrimSpace(rec[ci]), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: restored_checkpoint_id %q is not an integer", line, rec[ci])
		}
		out = append(out, Restart{Time: t, RestoredCheckpoint: id})
	}
	return out, nil
}

// parseTime reads RFC 3339, a zone-less "2006-01-02[T ]15:04:05[.frac]" in
// loc, or epoch milliseconds.
func parseTime(s string, loc *time.Location) (time.Time, error) {
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.UnixMilli(ms).UTC(), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999", "2006-01-02 15:04:05Z07:00"} {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time (want RFC 3339, 2006-01-02 15:04:05 or epoch milliseconds)", s)
}
