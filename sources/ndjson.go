package sources

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/reconcile-dev/reconcile/internal/duck"
)

func init() {
	Register("ndjson", openNDJSON, "jsonl")
}

// openNDJSON reads newline-delimited JSON: one object per line, blank lines
// skipped. Each top-level key becomes a VARCHAR column (columns in order of
// first appearance across the files). Values keep their literal JSON text:
// a string is unquoted, a number stays exactly as written (DuckDB's
// read_json parses numbers as DOUBLE, which turns 12345678901234567.89 into
// 12345678901234568, so this kind decodes with encoding/json's UseNumber
// instead), true/false stay "true"/"false", null is NULL and a nested
// object or array is kept as its JSON text. Option: types.
func openNDJSON(loc Location) (Source, error) {
	o := newOptions("ndjson", loc.Options)
	types := o.Types()
	if err := o.Err(); err != nil {
		return nil, err
	}
	base := absDir(loc.BaseDir)
	return &fileSource{kind: "ndjson", loc: loc, types: types, load: func(ctx context.Context, db *duck.DB, table string, files []string) error {
		return loadNDJSON(ctx, db, table, files, base)
	}}, nil
}

func loadNDJSON(ctx context.Context, db *duck.DB, table string, files []string, base string) error {
	keys, err := ndjsonKeys(ctx, files)
	if err != nil {
		return err
	}
	r := &ndjsonReader{ctx: ctx, files: files, base: base, keys: keys, batch: 8192}
	r.index = make(map[string]int, len(keys))
	fields := make([]arrow.Field, 0, len(keys)+3)
	for i, k := range keys {
		r.index[k] = i
		fields = append(fields, arrow.Field{Name: k, Type: arrow.BinaryTypes.String, Nullable: true})
	}
	fields = append(fields,
		arrow.Field{Name: FileColumn, Type: arrow.BinaryTypes.String},
		arrow.Field{Name: LineColumn, Type: arrow.PrimitiveTypes.Int64},
		arrow.Field{Name: RowColumn, Type: arrow.PrimitiveTypes.Int64})
	r.schema = arrow.NewSchema(fields, nil)
	r.refs = 1
	defer r.Release()
	_, err = db.LoadArrow(ctx, table, r)
	return err
}

// ndjsonLines calls fn for every non-blank line of each file with its
// 1-based line number.
func ndjsonLines(ctx context.Context, path string, fn func(line []byte, n int64) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	var n int64
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			n++
			if n%8192 == 0 {
				if cerr := ctx.Err(); cerr != nil {
					return cerr
				}
			}
			if n == 1 {
				line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")) // UTF-8 byte-order mark
			}
			if t := bytes.TrimSpace(line); len(t) > 0 {
				if ferr := fn(t, n); ferr != nil {
					return ferr
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
}

// ndjsonObject decodes one line into its keys and values, in order, with
// each value as NDJSON text (see openNDJSON). It fails for anything but an
// object.
func ndjsonObject(line []byte, path string, n int64) (keys []string, vals []*string, err error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, fmt.Errorf("%s:%d: not valid JSON: %w", path, n, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, fmt.Errorf("%s:%d: expected a JSON object per line, found %v", path, n, tok)
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: not valid JSON: %w", path, n, err)
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, fmt.Errorf("%s:%d: key %v: not valid JSON: %w", path, n, kt, err)
		}
		k := kt.(string)
		if slices.Contains(keys, k) {
			return nil, nil, fmt.Errorf("%s:%d: key %q appears twice in one object; which value holds is not defined", path, n, k)
		}
		keys = append(keys, k)
		vals = append(vals, jsonText(raw))
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, fmt.Errorf("%s:%d: not valid JSON: %w", path, n, err)
	}
	if dec.More() {
		return nil, nil, fmt.Errorf("%s:%d: more than one JSON value on the line", path, n)
	}
	return keys, vals, nil
}

func jsonText(raw json.RawMessage) *string {
	raw = bytes.TrimSpace(raw)
	switch {
	case bytes.Equal(raw, []byte("null")):
		return nil
	case len(raw) > 0 && raw[0] == '"':
		var s string
		if err := json.Unmarshal(raw, &s); err == nil {
			return &s
		}
	}
	s := string(raw)
	return &s
}

func ndjsonKeys(ctx context.Context, files []string) ([]string, error) {
	seen := map[string]string{} // lower case → key as first written
	var keys []string
	for _, p := range files {
		err := ndjsonLines(ctx, p, func(line []byte, n int64) error {
			ks, _, err := ndjsonObject(line, p, n)
			for _, k := range ks {
				switch first, ok := seen[strings.ToLower(k)]; {
				case !ok:
					seen[strings.ToLower(k)] = k
					keys = append(keys, k)
				case first != k:
					return fmt.Errorf("%s:%d: key %q differs only in case from %q; DuckDB, which runs the checks, does not tell them apart", p, n, k, first)
				}
			}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s: no JSON object found, so no columns", files[0])
	}
	return keys, nil
}

// ndjsonReader is an array.RecordReader over NDJSON files. It reads one
// file at a time on a goroutine-free pull: each Next decodes up to batch
// lines.
type ndjsonReader struct {
	ctx    context.Context
	files  []string
	base   string
	keys   []string
	index  map[string]int
	schema *arrow.Schema
	batch  int
	refs   int64

	cancel context.CancelFunc
	lines  chan ndjsonLine
	errc   chan error
	cur    arrow.RecordBatch
	err    error
	row    int64
}

type ndjsonLine struct {
	path string
	n    int64
	line []byte
}

func (r *ndjsonReader) Retain() { r.refs++ }
func (r *ndjsonReader) Release() {
	r.refs--
	if r.refs > 0 {
		return
	}
	if r.cancel != nil {
		r.cancel()
	}
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
}
func (r *ndjsonReader) Schema() *arrow.Schema          { return r.schema }
func (r *ndjsonReader) Record() arrow.RecordBatch      { return r.cur }
func (r *ndjsonReader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *ndjsonReader) Err() error                     { return r.err }

func (r *ndjsonReader) start() {
	r.lines = make(chan ndjsonLine, 4*r.batch)
	r.errc = make(chan error, 1)
	ctx, cancel := context.WithCancel(r.ctx)
	r.cancel = cancel
	go func() {
		defer close(r.lines)
		for _, p := range r.files {
			err := ndjsonLines(ctx, p, func(line []byte, n int64) error {
				select {
				case r.lines <- ndjsonLine{Rel(r.base, p), n, bytes.Clone(line)}:
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			})
			if err != nil {
				r.errc <- err
				return
			}
		}
	}()
}

func (r *ndjsonReader) Next() bool {
	if r.err != nil {
		return false
	}
	if r.lines == nil {
		r.start()
	}
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, r.schema)
	defer b.Release()
	nk := len(r.keys)
	count := 0
	for count < r.batch {
		l, ok := <-r.lines
		if !ok {
			select {
			case err := <-r.errc:
				r.err = err
				return false
			default:
			}
			break
		}
		keys, vals, err := ndjsonObject(l.line, l.path, l.n)
		if err != nil {
			r.err = err
			return false
		}
		row := make([]*string, nk)
		for i, k := range keys {
			row[r.index[k]] = vals[i]
		}
		for i, v := range row {
			sb := b.Field(i).(*array.StringBuilder)
			if v == nil {
				sb.AppendNull()
			} else {
				sb.Append(*v)
			}
		}
		b.Field(nk).(*array.StringBuilder).Append(l.path)
		b.Field(nk + 1).(*array.Int64Builder).Append(l.n)
		b.Field(nk + 2).(*array.Int64Builder).Append(r.row)
		r.row++
		count++
	}
	if count == 0 {
		return false
	}
	r.cur = b.NewRecordBatch()
	return true
}
