package mysql

import (
	"strings"
	"testing"
)

// The read-back of the pinned session variables refuses what a real test
// cannot make without changing the shared server's GLOBAL values: a
// system_versioning_asof that SET … = DEFAULT took from a GLOBAL time, and
// a sql_select_limit that did not stay at its maximum.
func TestMyCheckRowsRead(t *testing.T) {
	tests := []struct {
		name     string
		settings map[string]string
		wantErr  string // "" for none
	}{
		{"MariaDB pinned", map[string]string{"sql_select_limit": myMaxSelectLimit, "system_versioning_asof": "DEFAULT"}, ""},
		{"MySQL pinned (no system_versioning_asof)", map[string]string{"sql_select_limit": myMaxSelectLimit}, ""},
		{"GLOBAL system_versioning_asof a time", map[string]string{"sql_select_limit": myMaxSelectLimit, "system_versioning_asof": "2026-01-01 00:00:00.000000"}, `system_versioning_asof is "2026-01-01 00:00:00.000000"`},
		{"sql_select_limit cut", map[string]string{"sql_select_limit": "3", "system_versioning_asof": "DEFAULT"}, `sql_select_limit is "3"`},
		{"sql_select_limit missing", map[string]string{}, `sql_select_limit is ""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := myCheckRowsRead(tt.settings)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("err = %v, want none", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "refused")):
				t.Errorf("err = %v, want a refusal saying %s", err, tt.wantErr)
			}
		})
	}
}
