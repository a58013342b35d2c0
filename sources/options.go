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
