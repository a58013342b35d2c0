package iceberg

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go/table"
)

// The snapshot summary keys Flink's Iceberg sink writes on every commit
// (org.apache.iceberg.flink.sink.SinkUtil: FLINK_JOB_ID, OPERATOR_ID,
// MAX_COMMITTED_CHECKPOINT_ID, set by IcebergFilesCommitter and, for the
// SinkV2 committer, IcebergCommitter.commitOperation). An append-only
// commit may merge several completed checkpoints into one snapshot, which
// carries the highest id; a commit with delete files is one RowDelta
// snapshot per checkpoint; end of input commits checkpoint Long.MAX_VALUE.
const (
	FlinkJobID         = "flink.job-id"
	FlinkOperatorID    = "flink.operator-id"
	FlinkCheckpointKey = "flink.max-committed-checkpoint-id"
)

// EndOfInputCheckpoint is the checkpoint id Flink's committer commits the
// last files under when its input ends (IcebergStreamWriter.END_INPUT_CHECKPOINT_ID).
const EndOfInputCheckpoint = math.MaxInt64

// commit is what one snapshot's summary says of the Flink commit that made
// it: its job, operator and the highest checkpoint id it committed, and
// the checkpoint id committed before it by the same job and operator along
// the snapshot's ancestry (after: the range it committed is (after, id]).
type commit struct {
	snap      *table.Snapshot
	job, op   string
	ckpt      int64
	hasCkpt   bool
	after     int64
	hasAfter  bool
	summaryOK bool // the three keys are there and the id reads
}

// readCommit reads the Flink keys of a snapshot's summary. A summary
// without flink.max-committed-checkpoint-id is no Flink commit (hasCkpt
// false); one whose id is not a decimal integer is noted in bad.
func readCommit(s *table.Snapshot) (c commit, bad string) {
	c.snap = s
	if s.Summary == nil {
		return c, ""
	}
	p := s.Summary.Properties
	c.job, c.op = p[FlinkJobID], p[FlinkOperatorID]
	v, ok := p[FlinkCheckpointKey]
	if !ok {
		return c, ""
	}
	id, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return c, fmt.Sprintf("snapshot %d: %s %q is not a checkpoint id", s.SnapshotID, FlinkCheckpointKey, v)
	}
	c.ckpt, c.hasCkpt = id, true
	c.summaryOK = c.job != "" && c.op != ""
	return c, ""
}

// snapIndex finds a table's snapshots by id.
type snapIndex map[int64]*table.Snapshot

// parent is s's parent, nil when it has none or it has expired.
func (ix snapIndex) parent(s *table.Snapshot) *table.Snapshot {
	if s == nil || s.ParentSnapshotID == nil {
		return nil
	}
	return ix[*s.ParentSnapshotID]
}

// ancestry is the chain of snapshots that leads to snap, oldest first
// (following parent-snapshot-id while the parent is in the metadata).
func (ix snapIndex) ancestry(snap *table.Snapshot) []*table.Snapshot {
	var out []*table.Snapshot
	seen := map[int64]bool{}
	for s := snap; s != nil && !seen[s.SnapshotID]; s = ix.parent(s) {
		seen[s.SnapshotID] = true
		out = append(out, s)
	}
	slices.Reverse(out)
	return out
}

// Finding kinds of the commit history (Finding.Kind).
const (
	// FindingCheckpointTwice: a snapshot repeats an earlier one's
	// (flink.job-id, flink.operator-id, flink.max-committed-checkpoint-id).
	FindingCheckpointTwice = "checkpoint_committed_twice"
	// FindingCheckpointBackwards: for one job and operator, a snapshot's
	// checkpoint id is below an earlier one's along the ancestry.
	FindingCheckpointBackwards = "checkpoint_not_increasing"
	// FindingFileTwice: one data file is live twice in the snapshot read,
	// added by two snapshots: its rows are read twice.
	FindingFileTwice = "data_file_added_twice"
	// FindingCheckpointTwoJobs (information): one operator's checkpoint id
	// committed under two job ids (a restore under a new job id commits
	// the restored checkpoint again; a job started without state counts
	// from 1 again).
	FindingCheckpointTwoJobs = "checkpoint_committed_by_two_jobs"
	// FindingRewrite (information): a replace (compaction), or an
	// overwrite that removed data files: the files it added are attributed
	// to it, not to the checkpoints that first wrote their rows.
	FindingRewrite = "rewrite"
	// FindingNotRead (information): a snapshot not in the ancestry of the
	// one read (rolled back, or only on another branch): its rows are not
	// read.
	FindingNotRead = "not_in_ancestry"
)

// Finding is one fact of a table's commit history: Exception findings
// fail a control (a checkpoint committed twice, a data file read twice),
// the others are listed for information.
type Finding struct {
	Kind      string `json:"kind"`
	Exception bool   `json:"exception"`
	// Snapshot is the snapshot the finding is about; Other, when set, the
	// earlier snapshot it repeats.
	Snapshot string `json:"snapshot"`
	Other    string `json:"other_snapshot,omitempty"`
	Detail   string `json:"detail"`
}

// history is what a read knows of the table's commits.
type history struct {
	commits  map[int64]*commit // every snapshot of the metadata, by id
	ancestry []*table.Snapshot // of the snapshot read, oldest first
	findings []Finding
	notes    []string
}

func ckptText(id int64) string {
	if id == EndOfInputCheckpoint {
		return fmt.Sprintf("%d (end of input)", id)
	}
	return strconv.FormatInt(id, 10)
}

// analyze reads the Flink keys of every snapshot, the checkpoint range of
// each along its own ancestry, and the findings along the ancestry of snap
// (nil: a table with no snapshot).
func analyze(meta table.Metadata, snap *table.Snapshot) *history {
	h := &history{commits: map[int64]*commit{}}
	snaps := meta.Snapshots()
	ix := snapIndex{}
	for i := range snaps {
		c, bad := readCommit(&snaps[i])
		if bad != "" {
			h.notes = append(h.notes, bad)
		}
		h.commits[snaps[i].SnapshotID] = &c
		ix[snaps[i].SnapshotID] = &snaps[i]
	}
	// The range of each snapshot: the checkpoint committed before it by
	// the same job and operator along its own ancestry (usually its
	// parent's).
	for _, c := range h.commits {
		if !c.hasCkpt {
			continue
		}
		seen := map[int64]bool{c.snap.SnapshotID: true}
		for a := ix.parent(c.snap); a != nil && !seen[a.SnapshotID]; a = ix.parent(a) {
			seen[a.SnapshotID] = true
			if p := h.commits[a.SnapshotID]; p.hasCkpt && p.job == c.job && p.op == c.op {
				c.after, c.hasAfter = p.ckpt, true
				break
			}
		}
	}
	if snap == nil {
		return h
	}
	h.ancestry = ix.ancestry(ix[snap.SnapshotID])
	type key struct {
		job, op string
		ckpt    int64
	}
	type jobOp struct{ job, op string }
	type opCkpt struct {
		op   string
		ckpt int64
	}
	first := map[key]int64{}
	last := map[jobOp]*commit{}
	byOp := map[opCkpt]*commit{}
	in := map[int64]bool{}
	for _, s := range h.ancestry {
		in[s.SnapshotID] = true
		c := h.commits[s.SnapshotID]
		id := strconv.FormatInt(s.SnapshotID, 10)
		if what := rewrite(s); what != "" {
			h.findings = append(h.findings, Finding{Kind: FindingRewrite, Snapshot: id,
				Detail: fmt.Sprintf("snapshot %d is %s: the rows of the files it added are attributed to it, not to the checkpoints that first committed them", s.SnapshotID, what)})
		}
		if c == nil || !c.hasCkpt {
			continue
		}
		k := key{c.job, c.op, c.ckpt}
		if prev, ok := first[k]; ok {
			h.findings = append(h.findings, Finding{Kind: FindingCheckpointTwice, Exception: true, Snapshot: id, Other: strconv.FormatInt(prev, 10),
				Detail: fmt.Sprintf("snapshot %d commits checkpoint %s of job %s, operator %s, which snapshot %d already committed: the files of that checkpoint are committed twice", s.SnapshotID, ckptText(c.ckpt), c.job, c.op, prev)})
		} else {
			first[k] = s.SnapshotID
			if p := last[jobOp{c.job, c.op}]; p != nil && c.ckpt < p.ckpt {
				h.findings = append(h.findings, Finding{Kind: FindingCheckpointBackwards, Exception: true, Snapshot: id, Other: strconv.FormatInt(p.snap.SnapshotID, 10),
					Detail: fmt.Sprintf("snapshot %d commits checkpoint %s of job %s, operator %s, after snapshot %d committed checkpoint %s: a checkpoint id does not increase along the ancestry (a restore from an earlier checkpoint committed again)", s.SnapshotID, ckptText(c.ckpt), c.job, c.op, p.snap.SnapshotID, ckptText(p.ckpt))})
			}
		}
		if p := last[jobOp{c.job, c.op}]; p == nil || c.ckpt > p.ckpt {
			last[jobOp{c.job, c.op}] = c
		}
		if p := byOp[opCkpt{c.op, c.ckpt}]; p != nil && p.job != c.job {
			h.findings = append(h.findings, Finding{Kind: FindingCheckpointTwoJobs, Snapshot: id, Other: strconv.FormatInt(p.snap.SnapshotID, 10),
				Detail: fmt.Sprintf("snapshot %d commits checkpoint %s of operator %s under job %s; snapshot %d committed that checkpoint id under job %s (a restore under a new job id committing the restored checkpoint again, or a job started without state)", s.SnapshotID, ckptText(c.ckpt), c.op, c.job, p.snap.SnapshotID, p.job)})
		} else if p == nil {
			byOp[opCkpt{c.op, c.ckpt}] = c
		}
	}
	// Snapshots not in the ancestry: rolled back, or on another branch.
	refsOf := map[int64][]string{}
	for name, ref := range meta.Refs() {
		for _, s := range ix.ancestry(ix[ref.SnapshotID]) {
			refsOf[s.SnapshotID] = append(refsOf[s.SnapshotID], fmt.Sprintf("%s %s", ref.SnapshotRefType, name))
		}
	}
	var out []table.Snapshot
	for _, s := range snaps {
		if !in[s.SnapshotID] {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].SequenceNumber != out[j].SequenceNumber {
			return out[i].SequenceNumber < out[j].SequenceNumber
		}
		return out[i].SnapshotID < out[j].SnapshotID
	})
	for _, s := range out {
		where := "rolled back or abandoned (no branch or tag leads to it)"
		if r := refsOf[s.SnapshotID]; len(r) > 0 {
			sort.Strings(r)
			where = "reachable only from " + strings.Join(r, ", ")
		}
		op := ""
		if s.Summary != nil {
			op = string(s.Summary.Operation) + " "
		}
		ck := ""
		if c := h.commits[s.SnapshotID]; c != nil && c.hasCkpt {
			ck = fmt.Sprintf(" (checkpoint %s of job %s)", ckptText(c.ckpt), c.job)
		}
		h.findings = append(h.findings, Finding{Kind: FindingNotRead, Snapshot: strconv.FormatInt(s.SnapshotID, 10),
			Detail: fmt.Sprintf("%ssnapshot %d%s is not in the ancestry of snapshot %d: %s; its rows are not read", op, s.SnapshotID, ck, snap.SnapshotID, where)})
	}
	return h
}

// rewrite describes a snapshot that rewrote data files — a replace
// (compaction), or an overwrite whose summary says it removed data files
// (or says nothing of it) — and is "" for any other: a row delta of an
// upsert sink, an overwrite that only adds rows and delete files, keeps
// the attribution of the rows it leaves.
func rewrite(s *table.Snapshot) string {
	if s.Summary == nil {
		return ""
	}
	switch s.Summary.Operation {
	case table.OpReplace:
		return "a compaction (replace)"
	case table.OpOverwrite:
		// Writers set a count only when it is not zero (Java's
		// SnapshotSummary.Builder, iceberg-go's collector); a summary with
		// totals but no deleted-data-files removed none.
		n, ok := s.Summary.Properties["deleted-data-files"]
		if !ok {
			if _, counted := s.Summary.Properties["total-data-files"]; counted {
				return ""
			}
			return "an overwrite (its summary does not say whether it removed data files)"
		}
		if n != "0" {
			return fmt.Sprintf("an overwrite that removed %s data file(s)", n)
		}
	}
	return ""
}
