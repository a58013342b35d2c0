package load_test

import (
	"context"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/internal/load"
	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/sourcetest"
)

// CommitHistory makes table commit_history only when an input reports a
// history, with one row per finding in the input's order.
func TestCommitHistory(t *testing.T) {
	ctx := context.Background()
	db := sourcetest.DB(t)
	plain := &sources.Input{Role: "source"}
	if ok, err := load.CommitHistory(ctx, db, []*sources.Input{plain, {Role: "sink"}}); ok || err != nil {
		t.Fatalf("no history reported: ok %v, err %v", ok, err)
	}
	sink := &sources.Input{Role: "sink", ReportsCommitHistory: true, CommitHistory: []sources.CommitFinding{
		{Finding: "data_file_added_twice", Exception: true, Commit: "22", Other: "11", Detail: "twice"},
		{Finding: "rewrite", Commit: "33", Detail: "compaction"},
	}}
	if ok, err := load.CommitHistory(ctx, db, []*sources.Input{plain, sink}); !ok || err != nil {
		t.Fatalf("ok %v, err %v", ok, err)
	}
	_, rows, err := db.Strings(ctx, `SELECT side, seq, finding, exception, "commit", coalesce(other_commit, 'NULL'), detail FROM commit_history ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		var f []string
		for _, v := range r {
			f = append(f, *v)
		}
		got = append(got, strings.Join(f, ","))
	}
	if want := "sink,0,data_file_added_twice,true,22,11,twice|sink,1,rewrite,false,33,NULL,compaction"; strings.Join(got, "|") != want {
		t.Errorf("commit_history %q, want %q", got, want)
	}
}
