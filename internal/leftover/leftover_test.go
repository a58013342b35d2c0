package leftover

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/internal/proc"
)

// gone is the owner of a process that has exited.
func gone(t *testing.T) proc.Owner {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	start, err := proc.StartTime(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	return proc.Owner{PID: cmd.Process.Pid, Start: start}
}

func mkdir(t *testing.T, path string, files ...string) {
	t.Helper()
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(path, f), []byte("0123456789"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestSweep(t *testing.T) {
	tmp, ev := t.TempDir(), t.TempDir()
	dead, me := gone(t), proc.Self()
	recycled := proc.Owner{PID: me.PID, Start: me.Start + 3} // this pid, another process
	mkdir(t, filepath.Join(tmp, TempPrefix+dead.Tag()+"-111"), "duckdb_temp_block-1.block", "duckdb_temp_block-2.block")
	mkdir(t, filepath.Join(tmp, TempPrefix+recycled.Tag()+"-222"), "x")
	mkdir(t, filepath.Join(tmp, TempPrefix+me.Tag()+"-333"), "x")   // ours: in use
	mkdir(t, filepath.Join(tmp, TempPrefix+"K3J2H1"), "x")          // no owner recorded: left alone
	mkdir(t, filepath.Join(tmp, "unrelated-"+dead.Tag()+"-1"), "x") // not ours at all
	mkdir(t, filepath.Join(ev, ".ledger.incomplete-"+dead.Tag()+"-ABCDEFGHIJ", "exceptions"))
	mkdir(t, filepath.Join(ev, ".ledger.incomplete-"+me.Tag()+"-ABCDEFGHIJ"))
	mkdir(t, filepath.Join(ev, ".ledger.incomplete-QWERTYUIOP")) // an older reconcile's: left alone
	// --force runs that died at commit: one after the new folder was in
	// place (the old copy goes), one before (the old copy is the evidence).
	mkdir(t, filepath.Join(ev, "night-1"), "summary.json")
	mkdir(t, filepath.Join(ev, ".night-1.incomplete-"+dead.Tag()+"-AAAAAAAAAA.old"), "summary.json")
	mkdir(t, filepath.Join(ev, ".night-2.incomplete-"+dead.Tag()+"-BBBBBBBBBB.old"), "summary.json")

	// A first history file built beside its name by a run killed before
	// it was linked into place: the dead run's (and DuckDB's WAL beside
	// it) go; ours, another history's and the history itself stay.
	hist := filepath.Join(ev, "h.duckdb")
	for _, f := range []string{"h.duckdb", ".h.duckdb.new-" + dead.Tag(), ".h.duckdb.new-" + dead.Tag() + ".wal", ".h.duckdb.new-" + me.Tag(), ".g.duckdb.new-" + dead.Tag()} {
		if err := os.WriteFile(filepath.Join(ev, f), []byte("0123456789"), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	got, err := Sweep(tmp, []string{ev, ev}, []string{hist})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, r := range got {
		lines = append(lines, r.String())
	}
	want := []string{
		"removed " + filepath.Join(ev, ".ledger.incomplete-"+dead.Tag()+"-ABCDEFGHIJ") + " (evidence staging folder (never published)",
		"removed " + filepath.Join(ev, ".night-1.incomplete-"+dead.Tag()+"-AAAAAAAAAA.old") + " (earlier evidence folder replaced by --force",
		"restored " + filepath.Join(ev, ".night-2.incomplete-"+dead.Tag()+"-BBBBBBBBBB.old") + " to " + filepath.Join(ev, "night-2"),
		"removed " + filepath.Join(tmp, TempPrefix+dead.Tag()+"-111") + fmt.Sprintf(" (DuckDB temporary folder of pid %d, which is no longer running;", dead.PID),
		"removed " + filepath.Join(tmp, TempPrefix+recycled.Tag()+"-222") + fmt.Sprintf(" (DuckDB temporary folder of pid %d, which has ended: the pid now belongs to another process;", me.PID),
		"removed " + filepath.Join(ev, ".h.duckdb.new-"+dead.Tag()) + " (history file never put in place of pid",
		"removed " + filepath.Join(ev, ".h.duckdb.new-"+dead.Tag()+".wal") + " (history file never put in place of pid",
	}
	sort.Strings(want)
	sort.Strings(lines)
	if len(lines) != len(want) {
		t.Fatalf("swept:\n%s\nwant %d entries", strings.Join(lines, "\n"), len(want))
	}
	for i := range want {
		if !strings.HasPrefix(lines[i], want[i]) {
			t.Errorf("line %d = %q, want prefix %q", i, lines[i], want[i])
		}
	}
	for _, r := range got {
		if strings.HasSuffix(r.Path, "-111") && r.Bytes != 20 {
			t.Errorf("%s: %d bytes, want 20", r.Path, r.Bytes)
		}
	}
	var left []string
	for _, d := range []string{tmp, ev} {
		es, _ := os.ReadDir(d)
		for _, e := range es {
			left = append(left, e.Name())
		}
	}
	sort.Strings(left)
	wantLeft := []string{"h.duckdb", ".h.duckdb.new-" + me.Tag(), ".g.duckdb.new-" + dead.Tag(), ".ledger.incomplete-" + me.Tag() + "-ABCDEFGHIJ", ".ledger.incomplete-QWERTYUIOP", "night-1", "night-2",
		TempPrefix + "K3J2H1", TempPrefix + me.Tag() + "-333", "unrelated-" + dead.Tag() + "-1"}
	sort.Strings(wantLeft)
	if strings.Join(left, "\n") != strings.Join(wantLeft, "\n") {
		t.Errorf("left:\n%s\nwant:\n%s", strings.Join(left, "\n"), strings.Join(wantLeft, "\n"))
	}
}
