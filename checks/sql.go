package checks

import (
	"context"
	"fmt"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/queries"
)

// exec renders statement id of set for data and runs it.
func exec(ctx context.Context, db *duck.DB, set *queries.Set, id string, data any) error {
	q, err := set.SQL(id, data)
	if err != nil {
		return err
	}
	return db.Exec(ctx, q)
}

// count renders statement id of set, which returns one BIGINT, and runs it.
func count(ctx context.Context, db *duck.DB, set *queries.Set, id string, data any) (int64, error) {
	q, err := set.SQL(id, data)
	if err != nil {
		return 0, err
	}
	return db.Count(ctx, q)
}

// rows renders statement id of set and returns its rows as text (see
// duck.DB.Strings).
func rows(ctx context.Context, db *duck.DB, set *queries.Set, id string, data any) ([]string, [][]*string, error) {
	q, err := set.SQL(id, data)
	if err != nil {
		return nil, nil, err
	}
	return db.Strings(ctx, q)
}

// decimalType names DuckDB's exact decimal type of precision p and scale s.
func decimalType(p, s int) string { return fmt.Sprintf("DECIMAL(%d,%d)", p, s) }
