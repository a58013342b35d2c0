package load

import (
	"context"
	"fmt"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/queries"
	"github.com/reconcile-dev/reconcile/sources"
)

// FindingKeyInsertedTwice is the commit finding (sources.CommitFinding) of
// a table's changes in which a commit inserted keys while an earlier
// insert of each was live (changeFindings).
const FindingKeyInsertedTwice = "key_inserted_twice"

// changeFindings adds to in's commit history (sources.Input.CommitHistory,
// which the check commit_history lists) one exception for each pair of
// commits where the later inserted keys of the table's changes loaded in
// table while the earlier's insert of them was live, no delete of the key
// between them (change_reinserts.sql, over in.ChangeLog's columns as the
// input names them, before any rename): the table holds those rows twice.
// An input without a ChangeLog, or whose ChangeLog has no key, gets none.
func changeFindings(ctx context.Context, db *duck.DB, table string, in *sources.Input) error {
	cl := in.ChangeLog
	if cl == nil || len(cl.Key) == 0 {
		return nil
	}
	parts := make([]string, len(cl.Key))
	for i, k := range cl.Key {
		parts[i] = fmt.Sprintf("%s || coalesce(CAST(t.%s AS VARCHAR), 'NULL')", duck.Literal(k+" = "), duck.Ident(k))
	}
	keyText := strings.Join(parts, " || ', ' || ")
	_, rows, err := db.StringsFile(ctx, statements(), queries.LoadChangeReinserts, struct {
		Table, Change, DeleteKind, DeleteAll, Commit, Checkpoint, Location, KeyText string
		Key                                                                         []string
	}{table, cl.Change, cl.DeleteKind, cl.DeleteAll, cl.Commit, cl.Checkpoint, in.LocationForm, keyText, cl.Key})
	if err != nil {
		return err
	}
	for _, r := range rows {
		v := make([]string, len(r))
		for i, p := range r {
			v[i] = deref(p)
		}
		commit, other, n, key, loc, otherLoc, ck, otherCk := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
		in.CommitHistory = append(in.CommitHistory, sources.CommitFinding{Finding: FindingKeyInsertedTwice, Exception: true,
			Commit: commit, Other: other,
			Detail: fmt.Sprintf("commit %s%s inserted %s key(s) while an earlier insert of each, last by commit %s%s, was live — no delete of the key between them: the table holds those rows twice (the first: %s at %s, inserted before at %s)",
				commit, checkpointText(ck), n, other, checkpointText(otherCk), key, loc, otherLoc)})
	}
	return nil
}

// checkpointText is " (checkpoint N)", or "" without a checkpoint.
func checkpointText(ck string) string {
	if ck == "" {
		return ""
	}
	return " (checkpoint " + ck + ")"
}
