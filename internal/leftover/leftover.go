// Package leftover cleans up after runs that died before they could (a
// SIGKILL from the OOM killer or a cron timeout): DuckDB's temporary
// folders, which can hold gigabytes of spilled data, evidence staging
// folders (".<name>.incomplete-…"), which never look like finished
// evidence but take space and confuse whoever lists the folder, and a first
// run history built beside its final name (".<file>.new-…", HistoryStaging)
// by a run killed before it was put in place.
//
// Each is named for the process that made it (its pid and start time,
// package proc): a later run removes those whose process is gone, and says
// so. What a live process owns, or what records no owner (made by an
// older reconcile), is left alone.
package leftover

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/proc"
)

// TempPrefix starts the name of a run's DuckDB temporary folder, in the
// system's temporary folder ($TMPDIR or /tmp):
// reconcile-duckdb-<pid>-<start>-<random>.
const TempPrefix = "reconcile-duckdb-"

// MkdirTemp creates the running process's DuckDB temporary folder in the
// system's temporary folder (os.TempDir), named for it (TempPrefix).
func MkdirTemp() (string, error) {
	return os.MkdirTemp("", TempPrefix+proc.Self().Tag()+"-")
}

// HistoryStaging is where the running process builds a history file that
// does not exist yet, beside its final name file, before linking it into
// place: ".<file's name>.new-<pid>-<start>" (DuckDB may add ".wal" to it).
func HistoryStaging(file string) string {
	return filepath.Join(filepath.Dir(file), historyStagingPrefix(file)+proc.Self().Tag())
}

func historyStagingPrefix(file string) string { return "." + filepath.Base(file) + ".new-" }

// Removed is one leftover dealt with.
type Removed struct {
	// Path is the folder or file removed (or, Restored, put back).
	Path string
	// What is a DuckDB temporary folder, an evidence staging folder or a
	// history file never put in place.
	What string
	// Owner is the process that made it, no longer running.
	Owner proc.Owner
	// Bytes is the size of the files it held.
	Bytes int64
	// Recycled is true when the owner's pid now belongs to another
	// process (the owner is gone all the same: its start time differs).
	Recycled bool
	// Restored is true for an earlier evidence folder that a --force run
	// had moved aside and died before the new one was in place: it was
	// renamed back to RestoredTo instead of removed.
	Restored   bool
	RestoredTo string
}

// String describes what was done, for stderr.
func (r Removed) String() string {
	if r.Restored {
		return fmt.Sprintf("restored %s to %s: an earlier evidence folder that pid %d (no longer running) had moved aside for --force", r.Path, r.RestoredTo, r.Owner.PID)
	}
	if r.Recycled {
		return fmt.Sprintf("removed %s (%s of pid %d, which has ended: the pid now belongs to another process; %s)", r.Path, r.What, r.Owner.PID, size(r.Bytes))
	}
	return fmt.Sprintf("removed %s (%s of pid %d, which is no longer running; %s)", r.Path, r.What, r.Owner.PID, size(r.Bytes))
}

// Sweep removes the DuckDB temporary folders in tempDir ("" for
// os.TempDir), the evidence staging folders in each of evidenceDirs (the
// folders evidence folders are published in) and the staging files of
// each history file of histories (HistoryStaging, with DuckDB's .wal) whose
// process is gone, and returns what it did, in path order. An earlier evidence folder a dead
// --force run had moved aside is put back when its target is missing, and
// removed when the new folder took its place. Folders that cannot be
// removed are reported in the error; the others are removed all the same.
func Sweep(tempDir string, evidenceDirs, histories []string) ([]Removed, error) {
	if tempDir == "" {
		tempDir = os.TempDir()
	}
	var out []Removed
	var errs []error
	entries, err := os.ReadDir(tempDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, err)
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), TempPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		owner, tail, ok := proc.ParseTag(rest)
		if !ok || tail == "" || owner.Alive() {
			continue
		}
		r, err := remove(filepath.Join(tempDir, e.Name()), "DuckDB temporary folder", owner)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, r)
	}
	seen := map[string]bool{}
	for _, dir := range evidenceDirs {
		dir = filepath.Clean(dir)
		if seen[dir] {
			continue
		}
		seen[dir] = true
		entries, err := os.ReadDir(dir)
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
			continue
		}
		for _, e := range entries {
			st, ok := evidence.ParseStaging(e.Name())
			if !ok || !e.IsDir() || st.Owner.Alive() {
				continue
			}
			path := filepath.Join(dir, e.Name())
			if st.Old {
				target := filepath.Join(dir, st.Target)
				if _, err := os.Lstat(target); errors.Is(err, os.ErrNotExist) {
					if err := os.Rename(path, target); err != nil {
						errs = append(errs, fmt.Errorf("leftover: restore %s: %w", path, err))
						continue
					}
					out = append(out, Removed{Path: path, What: "earlier evidence folder", Owner: st.Owner, Restored: true, RestoredTo: target})
					continue
				}
			}
			what := "evidence staging folder (never published)"
			if st.Old {
				what = "earlier evidence folder replaced by --force"
			}
			r, err := remove(path, what, st.Owner)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			out = append(out, r)
		}
	}
	for _, h := range histories {
		prefix := historyStagingPrefix(h)
		entries, err := os.ReadDir(filepath.Dir(h))
		if err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
			}
			continue
		}
		for _, e := range entries {
			rest, ok := strings.CutPrefix(e.Name(), prefix)
			if !ok || !e.Type().IsRegular() {
				continue
			}
			owner, tail, ok := proc.ParseTag(strings.TrimSuffix(rest, ".wal"))
			if !ok || tail != "" || owner.Alive() {
				continue
			}
			r, err := remove(filepath.Join(filepath.Dir(h), e.Name()), "history file never put in place", owner)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, errors.Join(errs...)
}

func remove(path, what string, owner proc.Owner) (Removed, error) {
	var n int64
	filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	if err := os.RemoveAll(path); err != nil {
		return Removed{}, fmt.Errorf("leftover: remove %s: %w", path, err)
	}
	return Removed{Path: path, What: what, Owner: owner, Bytes: n, Recycled: owner.PIDInUse()}, nil
}

// size renders n bytes for a person: 1.2 GB, 340.0 MB, 12 bytes.
func size(n int64) string {
	const k = 1000
	switch {
	case n >= k*k*k:
		return fmt.Sprintf("%.1f GB", float64(n)/(k*k*k))
	case n >= k*k:
		return fmt.Sprintf("%.1f MB", float64(n)/(k*k))
	case n >= k:
		return fmt.Sprintf("%.1f kB", float64(n)/k)
	}
	return fmt.Sprintf("%d bytes", n)
}
