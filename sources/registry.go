package sources

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
)

// The registry of kinds (Register, RegisterFileKind, Kinds, Aliases, Open,
// KindOf, and SetLister for the kind of a folder read from its files) and
// Redact, which every message naming a location goes through.
var (
	mu      sync.RWMutex
	openers = map[string]Opener{}
	aliases = map[string]string{}
	// fileKinds are the kinds that read files (RegisterFileKind).
	fileKinds = map[string]bool{}
	// lister lists a folder's or glob's files as a file kind would read
	// them (SetLister); nil until a package installs one.
	lister func(pattern, baseDir string) ([]string, error)
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

// RegisterFileKind declares that the registered kind name reads files:
// its location (after a "name:" prefix, or with kind: name) is a path, a
// folder or a glob. Open reads a folder given without a kind as such a
// kind when its files' extensions say so, and the command's completion
// offers file names after the prefix. It panics if name is not
// registered.
func RegisterFileKind(name string) {
	mu.Lock()
	defer mu.Unlock()
	if _, ok := openers[name]; !ok {
		panic("sources: RegisterFileKind of unregistered kind " + name)
	}
	fileKinds[name] = true
}

// IsFileKind reports whether the kind or alias name reads files
// (RegisterFileKind).
func IsFileKind(name string) bool {
	name, _, ok := lookup(name)
	mu.RLock()
	defer mu.RUnlock()
	return ok && fileKinds[name]
}

// Aliases returns the sorted aliases registered for the kind name (nil for
// none, or for a name that is no kind).
func Aliases(name string) []string {
	mu.RLock()
	defer mu.RUnlock()
	var as []string
	for a, k := range aliases {
		if k == name {
			as = append(as, a)
		}
	}
	sort.Strings(as)
	return as
}

// SetLister installs the function Open lists a folder's or a glob's files
// with when it reads the kind of a location from its files' extensions:
// it returns the paths of the files a file kind would read there (the
// commit rules of file sinks applied), or an error when there are none.
// Package sources/fileset installs fileset.List in its init function.
func SetLister(list func(pattern, baseDir string) ([]string, error)) {
	mu.Lock()
	defer mu.Unlock()
	lister = list
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
// It does no I/O, but for a location whose kind is not given and not
// known by its extension: a folder or a glob is listed (SetLister), and
// read as the file kind its files' extensions name when they all agree
// (inferKind); a path that does not exist is looked at to say so. Errors
// wrap ErrUnknownKind (the message lists Kinds(), and for a folder the
// extensions found and the prefixes to write) or ErrInvalidLocation.
func Open(loc Location) (Source, error) {
	if strings.TrimSpace(loc.URI) == "" {
		return nil, fmt.Errorf("%s: %w: no URI given", loc.Role, ErrInvalidLocation)
	}
	kind, rest := KindOf(loc)
	name, opener, ok := lookup(kind)
	if !ok {
		inferred, ext, hint := inferKind(loc, kind)
		if inferred == "" {
			return nil, fmt.Errorf("%s %q: %w %q (known kinds: %s; a kind is taken from the kind: option, a scheme, a kind: prefix or the file extension)%s",
				loc.Role, Redact(loc.URI), ErrUnknownKind, kind, strings.Join(Kinds(), ", "), hint)
		}
		name, opener, _ = lookup(inferred)
		loc.Extension = ext
	}
	loc.URI = rest
	src, err := opener(loc)
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", loc.Role, name, err)
	}
	return src, nil
}

// inferKind reads the kind of a location that names none (no kind:
// option, no scheme, no prefix, no extension of a kind: named is what
// KindOf found) from its files: for an existing folder, or a glob without
// an extension, whose files (those a file kind would read: SetLister) all
// carry one extension (after .gz or .zst, in any letter case, as KindOf
// reads a file's) that names a file kind, it returns that kind and the
// extension ("csv", "tsv"). Otherwise kind is "" and hint completes the
// unknown-kind error: the path does not exist, or the extensions found
// (with a file of each) and the prefixes to write instead — files that
// disagree are never read as one of them.
func inferKind(loc Location, named string) (kind, ext, hint string) {
	if k, ok := loc.Options["kind"].(string); ok && k != "" || strings.Contains(loc.URI, "://") {
		return "", "", "" // a kind was given: it is unknown, not to be guessed
	}
	path := loc.URI
	if !filepath.IsAbs(path) && loc.BaseDir != "" {
		path = filepath.Join(loc.BaseDir, path)
	}
	glob := strings.ContainsAny(loc.URI, "*?[{")
	switch fi, err := os.Stat(path); {
	case glob && named != "":
		return "", "", "" // its files are named by an extension no kind has
	case glob:
	case errors.Is(err, fs.ErrNotExist) && named == "":
		return "", "", fmt.Sprintf("; and there is no file or folder %s", loc.URI)
	case err != nil || !fi.IsDir():
		return "", "", ""
	}
	what := loc.URI + " is a folder"
	if glob {
		what = "the glob " + loc.URI
	}
	mu.RLock()
	list := lister
	mu.RUnlock()
	if list == nil {
		return "", "", fmt.Sprintf("; %s, and no file kind is linked into this program to read it", what)
	}
	files, err := list(loc.URI, loc.BaseDir)
	if err != nil {
		return "", "", fmt.Sprintf("; %s whose kind cannot be told from its files (%v): give its kind %s", what, err, prefixes(loc.URI, nil))
	}
	count := map[string]int{}
	example := map[string]string{}
	for _, f := range files {
		e := extension(f)
		if count[e] == 0 {
			example[e] = filepath.Base(f)
		}
		count[e]++
	}
	exts := slices.Sorted(maps.Keys(count))
	if len(exts) == 1 && exts[0] != "" && IsFileKind(exts[0]) {
		name, _, _ := lookup(exts[0])
		return name, exts[0], ""
	}
	var found, kinds []string
	for _, e := range exts {
		shown := "no extension"
		if e != "" {
			shown = "." + e
		}
		found = append(found, fmt.Sprintf("%s (%d file%s, such as %s)", shown, count[e], plural(count[e]), example[e]))
		if name, _, ok := lookup(e); ok && IsFileKind(name) && !slices.Contains(kinds, name) {
			kinds = append(kinds, name)
		}
	}
	if len(exts) == 1 {
		return "", "", fmt.Sprintf("; %s whose files have %s, which names no file kind: give its kind %s", what, found[0], prefixes(loc.URI, kinds))
	}
	return "", "", fmt.Sprintf("; %s whose files' extensions disagree: %s: give the kind to read them as %s", what, strings.Join(found, ", "), prefixes(loc.URI, kinds))
}

// prefixes says how to give the kind of uri: "with a prefix (csv:out,
// parquet:out) or kind: in the spec", with the kinds named, else every file
// kind registered.
func prefixes(uri string, kinds []string) string {
	if len(kinds) == 0 {
		mu.RLock()
		for k := range fileKinds {
			kinds = append(kinds, k)
		}
		mu.RUnlock()
		sort.Strings(kinds)
	}
	var ps []string
	for _, k := range kinds {
		ps = append(ps, k+":"+uri)
	}
	return fmt.Sprintf("with a prefix (%s) or kind: in the spec", strings.Join(ps, ", "))
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// extension is the extension a file's kind is chosen by: its name's, in
// lower case, without the dot, after a .gz or .zst ("a.CSV.gz": "csv").
func extension(path string) string {
	base := strings.ToLower(filepath.Base(path))
	for _, c := range []string{".gz", ".zst"} {
		base = strings.TrimSuffix(base, c)
	}
	return strings.TrimPrefix(filepath.Ext(base), ".")
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
	return extension(loc.URI), loc.URI
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
