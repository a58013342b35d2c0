package sources

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// options reads the kind-specific options of a Location and reports any it
// was not asked for.
type options struct {
	kind string
	m    map[string]any
	used map[string]bool
	errs []error
}

func newOptions(kind string, m map[string]any) *options {
	return &options{kind: kind, m: m, used: map[string]bool{"kind": true}}
}

func (o *options) get(key string) (any, bool) {
	o.used[key] = true
	v, ok := o.m[key]
	return v, ok && v != nil
}

func (o *options) String(key, def string) string {
	v, ok := o.get(key)
	if !ok {
		return def
	}
	s, isStr := v.(string)
	if !isStr {
		o.errs = append(o.errs, fmt.Errorf("option %s: want a string, got %v", key, v))
	}
	return s
}

func (o *options) Bool(key string, def bool) bool {
	v, ok := o.get(key)
	if !ok {
		return def
	}
	b, isBool := v.(bool)
	if !isBool {
		o.errs = append(o.errs, fmt.Errorf("option %s: want true or false, got %v", key, v))
	}
	return b
}

// Strings reads an option that is a list of text values (nil when absent).
func (o *options) Strings(key string) []string {
	v, ok := o.get(key)
	if !ok {
		return nil
	}
	list, isList := v.([]any)
	if !isList {
		o.errs = append(o.errs, fmt.Errorf("option %s: want a list such as [a, b], got %v", key, v))
		return nil
	}
	out := make([]string, 0, len(list))
	for _, x := range list {
		s, isStr := x.(string)
		if !isStr {
			o.errs = append(o.errs, fmt.Errorf("option %s: %v is not text", key, x))
			continue
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		o.errs = append(o.errs, fmt.Errorf("option %s: an empty list", key))
	}
	return out
}

// checkNames refuses column names that are empty, given twice (also ignoring
// case: DuckDB does not tell them apart) or reserved for provenance.
func checkNames(what string, names []string) error {
	seen := map[string]string{}
	for _, c := range names {
		switch {
		case c == "":
			return fmt.Errorf("%w: %s: a column has no name", ErrInvalidLocation, what)
		case seen[strings.ToLower(c)] == c:
			return fmt.Errorf("%w: %s: column %q is named twice", ErrInvalidLocation, what, c)
		case seen[strings.ToLower(c)] != "":
			return fmt.Errorf("%w: %s: columns %q and %q differ only in case; DuckDB, which runs the checks, does not tell them apart", ErrInvalidLocation, what, seen[strings.ToLower(c)], c)
		case c == FileColumn || c == LineColumn || c == RowColumn:
			return fmt.Errorf("%w: %s: column name %q is reserved for provenance", ErrInvalidLocation, what, c)
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
			return fmt.Errorf("%w: partition column %s has the name of the files' column %s; rename the partition key or the column", ErrInvalidLocation, p, c)
		}
	}
	return nil
}

// Types reads the `types:` option: a mapping of column name to a SQL type
// name (VARCHAR, BIGINT, DECIMAL(18,2), …), returned sorted by column name
// (Input.Declared).
func (o *options) Types() []Column {
	v, ok := o.get("types")
	if !ok {
		return nil
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		o.errs = append(o.errs, fmt.Errorf("option types: want a mapping of column: TYPE, got %v", v))
		return nil
	}
	cols := make([]string, 0, len(m))
	for col := range m {
		cols = append(cols, col)
	}
	sort.Strings(cols)
	var out []Column
	for _, col := range cols {
		s, isStr := m[col].(string)
		if !isStr || !typeName.MatchString(s) {
			o.errs = append(o.errs, fmt.Errorf("option types: column %s: %v is not a type name such as VARCHAR, BIGINT or DECIMAL(18,2)", col, m[col]))
			continue
		}
		out = append(out, Column{Name: col, Type: s})
	}
	return out
}

// typeName is the form of a type name the types: option accepts: a word
// (or words) with an optional (precision[, scale]).
var typeName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_ ]*(\(\s*\d+\s*(,\s*\d+\s*)?\))?$`)

// Err reports options that are malformed or not known to the kind.
func (o *options) Err() error {
	var unknown, known []string
	for k := range o.m {
		if !o.used[k] {
			unknown = append(unknown, k)
		}
	}
	for k := range o.used {
		known = append(known, k)
	}
	sort.Strings(unknown)
	sort.Strings(known)
	errs := o.errs
	if len(unknown) > 0 {
		errs = append(errs, fmt.Errorf("unknown option(s) %s for kind %s (it takes: uri, %s)", strings.Join(unknown, ", "), o.kind, strings.Join(known, ", ")))
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrInvalidLocation, errors.Join(errs...))
}
