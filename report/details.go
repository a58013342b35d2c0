package report

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// DetailRow is one fact of an input's details (evidence.Input.Details,
// which each source kind fills) in plain words: what it is, and its value
// as text (a list or a nested object on several lines).
type DetailRow struct {
	Label, Value string
}

// detailLabels name the details the bundled source kinds record, in the
// order they are shown: where the input was read, as whom, as of which
// snapshot, then what was read. A detail not named here is shown after
// them, its key in words (detailWords).
var detailLabels = []struct{ key, label string }{
	{"server", "Server"},
	{"host", "Host"},
	{"port", "Port"},
	{"socket", "Socket"},
	{"database", "Database"},
	{"user", "Read as user"},
	{"connect_user", "Connected as user"},
	{"server_version", "Server version"},
	{"in_recovery", "Server is a standby (in recovery)"},
	{"isolation", "Transaction isolation"},
	{"isolation_level", "Transaction isolation"},
	{"server_isolation_level", "Server's default isolation"},
	{"isolation_note", "About the isolation"},
	{"transaction_started_at", "Transaction started at"},
	{"snapshot", "Snapshot"},
	{"exported_snapshot", "Snapshot exported as (pg_export_snapshot)"},
	{"shared_snapshot", "Same snapshot as another input"},
	{"shared_snapshot_reason", "Snapshot sharing explained"},
	{"snapshot_shared_with", "Snapshot shared with"},
	{"snapshot_note", "About the snapshot"},
	{"wal_lsn", "WAL position (LSN) of the snapshot"},
	{"wal_lsn_function", "WAL position read with"},
	{"wal_lsn_unavailable", "No WAL position, because"},
	{"binlog_snapshot_file", "Binary log file of the snapshot"},
	{"binlog_snapshot_position", "Binary log position of the snapshot"},
	{"binlog_snapshot_unavailable", "No binary log position, because"},
	{"session_time_zone", "Session time zone"},
	{"row_security", "Row-level security"},
	{"table_type", "Table type"},
	{"table_engine", "Table engine"},
	{"zero_dates", "Zero dates (0000-00-00) read as"},
	{"zero_dates_read_as_null", "Zero dates read as NULL"},
	{"sql", "SQL read"},
	{"prescan_sql", "SQL of the pre-scan"},
	{"columns", "Columns read (name: database type → Arrow type)"},
}

// detailRows renders an input's details as rows in plain words: the
// details detailLabels names, in its order, then the others by key. A
// true or false is "yes" or "no"; a list of objects (PostgreSQL's and
// MySQL's columns) is one line per object, its name first; an object is
// one "key: value" line per key.
func detailRows(d map[string]any) []DetailRow {
	var out []DetailRow
	seen := map[string]bool{}
	for _, l := range detailLabels {
		v, ok := d[l.key]
		if !ok || seen[l.key] {
			continue
		}
		seen[l.key] = true
		out = append(out, DetailRow{Label: l.label, Value: detailValue(v)})
	}
	var rest []string
	for k := range d {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		out = append(out, DetailRow{Label: detailWords(k), Value: detailValue(d[k])})
	}
	return out
}

// detailWords turns a detail's key into words: "snapshot_timestamp" →
// "Snapshot timestamp", with the abbreviations in capitals (SQL, WAL, LSN,
// TLS, SASL, UTC).
func detailWords(key string) string {
	words := strings.Fields(strings.ReplaceAll(key, "_", " "))
	for i, w := range words {
		switch w {
		case "sql", "wal", "lsn", "tls", "sasl", "utc", "uri", "url":
			words[i] = strings.ToUpper(w)
		}
	}
	if len(words) == 0 {
		return key
	}
	return capitalize(strings.Join(words, " "))
}

// detailValue renders one detail's value as text. A value as a source
// kind recorded it in the run ([]map[string]string, an int) reads as the
// same value from summary.json: anything but the JSON types is turned
// into them first.
func detailValue(v any) string {
	switch v.(type) {
	case nil, bool, string, float64, []any, map[string]any:
	default:
		if data, err := json.Marshal(v); err == nil {
			var norm any
			if json.Unmarshal(data, &norm) == nil {
				v = norm
			}
		}
	}
	switch v := v.(type) {
	case nil:
		return "–"
	case bool:
		if v {
			return "yes"
		}
		return "no"
	case string:
		return v
	case []any:
		lines := make([]string, len(v))
		for i, e := range v {
			if m, ok := e.(map[string]any); ok {
				lines[i] = objectLine(m)
			} else {
				lines[i] = detailValue(e)
			}
		}
		return strings.Join(lines, "\n")
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		lines := make([]string, len(keys))
		for i, k := range keys {
			lines[i] = detailWords(k) + ": " + strings.ReplaceAll(detailValue(v[k]), "\n", "; ")
		}
		return strings.Join(lines, "\n")
	}
	return scalar(v)
}

// objectLine renders one object of a list on one line: a column
// ({"name", "pg_type", "arrow_type"}, or mysql_type) as "name: database
// type → arrow type", anything else as its name (if any) and then its
// other keys as "key value", comma-separated.
func objectLine(m map[string]any) string {
	name, hasName := m["name"]
	var dbType any
	for _, k := range []string{"pg_type", "mysql_type", "type"} {
		if t, ok := m[k]; ok {
			dbType = t
			break
		}
	}
	arrow, hasArrow := m["arrow_type"]
	if hasName && dbType != nil && len(m) <= 3 {
		line := fmt.Sprintf("%v: %s", name, detailValue(dbType))
		if hasArrow {
			line += " → " + detailValue(arrow)
		}
		return line
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if k != "name" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, strings.ToLower(detailWords(k))+" "+strings.ReplaceAll(detailValue(m[k]), "\n", "; "))
	}
	if hasName {
		return fmt.Sprintf("%v: %s", name, strings.Join(parts, ", "))
	}
	if len(parts) == 0 {
		b, _ := json.Marshal(m)
		return string(b)
	}
	return strings.Join(parts, ", ")
}
