package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/internal/mysqltest"
	"github.com/reconcile-dev/reconcile/internal/pgtest"
)

// A sink written by a JVM in Asia/Shanghai holds zone-less timestamps; the
// source's carry offsets (UTC). With the sink's time_zone (the input's long
// form, or the spec's top-level time_zone in a record-level run) every
// value matches its instant; a naive tool, reading the wall-clock values as
// UTC, reports both rows as mismatched 8 hours apart (the same run without
// the zone, exit 1). Each kind that holds zone-less timestamps: CSV text
// declared TIMESTAMPTZ without an offset (before, read as UTC whatever the
// zone), Parquet TIMESTAMP (isAdjustedToUTC false), PostgreSQL timestamp
// without time zone and MySQL DATETIME. The evidence records the zone each
// input was read in (inputs[].time_zone).
func TestZoneLessTimestampsPerInput(t *testing.T) {
	dir := t.TempDir()
	source := writeFile(t, filepath.Join(dir, "source.csv"), "id,ts\n1,2024-03-01 02:00:00+00\n2,2024-03-01T10:30:00Z\n")
	wall := [][2]string{{"1", "2024-03-01 10:00:00"}, {"2", "2024-03-01 18:30:00"}}
	sinks := []struct {
		name string
		sink func(t *testing.T) string // the sink's long form without time_zone
	}{
		{"csv text declared TIMESTAMPTZ", func(t *testing.T) string {
			p := writeFile(t, filepath.Join(t.TempDir(), "sink.csv"), fmt.Sprintf("id,ts\n%s,%s\n%s,%s\n", wall[0][0], wall[0][1], wall[1][0], wall[1][1]))
			return fmt.Sprintf("{uri: %q, types: {ts: TIMESTAMPTZ}", p)
		}},
		{"parquet TIMESTAMP", func(t *testing.T) string {
			p := filepath.Join(t.TempDir(), "sink.parquet")
			db, err := duck.Open(context.Background(), t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if err := db.Exec(context.Background(), fmt.Sprintf("COPY (SELECT * FROM (VALUES ('%s', TIMESTAMP '%s'), ('%s', TIMESTAMP '%s')) AS v(id, ts)) TO '%s' (FORMAT parquet)",
				wall[0][0], wall[0][1], wall[1][0], wall[1][1], p)); err != nil {
				t.Fatal(err)
			}
			return fmt.Sprintf("{uri: %q", p)
		}},
		{"postgres timestamp", func(t *testing.T) string {
			schema, conn := pgtest.Schema(t)
			pgtest.Exec(t, conn, fmt.Sprintf("CREATE TABLE %[1]s.dialects_db_tz (id text, ts timestamp); INSERT INTO %[1]s.dialects_db_tz VALUES ('%s', '%s'), ('%s', '%s')",
				schema, wall[0][0], wall[0][1], wall[1][0], wall[1][1]))
			return fmt.Sprintf("{uri: %q", pgtest.TableURL(schema, "dialects_db_tz"))
		}},
		{"mysql DATETIME", func(t *testing.T) string {
			name, conn := mysqltest.Database(t)
			mysqltest.Exec(t, conn, fmt.Sprintf("CREATE TABLE dialects_db_tz (id VARCHAR(4), ts DATETIME); INSERT INTO dialects_db_tz VALUES ('%s', '%s'), ('%s', '%s')",
				wall[0][0], wall[0][1], wall[1][0], wall[1][1]))
			return fmt.Sprintf("{uri: %q", mysqltest.TableURL(t, name, "dialects_db_tz"))
		}},
	}
	for _, k := range sinks {
		t.Run(k.name, func(t *testing.T) {
			sink := k.sink(t)
			for _, v := range []struct {
				name, sink, top string
				want            exitCode
				mismatches      int
				zone            string
			}{
				{"input time_zone", sink + ", time_zone: Asia/Shanghai}", "", exitOK, 0, "Asia/Shanghai"},
				{"spec time_zone", sink + "}", "time_zone: Asia/Shanghai\n", exitOK, 0, "Asia/Shanghai"},
				{"input overrides spec", sink + ", time_zone: Asia/Shanghai}", "time_zone: Europe/Berlin\n", exitOK, 0, "Asia/Shanghai"},
				{"no zone (naive)", sink + "}", "", exitFailed, 2, "UTC"},
			} {
				t.Run(v.name, func(t *testing.T) {
					d := t.TempDir()
					spec := writeFile(t, filepath.Join(d, "spec.yaml"), fmt.Sprintf("source: {uri: %q, types: {ts: TIMESTAMPTZ}}\nsink: %s\nid: [id]\n%sout: ev\n", source, v.sink, v.top))
					code, stdout, stderr := runCLI(t, "run", "--config", spec, "--format", "json")
					if code != v.want {
						t.Fatalf("exit %d, want %d\n%s%s", code, v.want, stdout, stderr)
					}
					s := readTZSummary(t, filepath.Join(d, "ev"))
					for _, c := range s.Checks {
						if c.ID == "value_mismatches" && c.Exceptions != v.mismatches {
							t.Errorf("value_mismatches: %d, want %d", c.Exceptions, v.mismatches)
						}
					}
					if got := s.Inputs[1].TimeZone; got != v.zone {
						t.Errorf("inputs[1].time_zone %q, want %q", got, v.zone)
					}
				})
			}
		})
	}
}

type tzSummary struct {
	Checks []struct {
		ID         string `json:"id"`
		Exceptions int    `json:"exceptions"`
	} `json:"checks"`
	Inputs []struct {
		TimeZone string `json:"time_zone"`
	} `json:"inputs"`
}

func readTZSummary(t *testing.T, dir string) *tzSummary {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s tzSummary
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}
