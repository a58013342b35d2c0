// Package proc tells whether the process that left something behind (a
// lock file, a DuckDB temporary folder, an evidence staging folder) is
// still running. A pid alone is not enough: the kernel reuses pids, so an
// owner is its pid and its start time — field 22 of /proc/<pid>/stat
// (proc(5)), clock ticks after boot — and a live process with the same pid
// but another start time is a different process.
//
// The package imports nothing of reconcile.
package proc

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Owner identifies a process: its pid and start time (0 when unknown,
// as on a system without /proc).
type Owner struct {
	PID   int
	Start uint64
}

// Self is the running process.
func Self() Owner {
	pid := os.Getpid()
	start, _ := StartTime(pid)
	return Owner{PID: pid, Start: start}
}

// Tag is the owner as it is written into a file or folder name:
// "<pid>-<start>" (decimal).
func (o Owner) Tag() string { return fmt.Sprintf("%d-%d", o.PID, o.Start) }

// ParseTag reads a Tag at the start of s and returns the owner and the rest
// of s after the tag and one "-" (or nothing). ok is false when s does not
// start with a tag.
func ParseTag(s string) (o Owner, rest string, ok bool) {
	parts := strings.SplitN(s, "-", 3)
	if len(parts) < 2 {
		return Owner{}, "", false
	}
	pid, err := strconv.Atoi(parts[0])
	if err != nil || pid <= 0 || parts[0] != strconv.Itoa(pid) {
		return Owner{}, "", false
	}
	start, err := strconv.ParseUint(parts[1], 10, 64)
	if err != nil || parts[1] != strconv.FormatUint(start, 10) {
		return Owner{}, "", false
	}
	if len(parts) == 3 {
		rest = parts[2]
	}
	return Owner{PID: pid, Start: start}, rest, true
}

// PIDInUse reports whether some process has the owner's pid now (itself,
// or another that was given the pid since).
func (o Owner) PIDInUse() bool {
	if o.PID <= 0 {
		return false
	}
	err := syscall.Kill(o.PID, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Alive reports whether the owner is still running: a process with its pid
// exists (kill(pid, 0) succeeds, or fails only for want of permission) and,
// when both start times are known, it started when the owner did. When in
// doubt it answers true: what a live process owns is never taken away.
func (o Owner) Alive() bool {
	if o.PID <= 0 {
		return false
	}
	if err := syscall.Kill(o.PID, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false // ESRCH: no such process
	}
	if o.Start == 0 {
		return true
	}
	start, err := StartTime(o.PID)
	if err != nil {
		// The process may have exited between the two looks; if its
		// stat file is gone, so is it.
		if _, serr := os.Stat(fmt.Sprintf("/proc/%d", o.PID)); errors.Is(serr, os.ErrNotExist) {
			return syscall.Kill(o.PID, 0) == nil
		}
		return true
	}
	return start == o.Start
}

// StartTime is the start time of process pid in clock ticks after boot,
// field 22 (starttime) of /proc/<pid>/stat. The second field (comm) is in
// parentheses and may hold spaces and parentheses, so fields are counted
// after its last ')'.
func StartTime(pid int) (uint64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("proc: /proc/%d/stat: no ')' after the command name", pid)
	}
	fields := strings.Fields(s[i+1:])
	// fields[0] is field 3 (state), so field 22 is fields[19].
	if len(fields) < 20 {
		return 0, fmt.Errorf("proc: /proc/%d/stat: %d fields after the command name, want at least 20", pid, len(fields))
	}
	return strconv.ParseUint(fields[19], 10, 64)
}
