package trinotest

import (
	"context"
	"slices"
	"testing"
)

// TestCluster: the cluster .ci/trino starts has a coordinator and at least
// one active worker, the four catalogs it configures, and a query runs on
// the worker (the coordinator schedules no task of its own).
func TestCluster(t *testing.T) {
	db := Connect(t)
	ctx := context.Background()
	rows, err := db.QueryContext(ctx, "SELECT node_id, coordinator, state FROM system.runtime.nodes ORDER BY node_id")
	if err != nil {
		t.Fatal(err)
	}
	var coordinators, workers int
	for rows.Next() {
		var id, state string
		var coord bool
		if err := rows.Scan(&id, &coord, &state); err != nil {
			t.Fatal(err)
		}
		if coord {
			coordinators++
		} else if state == "active" {
			workers++
		}
	}
	rows.Close()
	if coordinators != 1 || workers < 1 {
		t.Fatalf("%d coordinators and %d active workers, want 1 and at least 1", coordinators, workers)
	}
	var catalogs []string
	rows, err = db.QueryContext(ctx, "SELECT catalog_name FROM system.metadata.catalogs")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var c string
		rows.Scan(&c)
		catalogs = append(catalogs, c)
	}
	rows.Close()
	for _, want := range []string{"iceberg", "hive", "postgresql", "mysql"} {
		if !slices.Contains(catalogs, want) {
			t.Errorf("no catalog %s among %v", want, catalogs)
		}
	}
	schema, db := Schema(t, "iceberg")
	Exec(t, db, "CREATE TABLE iceberg."+schema+".t AS SELECT x FROM UNNEST(sequence(1, 1000)) AS u(x)")
	var sum int64
	if err := db.QueryRowContext(ctx, "SELECT sum(x) FROM iceberg."+schema+".t").Scan(&sum); err != nil {
		t.Fatal(err)
	}
	if sum != 500500 {
		t.Errorf("sum = %d, want 500500", sum)
	}
}
