package checks

import (
	"fmt"

	"github.com/reconcile-dev/reconcile/internal/sqlfile"
)

// Params are the columns a check template sees, after Prepare. The tables
// are always named source and sink and carry the provenance columns of
// package sources (__file, __line, __row).
type Params struct {
	// ID are the record id columns, in both tables, in spec order.
	ID []string
	// Measures are the exact-decimal columns, in both tables.
	Measures []string
	// GroupBy are the grouping columns for the balances, in both tables.
	GroupBy []string
	// Checkpoint is the sink column holding the checkpoint id ("" if none).
	Checkpoint string
	// LogicalKey are the sink's deterministic output key columns.
	LogicalKey []string
	// SourceValueCols and SinkValueCols are the columns whose values decide
	// whether two rows of one id "conflict": the measures if any were given,
	// otherwise every column but the id, the checkpoint and provenance.
	SourceValueCols []string
	SinkValueCols   []string
	// MeasureTypes maps each measure to its DuckDB type, DECIMAL(38,s),
	// with s the largest scale either input needs.
	MeasureTypes map[string]string
	// Replay describes a windowed sink re-performed from the source (nil
	// unless the spec has reperform:); see PrepareReplay for its tables.
	Replay *Replay
}

// funcs are the template helpers available to check files: those of
// package sqlfile (q, lit, cols, match, differ, nullid, valuekey, loc,
// coalesced, name, cpid, sortedlist, replaykey, replaygroup, replaymatch)
// and the replay helpers added in reperform.go.
var funcs = sqlfile.Funcs()

func qual(alias, name string) string { return sqlfile.Qual(alias, name) }

// dec returns the template function that gives a measure's exact type.
func (p *Params) Dec(measure string) (string, error) {
	t, ok := p.MeasureTypes[measure]
	if !ok {
		return "", fmt.Errorf("no type for measure %s", measure)
	}
	return t, nil
}

// nullID renders the condition that every id part of alias is NULL or
// empty text.
func nullID(alias string, names []string) string { return sqlfile.NullID(alias, names) }
