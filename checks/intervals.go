package checks

import (
	"context"
	"fmt"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/queries"
)

// isInterval reports whether typ is DuckDB's INTERVAL.
func isInterval(typ string) bool {
	return strings.EqualFold(strings.TrimSpace(typ), "INTERVAL")
}

// intervalPair reports whether columns of these types are compared as
// intervals (MethodInterval): INTERVAL against INTERVAL or text.
func intervalPair(sourceType, sinkType string) bool {
	a, b := isInterval(sourceType), isInterval(sinkType)
	return (a && b) || (a && familyOf(sinkType) == famText) || (b && familyOf(sourceType) == famText)
}

// intervalFieldsText says how MethodInterval compares, for notes and
// messages.
const intervalFieldsText = "compared field by field (months, days, microseconds: a month is not 30 days, nor a day 24 hours)"

// intervalNote says how compared column cc, compared as intervals, was
// compared (prepareCompared).
func intervalNote(cc ComparedColumn, src, sink Operand) string {
	for _, o := range []struct {
		side string
		op   Operand
	}{{"source", src}, {"sink", sink}} {
		if o.op.Cast != "" {
			return fmt.Sprintf("column %s is %s in the source and %s in the sink: the %s's text read as INTERVAL (a plain duration), %s", cc.Name, cc.SourceType, cc.SinkType, o.side, intervalFieldsText)
		}
	}
	return fmt.Sprintf("column %s is INTERVAL in both inputs: %s", cc.Name, intervalFieldsText)
}

// intervalKeyConversion makes an id or group column compared as intervals
// (k.Method is MethodInterval) comparable across the inputs: each side
// becomes the text DuckDB renders its INTERVAL as (prepare/interval_key.sql:
// "1 month", "30 days", "720:00:00"), which differs whenever a field
// differs, so that ids match field by field — DuckDB's equality, GROUP BY
// and joins on the INTERVAL itself would take '1 month' for '30 days'. A
// text side is read as an INTERVAL first, every value checked to be a plain
// duration (checkReadable: ErrValue naming file, line and value).
func intervalKeyConversion(ctx context.Context, db *duck.DB, k KeyColumn, zones map[string]string) ([]string, map[string]conversion, error) {
	c := &Compared{ComparedColumn: ComparedColumn{Name: k.Name, SourceType: k.SourceType, SinkType: k.SinkType, Method: k.Method}}
	c.Source = operand(k.SourceType, k.SinkType, k.Method, zones[SourceTable])
	c.Sink = operand(k.SinkType, k.SourceType, k.Method, zones[SinkTable])
	if err := checkReadable(ctx, db, c); err != nil {
		return nil, nil, err
	}
	out := map[string]conversion{}
	for _, side := range []struct {
		table string
		op    Operand
	}{{SourceTable, c.Source}, {SinkTable, c.Sink}} {
		typed, err := prepareSQL.SQL(queries.PrepareIntervalKey, struct {
			Col  string
			Text bool
		}{k.Name, side.op.Cast != ""})
		if err != nil {
			return nil, nil, err
		}
		out[side.table] = conversion{Name: k.Name, Typed: typed}
	}
	read := ""
	if c.Source.Cast != "" || c.Sink.Cast != "" {
		read = " (text read as INTERVAL, a plain duration)"
	}
	note := fmt.Sprintf("column %s (matched) is %s in the source and %s in the sink%s: matched field by field (months, days, microseconds), as the text DuckDB renders each interval (1 month, 30 days, 720:00:00); rewritten as VARCHAR in both", k.Name, k.SourceType, k.SinkType, read)
	return []string{note}, out, nil
}
