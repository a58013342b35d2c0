// Package memory decides how much memory a run may use: its budget, read
// from --memory-limit or from the machine, and how that budget is shared
// between DuckDB (its memory_limit, beyond which it spills), the Go heap
// (runtime/debug.SetMemoryLimit, the garbage collector's soft limit) and
// the rest of the process.
//
// The budget is the whole process's: DuckDB's memory_limit covers only its
// buffer manager, while the process also holds the Go heap (Arrow batches
// of the inputs read outside DuckDB, report data), DuckDB's allocations
// outside the buffer manager, thread stacks and the binary itself. So
// DuckDB is given DuckDBShare of the budget and the Go heap GoShare, which
// leaves the rest as headroom (measured with cmd/reconcile-bench; see the
// README's performance section).
//
// The machine's memory is what is actually available to this process: the
// memory cgroup's limit less what the cgroup already uses (cgroup v2
// memory.max and memory.current; v1 memory.limit_in_bytes and
// memory.usage_in_bytes; reclaimable page cache, inactive_file in
// memory.stat, counted as available), and never more than the host's
// MemAvailable (/proc/meminfo). The default budget is MachineShare of it.
package memory

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
)

// The shares of the budget, and of the machine. Sources of the figures:
// MachineShare leaves half of what is available to the rest of the
// machine (a nightly job shares its host). DuckDBShare and GoShare come
// from cmd/reconcile-bench (README, Performance and memory): with DuckDB at
// 60% of a 4 GB budget the 10 M × 10 M Parquet run peaked at 2.5 GB, but
// the 100 M × 100 M one at 4.05 GB — 1% over, DuckDB's buffer pool full
// while the Go heap wrote the 3.1 M-row workbook — so DuckDB gets 50%.
const (
	MachineShare = 0.5
	DuckDBShare  = 0.5
	GoShare      = 0.2
)

// GCPercent is the Go garbage collector's percent (runtime/debug.SetGCPercent)
// during a run, in place of Go's 100: the soft limit (the budget's GoShare)
// bounds the heap whatever the percent, so the collector may let garbage
// grow further between collections and run less often (the Go GC guide,
// "A Guide to the Go Garbage Collector", section Memory limit: a higher
// GOGC with a memory limit trades memory the limit allows for CPU).
// Measured (BenchmarkKafkaRead, 5 M records, two cores): the Kafka read
// 3.2–3.4 → 3.6–3.8 M rows/s. A GOGC the environment sets is kept.
const GCPercent = 400

// Apply sets the Go heap's soft limit to b.Go and the collector's percent
// to GCPercent (unless the environment sets GOGC) for a run, and returns
// the function that restores both.
func (b Budget) Apply() (restore func()) {
	limit := debug.SetMemoryLimit(b.Go)
	percent := -2 // unchanged
	if os.Getenv("GOGC") == "" {
		gc := GCPercent
		if b.gcPercent != 0 {
			gc = b.gcPercent
		}
		percent = debug.SetGCPercent(gc)
	}
	return func() {
		debug.SetMemoryLimit(limit)
		if percent != -2 {
			debug.SetGCPercent(percent)
		}
	}
}

// Sources of a budget (Budget.Source).
const (
	SourceFlag     = "--memory-limit"
	SourceCgroupV2 = "cgroup v2 memory.max"
	SourceCgroupV1 = "cgroup v1 memory.limit_in_bytes"
	SourceMeminfo  = "/proc/meminfo MemAvailable"
)

// Budget is the memory a run may use and how it is shared.
type Budget struct {
	// Bytes is the budget of the whole process.
	Bytes int64
	// Source is where it came from: SourceFlag, or the machine's figure
	// it is a share of (SourceCgroupV2, SourceCgroupV1, SourceMeminfo).
	Source string
	// Available is the machine's available memory the budget is
	// MachineShare of (0 with SourceFlag).
	Available int64
	// CgroupLimit is the memory cgroup's limit when one applies (0: none).
	CgroupLimit int64
	// DuckDB is DuckDB's memory_limit, in bytes; Go the Go heap's soft
	// limit.
	DuckDB, Go int64
	// gcPercent is the collector's percent Apply sets (0: GCPercent).
	gcPercent int
}

// The caps of a run whose checks run in a distributed engine (Remote).
// Its embedded session holds only the exception rows the engine sends
// back, and its Go heap mostly the batch being received, so neither needs a
// share of the machine: DuckDB spills exception tables beyond RemoteDuckDB
// to its temporary folder, and the collector keeps the heap near RemoteGo
// while the checks run. Measured with cmd/reconcile-trino-bench
// (docs/trino.md, The figures) at 1 M × 1 M (31 K exceptions): peak RSS
// 151 MB, against 176 MB with the machine's shares (the Go heap at 21 MB
// against 53 MB: GCPercent let garbage grow to five times the live heap).
// Writing the evidence of 310 K exceptions still holds some 100 MB of Go
// heap live, which no cap bounds.
const (
	RemoteDuckDB = 96 << 20
	RemoteGo     = 48 << 20
	// RemoteGCPercent is Go's default percent: a heap of garbage a few
	// times the live one saves little CPU when the heap is this small.
	RemoteGCPercent = 100
)

// Remote is b for a run whose checks run in a distributed engine: DuckDB's
// memory_limit and the Go heap's soft limit at most RemoteDuckDB and
// RemoteGo (less when b is smaller), and the collector's percent
// RemoteGCPercent. Bytes, Source and the machine's figures are b's.
func (b Budget) Remote() Budget {
	b.DuckDB = min(b.DuckDB, RemoteDuckDB)
	b.Go = min(b.Go, RemoteGo)
	b.gcPercent = RemoteGCPercent
	return b
}

// split fills the shares of b.Bytes.
func (b Budget) split() Budget {
	b.DuckDB = int64(float64(b.Bytes) * DuckDBShare)
	b.Go = int64(float64(b.Bytes) * GoShare)
	return b
}

// FromFlag is the budget --memory-limit gives: size is in DuckDB's
// notation (a number and B, KB, MB, GB, TB — powers of 1000 — or KiB, MiB,
// GiB, TiB — powers of 1024).
func FromFlag(size string) (Budget, error) {
	n, err := ParseSize(size)
	if err != nil {
		return Budget{}, err
	}
	return Budget{Bytes: n, Source: SourceFlag}.split(), nil
}

var sizeRE = regexp.MustCompile(`^(\d+(?:\.\d+)?)\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$`)

// ParseSize reads a size in DuckDB's notation ("512MB", "4GiB") as bytes.
func ParseSize(size string) (int64, error) {
	m := sizeRE.FindStringSubmatch(strings.TrimSpace(size))
	if m == nil {
		return 0, fmt.Errorf("memory limit %q: want a size such as 512MB or 4GB", size)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	unit := map[string]float64{"B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
		"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}[m[2]]
	n := v * unit
	if n < 1 || n > math.MaxInt64/2 {
		return 0, fmt.Errorf("memory limit %q: out of range", size)
	}
	return int64(n), nil
}

// Machine is the default budget: MachineShare of the memory available to
// this process, read under root ("/" on a real system; tests pass a folder
// laid out like one). Errors: neither a memory cgroup with a limit nor
// /proc/meminfo could be read.
func Machine(root string) (Budget, error) {
	avail, err := memAvailable(filepath.Join(root, "proc/meminfo"))
	if err != nil {
		return Budget{}, err
	}
	b := Budget{Source: SourceMeminfo, Available: avail}
	if limit, free, source, ok := cgroup(root); ok && limit > 0 {
		b.CgroupLimit = limit
		if free < b.Available {
			b.Available, b.Source = free, source
		}
	}
	b.Bytes = int64(float64(b.Available) * MachineShare)
	return b.split(), nil
}

// memAvailable reads MemAvailable (kB) from a meminfo file.
func memAvailable(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("memory: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemAvailable:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("memory: %s: MemAvailable %q: %w", path, fields[1], err)
			}
			return kb * 1024, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("memory: %s: %w", path, err)
	}
	return 0, fmt.Errorf("memory: %s has no MemAvailable line", path)
}

// unlimited: a cgroup v1 limit at or above this is "no limit" (the kernel
// writes PAGE_COUNTER_MAX pages, 9223372036854771712 on 4 KiB pages).
const unlimited = 1 << 62

// cgroup finds the memory cgroup of this process under root and returns
// its limit and what is still free under it (limit - usage + inactive file
// cache), with the source of the figure. ok is false when no memory cgroup
// with a limit is found. A cgroup without a limit of its own is limited by
// its parents, so the smallest limit on the way up to the hierarchy's root
// is the one that applies (and its usage the one that counts).
func cgroup(root string) (limit, free int64, source string, ok bool) {
	paths, err := os.ReadFile(filepath.Join(root, "proc/self/cgroup"))
	if err != nil {
		return 0, 0, "", false
	}
	mounts, err := os.ReadFile(filepath.Join(root, "proc/self/mountinfo"))
	if err != nil {
		return 0, 0, "", false
	}
	for _, line := range strings.Split(string(paths), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		v2 := parts[0] == "0" && parts[1] == ""
		if !v2 && !containsWord(parts[1], "memory") {
			continue
		}
		for _, m := range cgroupMounts(string(mounts), v2) {
			rel, okRel := strings.CutPrefix(parts[2], m.root)
			if !okRel {
				continue
			}
			dir := filepath.Join(root, m.point, rel)
			top := filepath.Join(root, m.point)
			if l, f, found := walkUp(dir, top, v2); found {
				source := SourceCgroupV1
				if v2 {
					source = SourceCgroupV2
				}
				return l, f, source, true
			}
		}
	}
	return 0, 0, "", false
}

// walkUp reads the limit of dir and of each parent up to top, and returns
// the smallest one with its free memory.
func walkUp(dir, top string, v2 bool) (limit, free int64, found bool) {
	limitFile, usageFile, cacheKey := "memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file"
	if v2 {
		limitFile, usageFile, cacheKey = "memory.max", "memory.current", "inactive_file"
	}
	for {
		if l, err := readInt(filepath.Join(dir, limitFile)); err == nil && l > 0 && l < unlimited && (!found || l < limit) {
			usage, _ := readInt(filepath.Join(dir, usageFile))
			cache := statValue(filepath.Join(dir, "memory.stat"), cacheKey)
			limit, free, found = l, max(l-max(usage-cache, 0), 0), true
		}
		if dir == top || len(dir) <= len(top) {
			return limit, free, found
		}
		dir = filepath.Dir(dir)
	}
}

// mount is a cgroup file system's mount: where it is mounted, and which
// folder of the hierarchy is mounted there.
type mount struct{ point, root string }

// cgroupMounts lists the cgroup2 mounts (v2) or the cgroup v1 mounts with
// the memory controller, from /proc/self/mountinfo's text.
func cgroupMounts(mountinfo string, v2 bool) []mount {
	var out []mount
	for _, line := range strings.Split(mountinfo, "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(g) < 3 {
			continue
		}
		switch {
		case v2 && g[0] == "cgroup2":
		case !v2 && g[0] == "cgroup" && containsWord(g[2], "memory"):
		default:
			continue
		}
		r := f[3]
		if r == "/" {
			r = ""
		}
		out = append(out, mount{point: f[4], root: r})
	}
	return out
}

func containsWord(list, w string) bool {
	for _, x := range strings.Split(list, ",") {
		if x == w {
			return true
		}
	}
	return false
}

// readInt reads a file holding one integer ("max" is an error: no limit).
func readInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	s := strings.TrimSpace(string(b))
	if s == "max" {
		return 0, errors.New("no limit")
	}
	return strconv.ParseInt(s, 10, 64)
}

// statValue is key's value in a memory.stat file (0 when absent).
func statValue(path, key string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, " "); ok && k == key {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// DuckDBSize renders n bytes in DuckDB's notation, in whole MiB
// ("1536MiB").
func DuckDBSize(n int64) string { return fmt.Sprintf("%dMiB", max(n>>20, 1)) }
