package control_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reconcile-dev/reconcile/internal/control"
	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/mysqltest"
	"github.com/reconcile-dev/reconcile/internal/spec"
)

// A MariaDB TIME is a duration (loaded as an INTERVAL of hours, minutes and
// seconds): 720:00:00 is not the CSV text "1 month", nor 24:00:00 "1 day".
// DuckDB's INTERVAL equality took a month for 30 days and a day for 24
// hours, and the run passed (issue 30, item 2); compared field by field,
// both differ, and the comparison table says how.
func TestMariaDBTimeAgainstCalendarText(t *testing.T) {
	name, db := mysqltest.Database(t)
	mysqltest.Exec(t, db, "CREATE TABLE src (id VARCHAR(4), d TIME); INSERT INTO src VALUES ('1', '720:00:00'), ('2', '24:00:00'), ('3', '01:30:00')")
	dir := t.TempDir()
	writeFiles(t, dir, [][2]string{{"sink.csv", "id,d\n1,1 month\n2,1 day\n3,01:30:00\n"}})
	s := &spec.Spec{Source: spec.Input{URI: mysqltest.TableURL(t, name, "src")}, Sink: spec.Input{URI: "sink.csv"}, ID: []string{"id"}, Out: filepath.Join(dir, "ev"), Dir: dir}
	res, err := control.Run(context.Background(), s, control.Options{Formats: []string{"json"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := exceptionsOf(res, "value_mismatches"); got != 2 {
		t.Errorf("value_mismatches has %d exceptions, want 2 (720:00:00 against 1 month, 24:00:00 against 1 day)", got)
	}
	if res.Status != evidence.Fail {
		t.Errorf("status %s, want fail", res.Status)
	}
	if c := res.Comparison; c == nil || len(c.Compared) != 1 || c.Compared[0].Method != "interval" {
		t.Errorf("comparison %+v, want d compared as interval", c)
	}
	if !strings.Contains(strings.Join(res.Notes, "\n"), "the sink's text read as INTERVAL (a plain duration), compared field by field (months, days, microseconds") {
		t.Errorf("notes:\n%s", strings.Join(res.Notes, "\n"))
	}
}
