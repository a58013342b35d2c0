package load

import (
	"context"

	"github.com/reconcile-dev/reconcile/internal/duck"
	"github.com/reconcile-dev/reconcile/sources"
)

// Declare applies declared types to a loaded table as a load does (for
// tests of typed columns no text kind yields).
func Declare(ctx context.Context, db *duck.DB, table, role string, declared []sources.Column, zone string) error {
	return applyDeclared(ctx, db, table, role, declared, sources.ValueFormats{}, nil, zone, refusal{})
}

// ParquetOnePass is parquetOnePass, for TestParquetOnePass.
var ParquetOnePass = parquetOnePass
