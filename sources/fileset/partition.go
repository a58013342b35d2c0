package fileset

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/reconcile-dev/reconcile/sources"
)

// Partitions is the partitions: option of a file kind: Hive-style
// partition folders ("dt=2026-11-30/hour=03/part-…") whose names become
// text columns of every record of the files below them.
//
// The layout is Hive's (also Spark's and Flink's filesystem connector's):
// each partition is a folder "<key>=<value>", keys in a fixed order, the
// value escaped with %XX for the characters a path cannot hold (Hive
// FileUtils.escapePathName; Flink PartitionPathUtils), and a NULL or empty
// value written as the default partition name: __HIVE_DEFAULT_PARTITION__
// (Hive's hive.exec.default.partition.name; Spark) or __DEFAULT_PARTITION__
// (Flink's partition.default-name). A value is read as written, after %XX
// is decoded (FileUtils.unescapePathName): never sniffed, so "03" stays
// "03"; the default partition name reads as NULL.
type Partitions struct {
	// all is partitions: true: every key=value folder below the root is a
	// partition column, keys as the first file's path names them.
	all bool
	// names are the partition columns, in folder order (for all, set by
	// the first file read).
	names []string
	// first is the file that set names (for messages).
	first string
}

// defaultPartitionNames are the folder values that stand for NULL.
var defaultPartitionNames = map[string]bool{"__HIVE_DEFAULT_PARTITION__": true, "__DEFAULT_PARTITION__": true}

// ReadPartitions reads the partitions: option: true (every key=value folder),
// false (none), or a list of key names. nil means none.
func ReadPartitions(o *sources.Options) *Partitions {
	v, ok := o.Get("partitions")
	if !ok {
		return nil
	}
	switch t := v.(type) {
	case bool:
		if !t {
			return nil
		}
		return &Partitions{all: true}
	case []any:
		p := &Partitions{}
		seen := map[string]bool{}
		for _, n := range t {
			s, isStr := n.(string)
			switch {
			case !isStr || s == "":
				o.Fail(fmt.Errorf("option partitions: %v is not a column name", n))
			case seen[strings.ToLower(s)]:
				o.Fail(fmt.Errorf("option partitions: %s is named twice", s))
			case s == sources.FileColumn || s == sources.LineColumn || s == sources.RowColumn:
				o.Fail(fmt.Errorf("option partitions: %s is reserved for provenance", s))
			}
			seen[strings.ToLower(s)] = true
			p.names = append(p.names, s)
		}
		if len(p.names) == 0 {
			o.Fail(fmt.Errorf("option partitions: an empty list; give true or the partition keys"))
		}
		return p
	}
	o.Fail(fmt.Errorf("option partitions: want true or a list of partition keys such as [dt, hour], got %v", v))
	return nil
}

// Names returns the partition columns (nil without partitions).
func (p *Partitions) Names() []string {
	if p == nil {
		return nil
	}
	return p.names
}

// fresh returns a copy to read another set of files with (a listing's
// first file sets the keys of partitions: true).
func (p *Partitions) fresh() *Partitions {
	if p == nil {
		return nil
	}
	c := *p
	if c.all {
		c.names, c.first = nil, ""
	}
	return &c
}

// values returns the partition values of the file at path (named name in
// messages), from the key=value folders between root and the file. Errors
// name the file and, for a layout that differs from the first file's, that
// file too.
func (p *Partitions) values(root, path, name string) ([]*string, error) {
	rel, err := filepath.Rel(root, filepath.Dir(path))
	if err != nil || strings.HasPrefix(rel, "..") {
		rel = ""
	}
	var keys []string
	vals := map[string]*string{}
	for _, seg := range strings.Split(filepath.ToSlash(rel), "/") {
		k, v, ok := strings.Cut(seg, "=")
		if !ok || k == "" {
			continue
		}
		k, v = unescapePathName(k), unescapePathName(v)
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			return nil, fmt.Errorf("%w: %s: the partition folder %s decodes to %q, which is not UTF-8 text; a partition key and value must be text", sources.ErrInvalidLocation, name, seg, k+"="+v)
		}
		if _, dup := vals[k]; dup {
			return nil, fmt.Errorf("%w: %s: partition key %s appears in two folders of its path", sources.ErrInvalidLocation, name, k)
		}
		keys = append(keys, k)
		if defaultPartitionNames[v] {
			vals[k] = nil
		} else {
			vals[k] = &v
		}
	}
	if p.all {
		if p.first == "" {
			if len(keys) == 0 {
				return nil, fmt.Errorf("%w: partitions: true, but %s lies in no key=value folder below %s", sources.ErrInvalidLocation, name, root)
			}
			p.names, p.first = keys, name
		} else if strings.Join(keys, "/") != strings.Join(p.names, "/") {
			return nil, fmt.Errorf("%w: %s lies in partition folders %s, %s in %s; every file of one input must have the same partition keys", sources.ErrInvalidLocation, name, keyList(keys), p.first, keyList(p.names))
		}
	}
	out := make([]*string, len(p.names))
	for i, n := range p.names {
		v, ok := vals[n]
		if !ok {
			return nil, fmt.Errorf("%w: %s lies in no %s=… folder below %s (partitions: %s)", sources.ErrInvalidLocation, name, n, root, strings.Join(p.names, ", "))
		}
		out[i] = v
	}
	return out, nil
}

func keyList(keys []string) string {
	if len(keys) == 0 {
		return "(none)"
	}
	return strings.Join(keys, "=…/") + "=…"
}

// unescapePathName decodes each %XX (two hex digits) of a partition folder
// name to the byte XX and keeps everything else as written, as Hive's
// FileUtils.unescapePathName does.
func unescapePathName(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
