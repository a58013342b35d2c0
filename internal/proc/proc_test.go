package proc

import (
	"os"
	"os/exec"
	"testing"
)

func TestSelfIsAlive(t *testing.T) {
	me := Self()
	if me.PID != os.Getpid() || me.Start == 0 {
		t.Fatalf("Self = %+v, want this pid and a start time (is /proc mounted?)", me)
	}
	if !me.Alive() {
		t.Error("Self().Alive() = false")
	}
	// The same pid with another start time is a recycled pid: another
	// process, so the owner is gone.
	if (Owner{PID: me.PID, Start: me.Start + 1}).Alive() {
		t.Error("an owner with this pid but another start time is taken for alive")
	}
}

func TestExitedProcessIsGone(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	start, err := StartTime(pid)
	if err != nil {
		t.Fatal(err)
	}
	o := Owner{PID: pid, Start: start}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if o.Alive() {
		t.Errorf("%+v alive after it exited and was reaped", o)
	}
}

func TestTag(t *testing.T) {
	o := Owner{PID: 4242, Start: 987654}
	got, rest, ok := ParseTag(o.Tag() + "-AbC12-x")
	if !ok || got != o || rest != "AbC12-x" {
		t.Errorf("ParseTag = %+v, %q, %v", got, rest, ok)
	}
	for _, bad := range []string{"", "abc", "12", "0-5-x", "12-x-y", "012-5-x", "-1-5"} {
		if _, _, ok := ParseTag(bad); ok {
			t.Errorf("ParseTag(%q) ok", bad)
		}
	}
}
