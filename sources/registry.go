package sources

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// The registry of kinds (Register, Kinds, Open, KindOf) and Redact, which
// every message naming a location goes through.
var (
	mu      sync.RWMutex
	openers = map[string]Opener{}
	aliases = map[string]string{}
)

// Register makes a kind available to Open under name and any aliases
// (URI schemes or extensions such as "postgresql" or "jsonl"). It panics
// if opener is nil or a name is registered twice, as database/sql.Register
// does.
func Register(name string, opener Opener, alias ...string) {
	mu.Lock()
	defer mu.Unlock()
	if opener == nil {
		panic("sources: Register opener is nil")
	}
	if _, dup := openers[name]; dup {
		panic("sources: Register called twice for kind " + name)
	}
	openers[name] = opener
	for _, a := range alias {
		if _, dup := aliases[a]; dup {
			panic("sources: Register called twice for alias " + a)
		}
		aliases[a] = name
	}
}

// Kinds returns the sorted names of the registered kinds.
func Kinds() []string {
	mu.RLock()
	defer mu.RUnlock()
	var ks []string
	for k := range openers {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func lookup(name string) (string, Opener, bool) {
	mu.RLock()
	defer mu.RUnlock()
	name = strings.ToLower(name)
	if a, ok := aliases[name]; ok {
		name = a
	}
	o, ok := openers[name]
	return name, o, ok
}

// Open chooses the kind of loc (see the package doc) and returns its Source.
// It does no I/O. Errors wrap ErrUnknownKind (the message lists Kinds()) or
// ErrInvalidLocation.
func Open(loc Location) (Source, error) {
	if strings.TrimSpace(loc.URI) == "" {
		return nil, fmt.Errorf("%s: %w: no URI given", loc.Role, ErrInvalidLocation)
	}
	kind, rest := KindOf(loc)
	name, opener, ok := lookup(kind)
	if !ok {
		return nil, fmt.Errorf("%s %q: %w %q (known kinds: %s; a kind is taken from the kind: option, a scheme, a kind: prefix or the file extension)%s",
			loc.Role, Redact(loc.URI), ErrUnknownKind, kind, strings.Join(Kinds(), ", "), noKindHint(loc, kind))
	}
	loc.URI = rest
	src, err := opener(loc)
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", loc.Role, name, err)
	}
	return src, nil
}

// noKindHint says, for a location with no kind at all, what the path is:
// a folder (whose kind is never guessed from the files in it) or nothing
// at all. It is the one look at the file system Open makes, and only once
// the location has already been refused.
func noKindHint(loc Location, kind string) string {
	if kind != "" || strings.ContainsAny(loc.URI, "*?[") {
		return ""
	}
	path := loc.URI
	if !filepath.IsAbs(path) && loc.BaseDir != "" {
		path = filepath.Join(loc.BaseDir, path)
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("; and there is no file or folder %s", loc.URI)
	case err == nil && fi.IsDir():
		return fmt.Sprintf("; %s is a folder, and a folder's kind is not guessed from its files: give kind: csv (or parquet, ndjson) or a prefix such as csv:%s", loc.URI, loc.URI)
	}
	return ""
}

// KindOf returns the kind name a location asks for and the URI left once a
// "kind:" prefix is removed. Scheme URIs ("postgres://…") are returned
// whole.
func KindOf(loc Location) (kind, uri string) {
	if k, ok := loc.Options["kind"].(string); ok && k != "" {
		return k, loc.URI
	}
	if i := strings.Index(loc.URI, "://"); i > 0 {
		return loc.URI[:i], loc.URI
	}
	if i := strings.IndexByte(loc.URI, ':'); i > 1 {
		if _, _, ok := lookup(loc.URI[:i]); ok {
			return loc.URI[:i], loc.URI[i+1:]
		}
	}
	base := strings.ToLower(filepath.Base(loc.URI))
	for _, c := range []string{".gz", ".zst"} {
		base = strings.TrimSuffix(base, c)
	}
	ext := strings.TrimPrefix(filepath.Ext(base), ".")
	return ext, loc.URI
}

// Redact removes a password from a URI-like string ("postgres://u:secret@h"
// becomes "postgres://u:xxxxx@h", and a "password=" parameter is masked).
// Inputs are echoed only through Redact.
func Redact(uri string) string {
	out := uri
	if i := strings.Index(out, "://"); i >= 0 {
		rest := out[i+3:]
		end := strings.IndexAny(rest, "/?")
		if end < 0 {
			end = len(rest)
		}
		hostPart := rest[:end]
		if at := strings.LastIndexByte(hostPart, '@'); at >= 0 {
			userInfo := hostPart[:at]
			if c := strings.IndexByte(userInfo, ':'); c >= 0 {
				userInfo = userInfo[:c] + ":xxxxx"
			}
			out = out[:i+3] + userInfo + hostPart[at:] + rest[end:]
		}
	}
	// A key=value connection string or URI parameter: password=… up to the
	// next & or space.
	const key = "password="
	for start := 0; ; {
		j := strings.Index(strings.ToLower(out[start:]), key)
		if j < 0 {
			break
		}
		j += start + len(key)
		k := j
		for k < len(out) && out[k] != '&' && out[k] != ' ' {
			k++
		}
		out = out[:j] + "xxxxx" + out[k:]
		start = j + len("xxxxx")
	}
	return out
}
