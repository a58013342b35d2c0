package spec

import (
	"fmt"
	"maps"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// RunDate is the built-in parameter ${run_date}: the UTC date the run
// started, as YYYY-MM-DD.
const RunDate = "run_date"

// envPrefix marks a parameter read from the environment: ${env:NAME}.
const envPrefix = "env:"

// EnvValue is what the evidence records as the value of an ${env:NAME}
// parameter: the environment may hold secrets, so its values are never
// written (the strings they went into are, with passwords removed).
const EnvValue = "(from the environment; not recorded)"

// paramName is a parameter name: a letter or underscore, then letters,
// digits and underscores (as a shell variable).
var paramName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Params are the values of a spec's placeholders. Every string of a spec —
// input URIs and globs, query:, options, out, name, restarts, history,
// column names — may hold:
//
//	${name}       a parameter given with --param name=VALUE
//	${run_date}   built in: the UTC date of the run (YYYY-MM-DD)
//	${env:NAME}   the environment variable NAME
//	$${           a literal "${"
//
// An unknown or unset parameter, or a "${" that does not close, is a spec
// error (ErrInvalid, exit 2) naming the field and the parameter; so is a
// --param that no spec of the run uses (Unused). Values are inserted as
// text, as they are: a parameter never turns a string into a number, a
// list or a mapping. Durations (reperform.window) take no parameters.
//
// A Params is shared by the controls of one run (a suite), and remembers
// which parameters were used.
type Params struct {
	given   map[string]string
	runDate string
	getenv  func(string) (string, bool)
	used    map[string]bool
}

// NewParams returns the parameters given (name → value, from --param) with
// ${run_date} set to the UTC date of now. A name that is not a parameter
// name, or run_date itself, is an ErrInvalid error.
func NewParams(given map[string]string, now time.Time) (*Params, error) {
	p := &Params{given: map[string]string{}, runDate: now.UTC().Format(time.DateOnly), getenv: os.LookupEnv, used: map[string]bool{}}
	var errs []string
	for _, name := range slices.Sorted(maps.Keys(given)) {
		switch {
		case !paramName.MatchString(name):
			errs = append(errs, fmt.Sprintf("parameter name %q: want letters, digits and _ (such as day)", name))
		case name == RunDate:
			errs = append(errs, "parameter run_date is built in (the UTC date of the run) and cannot be given; name yours differently, such as day")
		default:
			p.given[name] = given[name]
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: %s", ErrInvalid, strings.Join(errs, "; "))
	}
	return p, nil
}

// ParseParam splits one --param value NAME=VALUE (VALUE may be empty and
// may hold "=").
func ParseParam(kv string) (name, value string, err error) {
	name, value, ok := strings.Cut(kv, "=")
	if !ok || name == "" {
		return "", "", fmt.Errorf("%w: --param %q: want NAME=VALUE, such as day=2026-11-30", ErrInvalid, kv)
	}
	return name, value, nil
}

// Unused lists, sorted, the parameters given that no expansion used: a
// --param that no spec of the run mentions would otherwise change nothing,
// silently (a typo, or a spec that reads the same files every night).
func (p *Params) Unused() []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(p.given)) {
		if !p.used[name] {
			out = append(out, name)
		}
	}
	return out
}

// expand replaces the placeholders of v, the value of field, and records
// each parameter used in rec (name → value as the evidence states it).
func (p *Params) expand(field, v string, rec map[string]string) (string, error) {
	if !strings.Contains(v, "$") {
		return v, nil
	}
	var b strings.Builder
	var errs []string
	for i := 0; i < len(v); {
		switch {
		case strings.HasPrefix(v[i:], "$${"):
			b.WriteString("${")
			i += 3
		case strings.HasPrefix(v[i:], "${"):
			end := strings.IndexByte(v[i:], '}')
			if end < 0 {
				return "", fmt.Errorf("%s: %q: ${ without a closing } (write $${ for a literal ${)", field, v)
			}
			ref := v[i+2 : i+end]
			val, err := p.lookup(ref, rec)
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s: %v", field, err))
			}
			b.WriteString(val)
			i += end + 1
		default:
			b.WriteByte(v[i])
			i++
		}
	}
	if len(errs) > 0 {
		return "", fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return b.String(), nil
}

// lookup is the value of the placeholder ${ref}.
func (p *Params) lookup(ref string, rec map[string]string) (string, error) {
	if env, ok := strings.CutPrefix(ref, envPrefix); ok {
		if !paramName.MatchString(env) {
			return "", fmt.Errorf("${%s}: %q is not an environment variable name", ref, env)
		}
		val, set := p.getenv(env)
		if !set {
			return "", fmt.Errorf("${%s}: environment variable %s is not set", ref, env)
		}
		rec[ref] = EnvValue
		return val, nil
	}
	if !paramName.MatchString(ref) {
		return "", fmt.Errorf("${%s}: not a parameter name (want ${name}, ${run_date} or ${env:NAME})", ref)
	}
	if ref == RunDate {
		rec[ref] = p.runDate
		return p.runDate, nil
	}
	val, ok := p.given[ref]
	if !ok {
		known := append(slices.Sorted(maps.Keys(p.given)), RunDate)
		sort.Strings(known)
		return "", fmt.Errorf("${%s}: unknown parameter %s: give --param %s=VALUE (known: %s)", ref, ref, ref, strings.Join(known, ", "))
	}
	p.used[ref] = true
	rec[ref] = val
	return val, nil
}

// Expand replaces the placeholders of every string of s (see Params) and
// records the parameters used in s.Params. Fields that are not YAML keys
// (Dir, File) are left alone. Errors wrap ErrInvalid and name every field
// and parameter at fault, in the spec's field order.
func (s *Spec) Expand(p *Params) error {
	if p == nil {
		var err error
		if p, err = NewParams(nil, time.Now()); err != nil {
			return err
		}
	}
	if s.Params == nil {
		s.Params = map[string]string{}
	}
	var errs []string
	walkStrings(reflect.ValueOf(s).Elem(), "", func(field string, v string) string {
		out, err := p.expand(field, v, s.Params)
		if err != nil {
			errs = append(errs, err.Error())
			return v
		}
		return out
	})
	if len(s.Params) == 0 {
		s.Params = nil
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %s", ErrInvalid, strings.Join(errs, "; "))
	}
	return nil
}

// ExpandValue replaces the placeholders of one value given outside the
// spec file (a flag of reconcile run) for the field it sets, recording the
// parameters used in s.Params.
func (s *Spec) ExpandValue(p *Params, field, v string) (string, error) {
	if s.Params == nil {
		s.Params = map[string]string{}
	}
	out, err := p.expand(field, v, s.Params)
	if len(s.Params) == 0 {
		s.Params = nil
	}
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return out, nil
}

// walkStrings calls fn for every settable string reachable from v (struct
// fields, pointers, slices, map values, interfaces holding strings) and
// stores what fn returns. path names the field as a spec file does
// (source.uri, id[0], source.options.query). Struct fields tagged yaml:"-"
// are skipped, and so are map keys. Map entries are visited in key order.
func walkStrings(v reflect.Value, path string, fn func(string, string) string) {
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			v.SetString(fn(path, v.String()))
		}
	case reflect.Pointer:
		if !v.IsNil() {
			walkStrings(v.Elem(), path, fn)
		}
	case reflect.Interface:
		// What an interface holds is not settable: expand a copy and
		// store it back.
		if v.IsNil() {
			return
		}
		inner := reflect.New(v.Elem().Type()).Elem()
		inner.Set(v.Elem())
		walkStrings(inner, path, fn)
		if v.CanSet() {
			v.Set(inner)
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name := strings.Split(f.Tag.Get("yaml"), ",")[0]
			if name == "-" {
				continue
			}
			if name == "" {
				name = strings.Split(f.Tag.Get("json"), ",")[0]
			}
			if name == "" || name == "-" {
				name = strings.ToLower(f.Name)
			}
			walkStrings(v.Field(i), join(path, name), fn)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			walkStrings(v.Index(i), fmt.Sprintf("%s[%d]", path, i), fn)
		}
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return
		}
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		for _, k := range keys {
			e := v.MapIndex(k)
			// Map values are not addressable: expand a copy and store it.
			c := reflect.New(e.Type()).Elem()
			c.Set(e)
			walkStrings(c, join(path, k.String()), fn)
			v.SetMapIndex(k, c)
		}
	}
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
