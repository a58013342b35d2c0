package file

import (
	"fmt"
	"strings"

	"github.com/reconcile-dev/reconcile/sources"
)

// checkNames refuses column names that are empty, given twice (also ignoring
// case: DuckDB does not tell them apart) or reserved for provenance.
func checkNames(what string, names []string) error {
	seen := map[string]string{}
	for _, c := range names {
		switch {
		case c == "":
			return fmt.Errorf("%w: %s: a column has no name", sources.ErrInvalidLocation, what)
		case seen[strings.ToLower(c)] == c:
			return fmt.Errorf("%w: %s: column %q is named twice", sources.ErrInvalidLocation, what, c)
		case seen[strings.ToLower(c)] != "":
			return fmt.Errorf("%w: %s: columns %q and %q differ only in case; DuckDB, which runs the checks, does not tell them apart", sources.ErrInvalidLocation, what, seen[strings.ToLower(c)], c)
		case c == sources.FileColumn || c == sources.LineColumn || c == sources.RowColumn:
			return fmt.Errorf("%w: %s: column name %q is reserved for provenance", sources.ErrInvalidLocation, what, c)
		}
		seen[strings.ToLower(c)] = c
	}
	return nil
}

// checkPartitionNames refuses a partition column with the name of one of
// the files' own columns.
func checkPartitionNames(cols, parts []string) error {
	have := map[string]string{}
	for _, c := range cols {
		have[strings.ToLower(c)] = c
	}
	for _, p := range parts {
		if c, ok := have[strings.ToLower(p)]; ok {
			return fmt.Errorf("%w: partition column %s has the name of the files' column %s; rename the partition key or the column", sources.ErrInvalidLocation, p, c)
		}
	}
	return nil
}
