package spec

import (
	"fmt"
	"sort"
	"strings"
)

// renameOf reads the value of a rename: key: a mapping of the input's
// column names to the control's names, each a non-empty text, or the
// flag's text form "abalance:delta,bid:branch" (see ParseRename).
func renameOf(v any) (map[string]string, error) {
	if text, isText := v.(string); isText {
		return renamePairs(text)
	}
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		return nil, fmt.Errorf("rename: want a mapping of the input's column: the control's name, such as {txn_id: entry_id, amt: amount}, got %v", v)
	}
	out := make(map[string]string, len(m))
	for from, to := range m {
		ts, isStr := to.(string)
		if !isStr {
			return nil, fmt.Errorf("rename: column %s: want the control's name for it (text), got %v", from, to)
		}
		out[from] = ts
	}
	return out, nil
}

// ParseRename reads the flag form of rename: (--sink-option
// rename=txn_id:entry_id,amt:amount): comma-separated pairs of the input's
// name, a colon, the control's name. Errors wrap ErrInvalid.
func ParseRename(v string) (map[string]string, error) {
	out, err := renamePairs(v)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return out, nil
}

// renamePairs is ParseRename without the ErrInvalid wrapping (a spec
// file's rename: "txn_id:entry_id" is wrapped where the file is parsed).
func renamePairs(v string) (map[string]string, error) {
	out := map[string]string{}
	for _, pair := range strings.Split(v, ",") {
		from, to, ok := strings.Cut(pair, ":")
		from, to = strings.TrimSpace(from), strings.TrimSpace(to)
		if !ok || from == "" || to == "" {
			return nil, fmt.Errorf("rename=%s: want the input's name:the control's name, comma-separated (rename=txn_id:entry_id,amt:amount)", v)
		}
		if _, dup := out[from]; dup {
			return nil, fmt.Errorf("rename=%s: column %s renamed twice", v, from)
		}
		out[from] = to
	}
	return out, nil
}

// RenamePairs returns rename's pairs sorted by the input's name, as
// "from → to" texts for messages and reports.
func RenamePairs(rename map[string]string) [][2]string {
	froms := make([]string, 0, len(rename))
	for f := range rename {
		froms = append(froms, f)
	}
	sort.Strings(froms)
	out := make([][2]string, len(froms))
	for i, f := range froms {
		out[i] = [2]string{f, rename[f]}
	}
	return out
}

// validateRename checks one input's rename: (field is "source.rename" or
// "sink.rename") on its own: names are non-empty, a name is not renamed to
// itself, no two columns get one name, and no name is both renamed and a
// rename's target (a chain or a swap would make every other field of the
// spec ambiguous). Whether the input has the columns is checked against
// the input (internal/control, before any row is read where the kind can
// tell its columns).
func validateRename(field string, rename map[string]string) []string {
	var errs []string
	target := map[string]string{}
	for _, p := range RenamePairs(rename) {
		from, to := p[0], p[1]
		switch {
		case from == "" || to == "":
			errs = append(errs, field+": an empty column name")
			continue
		case from == to:
			errs = append(errs, fmt.Sprintf("%s: column %s is renamed to itself", field, from))
			continue
		case strings.HasPrefix(to, "__"):
			errs = append(errs, fmt.Sprintf("%s: %s: names starting with __ are reserved for provenance", field, to))
		}
		if other, ok := target[strings.ToLower(to)]; ok {
			errs = append(errs, fmt.Sprintf("%s: columns %s and %s are both renamed to %s", field, other, from, to))
		}
		target[strings.ToLower(to)] = from
	}
	for _, p := range RenamePairs(rename) {
		if other, ok := target[strings.ToLower(p[0])]; ok && p[0] != "" {
			errs = append(errs, fmt.Sprintf("%s: %s is both renamed (to %s) and the new name of %s; rename each column once, onto a name the input does not have", field, p[0], p[1], other))
		}
	}
	return errs
}
