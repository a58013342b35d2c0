package memory

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"testing"
)

// fakeRoot lays out files (path relative to the root → content) in a
// folder that Machine reads as "/".
func fakeRoot(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const gib = int64(1) << 30

func meminfo(availKB int64) string {
	return "MemTotal:       24000000 kB\nMemFree:        1000000 kB\nMemAvailable:   " + itoa(availKB) + " kB\n"
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

const v2Mount = "30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n"

func TestMachine(t *testing.T) {
	for _, tc := range []struct {
		name       string
		files      map[string]string
		wantSource string
		wantAvail  int64
		wantCgroup int64
	}{{
		// No cgroup files at all: the host's MemAvailable.
		name:       "meminfo",
		files:      map[string]string{"proc/meminfo": meminfo(8 * 1024 * 1024)},
		wantSource: SourceMeminfo, wantAvail: 8 * gib,
	}, {
		// A container limited to 4 GiB, 1.5 GiB used of which 0.5 GiB is
		// inactive page cache: 3 GiB free, less than the host's 8 GiB. A
		// tool that reads MemAvailable alone would take 4 GiB and be killed.
		name: "cgroup v2 limit",
		files: map[string]string{
			"proc/meminfo":                     meminfo(8 * 1024 * 1024),
			"proc/self/cgroup":                 "0::/job\n",
			"proc/self/mountinfo":              v2Mount,
			"sys/fs/cgroup/job/memory.max":     itoa(4*gib) + "\n",
			"sys/fs/cgroup/job/memory.current": itoa(3*gib/2) + "\n",
			"sys/fs/cgroup/job/memory.stat":    "anon 1073741824\nfile 536870912\ninactive_file " + itoa(gib/2) + "\n",
			"sys/fs/cgroup/memory.max":         "max\n",
		},
		wantSource: SourceCgroupV2, wantAvail: 3 * gib, wantCgroup: 4 * gib,
	}, {
		// The process's own cgroup says max; its parent is limited to 2 GiB.
		name: "cgroup v2 parent limit",
		files: map[string]string{
			"proc/meminfo":                       meminfo(8 * 1024 * 1024),
			"proc/self/cgroup":                   "0::/slice/job\n",
			"proc/self/mountinfo":                v2Mount,
			"sys/fs/cgroup/slice/job/memory.max": "max\n",
			"sys/fs/cgroup/slice/memory.max":     itoa(2*gib) + "\n",
			"sys/fs/cgroup/slice/memory.current": itoa(gib/2) + "\n",
		},
		wantSource: SourceCgroupV2, wantAvail: 3 * gib / 2, wantCgroup: 2 * gib,
	}, {
		// A cgroup limit above what the host has available: the host's
		// figure is what is actually available.
		name: "cgroup v2 limit above the host's",
		files: map[string]string{
			"proc/meminfo":                     meminfo(1024 * 1024),
			"proc/self/cgroup":                 "0::/job\n",
			"proc/self/mountinfo":              v2Mount,
			"sys/fs/cgroup/job/memory.max":     itoa(16*gib) + "\n",
			"sys/fs/cgroup/job/memory.current": "0\n",
		},
		wantSource: SourceMeminfo, wantAvail: gib, wantCgroup: 16 * gib,
	}, {
		// cgroup v1, mounted in a container at the hierarchy's /docker/abc.
		name: "cgroup v1 limit",
		files: map[string]string{
			"proc/meminfo":        meminfo(8 * 1024 * 1024),
			"proc/self/cgroup":    "12:pids:/docker/abc\n4:memory:/docker/abc\n0::/\n",
			"proc/self/mountinfo": "40 30 0:35 /docker/abc /sys/fs/cgroup/memory ro - cgroup cgroup rw,memory\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes": itoa(2*gib) + "\n",
			"sys/fs/cgroup/memory/memory.usage_in_bytes": itoa(gib) + "\n",
			"sys/fs/cgroup/memory/memory.stat":           "cache 100\ntotal_inactive_file " + itoa(gib/4) + "\n",
		},
		wantSource: SourceCgroupV1, wantAvail: 5 * gib / 4, wantCgroup: 2 * gib,
	}, {
		// This machine's layout: a hybrid hierarchy, v1's memory cgroup
		// unlimited (PAGE_COUNTER_MAX), v2 without the memory controller.
		name: "cgroup v1 unlimited, hybrid",
		files: map[string]string{
			"proc/meminfo":        meminfo(20 * 1024 * 1024),
			"proc/self/cgroup":    "4:memory:/process_api/b8\n0::/\n",
			"proc/self/mountinfo": "25 24 0:22 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n28 24 0:25 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n",
			"sys/fs/cgroup/memory/process_api/b8/memory.limit_in_bytes": "9223372036854771712\n",
			"sys/fs/cgroup/memory/memory.limit_in_bytes":                "9223372036854771712\n",
			"sys/fs/cgroup/unified/cgroup.procs":                        "",
		},
		wantSource: SourceMeminfo, wantAvail: 20 * gib,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Machine(fakeRoot(t, tc.files))
			if err != nil {
				t.Fatal(err)
			}
			if b.Source != tc.wantSource || b.Available != tc.wantAvail || b.CgroupLimit != tc.wantCgroup {
				t.Errorf("got source %q available %d cgroup %d, want %q %d %d", b.Source, b.Available, b.CgroupLimit, tc.wantSource, tc.wantAvail, tc.wantCgroup)
			}
			if want := int64(float64(tc.wantAvail) * MachineShare); b.Bytes != want {
				t.Errorf("budget %d, want %d", b.Bytes, want)
			}
			if b.DuckDB+b.Go >= b.Bytes || b.DuckDB <= 0 {
				t.Errorf("shares DuckDB %d + Go %d of budget %d", b.DuckDB, b.Go, b.Bytes)
			}
		})
	}
}

func TestMachineWithoutMeminfo(t *testing.T) {
	if _, err := Machine(t.TempDir()); err == nil {
		t.Fatal("no error without /proc/meminfo")
	}
}

func TestFromFlag(t *testing.T) {
	for in, want := range map[string]int64{"512MB": 512e6, "4GB": 4e9, "4GiB": 4 << 30, "1.5GB": 15e8, "100 MiB": 100 << 20} {
		b, err := FromFlag(in)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if b.Bytes != want || b.Source != SourceFlag {
			t.Errorf("%s: %d %s, want %d", in, b.Bytes, b.Source, want)
		}
		if b.DuckDB != int64(float64(want)*DuckDBShare) {
			t.Errorf("%s: DuckDB %d", in, b.DuckDB)
		}
	}
	for _, bad := range []string{"", "4", "4G", "lots", "-1GB", "1e3MB"} {
		if _, err := FromFlag(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestDuckDBSize(t *testing.T) {
	if got := DuckDBSize(3 << 30); got != "3072MiB" {
		t.Errorf("got %s", got)
	}
}

// Apply sets the Go heap's soft limit and GCPercent for a run and its
// restore puts both back; a GOGC the environment sets is kept.
func TestApply(t *testing.T) {
	limit, percent := debug.SetMemoryLimit(-1), debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)
	b := Budget{Bytes: 4 << 30}.split()
	for _, env := range []string{"", "150"} {
		t.Setenv("GOGC", env)
		restore := b.Apply()
		gotLimit, gotPercent := debug.SetMemoryLimit(-1), debug.SetGCPercent(-1)
		debug.SetGCPercent(gotPercent)
		want := GCPercent
		if env != "" {
			want = percent
		}
		if gotLimit != b.Go || gotPercent != want {
			t.Errorf("GOGC=%q: limit %d, percent %d; want %d, %d", env, gotLimit, gotPercent, b.Go, want)
		}
		restore()
		if l, p := debug.SetMemoryLimit(-1), debug.SetGCPercent(-1); l != limit || p != percent {
			t.Errorf("GOGC=%q: restored limit %d, percent %d; want %d, %d", env, l, p, limit, percent)
		}
		debug.SetGCPercent(percent)
	}
}

// TestRemote: a run on a distributed engine caps DuckDB and the Go heap at
// RemoteDuckDB and RemoteGo (a smaller budget's shares stay smaller) and
// Apply sets RemoteGCPercent; the budget itself is unchanged.
func TestRemote(t *testing.T) {
	big := Budget{Bytes: 8 << 30, Source: SourceMeminfo, Available: 16 << 30}.split()
	r := big.Remote()
	if r.DuckDB != RemoteDuckDB || r.Go != RemoteGo || r.Bytes != big.Bytes || r.Source != big.Source || r.Available != big.Available {
		t.Errorf("Remote of %+v = %+v", big, r)
	}
	small := Budget{Bytes: 100 << 20}.split()
	if r := small.Remote(); r.DuckDB != small.DuckDB || r.Go != small.Go {
		t.Errorf("Remote of %+v = %+v: want its own shares, below the caps", small, r)
	}
	limit, percent := debug.SetMemoryLimit(-1), debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)
	t.Setenv("GOGC", "")
	restore := r.Apply()
	gotLimit, gotPercent := debug.SetMemoryLimit(-1), debug.SetGCPercent(-1)
	debug.SetGCPercent(gotPercent)
	restore()
	if gotLimit != RemoteGo || gotPercent != RemoteGCPercent {
		t.Errorf("Apply: limit %d, percent %d; want %d, %d", gotLimit, gotPercent, int64(RemoteGo), RemoteGCPercent)
	}
	if l, p := debug.SetMemoryLimit(-1), debug.SetGCPercent(-1); l != limit || p != percent {
		t.Errorf("restored limit %d, percent %d; want %d, %d", l, p, limit, percent)
	}
	debug.SetGCPercent(percent)
}
