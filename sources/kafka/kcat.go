package kafka

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/valyala/fastjson"

	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/fileset"
	"github.com/reconcile-dev/reconcile/sources/internal/jsontext"
)

func init() {
	sources.Register("kcat", openKcat, "kafkacat")
	sources.RegisterFileKind("kcat")
}

// kcatSource reads the output of `kcat -C -J` (one JSON object per line
// with topic, partition, offset, tstype, ts, key, payload and, when the
// record has any, headers as ["name", "value", …]) as the records of the
// topic it dumped: the same columns, provenance and locations as the kafka
// kind gives for the same records. Files are addressed as every file kind's
// are (a path or a glob, .gz or .zst), behind the kcat: prefix or with
// kind: kcat. The isolation level the dump was read with is not in it: the
// isolation: option declares it, unknown by default, and the evidence says
// which.
type kcatSource struct {
	loc       sources.Location
	isolation string
	rec       recordOptions
}

func openKcat(loc sources.Location) (sources.Source, error) {
	o := sources.NewOptions("kcat", loc.Options)
	s := &kcatSource{loc: loc, isolation: o.String("isolation", IsolationUnknown)}
	switch s.isolation {
	case IsolationUnknown, ReadCommitted, ReadUncommitted:
	default:
		o.Fail(fmt.Errorf("option isolation: %q: want read_committed, read_uncommitted or unknown (the level kcat read with: librdkafka's default is read_committed, -X isolation.level=read_uncommitted changes it)", s.isolation))
	}
	s.rec = readRecordOptions(o)
	if err := o.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *kcatSource) Close() error { return nil }

// kcatPending bounds the bytes of the records a kcat read holds before it
// decodes them (see kcatBatches).
const kcatPending = 64 << 20

// kcatPart counts what a dump holds of one partition.
type kcatPart struct {
	first, last int64
	rows, bad   int64
}

// Read lists and fingerprints the dump files, decodes every line into the
// spool (learning the columns), and returns the records read back from it,
// partitions in (topic, partition) order, each in the dump's order. A line
// that is not a kcat -J envelope, or an offset of a partition listed twice
// or out of order (two dumps concatenated), is an ErrRead error naming
// file and line; a record that does not decode is an ErrRecord (or,
// with bad_records: report, listed).
func (s *kcatSource) Read(ctx context.Context) (*sources.Input, array.RecordReader, error) {
	in, files, _, err := fileset.ListInput(ctx, s.loc, "kcat", s.rec.declared, nil)
	if err != nil {
		return nil, nil, err
	}
	sp := newSpool(newSpoolMemory())
	ok := false
	defer func() {
		if !ok {
			sp.close()
		}
	}()
	cols := newKafkaColumns()
	dec := newRecordDecoder(s.rec, cols)
	parts := map[partitionRef]*kcatPart{}
	batches := &kcatBatches{dec: dec, sp: sp, parts: parts, pending: map[partitionRef][]*kgo.Record{}, ordered: map[partitionRef]bool{}}
	var lines kcatLines
	for _, f := range files {
		err := fileset.Lines(ctx, f, nil, func(line []byte, n int64) error {
			where := func() string { return fmt.Sprintf("%s:%d", f.Name, n) }
			v, ref, off, err := lines.envelope(line, where)
			if err != nil {
				return err
			}
			kp, seen := parts[ref]
			switch {
			case !seen:
				kp = &kcatPart{first: off, last: off}
				parts[ref] = kp
			case off <= kp.last:
				return fmt.Errorf("%w: %s: %s@%d comes after offset %d of the same partition: the file is not one read of the topic (two dumps concatenated?), so its records cannot be counted once", ErrRead, where(), ref.file(), off, kp.last)
			default:
				kp.last = off
			}
			r, err := kcatRecord(v, off, where)
			if err != nil {
				return err
			}
			return batches.add(ref, r)
		})
		if err != nil {
			return nil, nil, err
		}
	}
	if err := batches.flushAll(); err != nil {
		return nil, nil, err
	}
	refs := make([]partitionRef, 0, len(parts))
	for r := range parts {
		refs = append(refs, r)
	}
	slices.SortFunc(refs, comparePartitions)
	s.describe(in, parts, refs)
	fillRecordInput(in, s.rec, []*recordDecoder{dec}, cols)
	rr, err := spooledRecords(ctx, []*spool{sp}, []*recordDecoder{dec}, cols, refs, sources.ReadOptions{Progress: s.loc.Progress, Label: "reading " + s.loc.Role + " " + s.loc.URI})
	if err != nil {
		return nil, nil, err
	}
	ok = true
	return in, rr, nil
}

// describe sets in's location form, Details and notes: the dump's format,
// the isolation level it was read with, and what it holds of each
// partition (refs, in order).
func (s *kcatSource) describe(in *sources.Input, parts map[partitionRef]*kcatPart, refs []partitionRef) {
	in.LocationForm = sources.LocationOffset
	var topics, offsets []string
	var ps []map[string]any
	for _, r := range refs {
		if !slices.Contains(topics, r.Topic) {
			topics = append(topics, r.Topic)
		}
		p := parts[r]
		offsets = append(offsets, fmt.Sprintf("%s %d..%d", r.file(), p.first, p.last+1))
		ps = append(ps, map[string]any{"topic": r.Topic, "partition": r.Partition,
			"first_offset": p.first, "last_offset": p.last, "records": p.rows, "bad_records": p.bad})
	}
	d := map[string]any{
		"format":          "kcat -C -J",
		"isolation_level": s.isolation,
		"topics":          topics,
		"partitions":      ps,
		"offsets":         strings.Join(offsets, ", "),
		"value":           string(s.rec.value),
		"key":             string(s.rec.key),
		"location_form":   sources.LocationOffset,
	}
	var note string
	switch s.isolation {
	case IsolationUnknown:
		note = s.loc.Role + " is a kcat dump read with an isolation level not declared (isolation: unknown): if kcat ran with -X isolation.level=read_uncommitted, records of aborted transactions are in it and count as if committed (librdkafka's default is read_committed); declare isolation: read_committed or read_uncommitted"
	case ReadUncommitted:
		note = s.loc.Role + " is a kcat dump read with isolation read_uncommitted: records of aborted transactions are counted as if committed, so they can show as duplicates or unexpected ids"
	}
	if note != "" {
		d["isolation_note"] = note
		in.Notes = append(in.Notes, "WARNING: "+note)
	}
	in.Details = d
}

// kcatBatches holds a dump's records until they are decoded: per
// partition until a partition has BatchRows of them or all together hold
// kcatPending bytes, so a dump whose partitions interleave (as kcat writes
// them) still makes chunks of many records each.
type kcatBatches struct {
	dec     *recordDecoder
	sp      *spool
	parts   map[partitionRef]*kcatPart
	pending map[partitionRef][]*kgo.Record
	order   []partitionRef // partitions with pending records, first seen first
	ordered map[partitionRef]bool
	bytes   int
}

// add holds r, a record of ref, decoding what is held once a bound is
// reached.
func (b *kcatBatches) add(ref partitionRef, r *kgo.Record) error {
	if !b.ordered[ref] {
		b.ordered[ref] = true
		b.order = append(b.order, ref)
	}
	b.pending[ref] = append(b.pending[ref], r)
	b.bytes += recordSize(r)
	switch {
	case b.bytes >= kcatPending:
		return b.flushAll()
	case len(b.pending[ref]) >= sources.BatchRows:
		return b.flush(ref)
	}
	return nil
}

// flush decodes the records held of ref into the spool, counting them.
func (b *kcatBatches) flush(ref partitionRef) error {
	batch := b.pending[ref]
	if len(batch) == 0 {
		return nil
	}
	n, err := b.dec.decodeChunk(b.sp, ref, batch)
	b.parts[ref].rows += int64(n)
	b.parts[ref].bad += int64(len(batch) - n)
	for _, r := range batch {
		b.bytes -= recordSize(r)
	}
	b.pending[ref] = batch[:0]
	return err
}

// flushAll decodes every record held, partitions in the order first seen.
func (b *kcatBatches) flushAll() error {
	for _, ref := range b.order {
		if err := b.flush(ref); err != nil {
			return err
		}
	}
	b.order = b.order[:0]
	clear(b.ordered)
	return nil
}

// kcatLines parses the lines of a dump; its scratch is used again for
// every line.
type kcatLines struct {
	env  fastjson.Parser
	keys [][]byte // twiceIn's
}

// envelope parses line, a kcat -J envelope, and returns it (valid until
// the next line is parsed) with the partition and offset of its record. A
// line that is not one (a JSON object with topic, partition, offset and
// payload, each field once, Unicode text) is an ErrRead error naming where
// (file:line).
func (l *kcatLines) envelope(line []byte, where func() string) (*fastjson.Value, partitionRef, int64, error) {
	v, err := l.env.ParseBytes(line)
	if err == nil && v.Type() != fastjson.TypeObject {
		err = fmt.Errorf("a %s, not an object", v.Type())
	}
	if err != nil {
		return nil, partitionRef{}, 0, fmt.Errorf("%w: %s: not a kcat -J line: %v", ErrRead, where(), err)
	}
	if dup := twiceIn(v, &l.keys); dup != "" {
		return nil, partitionRef{}, 0, fmt.Errorf("%w: %s: not a kcat -J line: field %q is given twice; which one holds is not defined", ErrRead, where(), dup)
	}
	if esc, ok := jsontext.LoneSurrogate(line); ok {
		return nil, partitionRef{}, 0, fmt.Errorf("%w: %s: not a kcat -J line of Unicode text: the escape %s is half of a UTF-16 surrogate pair, which names no character (RFC 8259 section 8.2)", ErrRead, where(), esc)
	}
	topic := v.GetStringBytes("topic")
	pv, ov := v.Get("partition"), v.Get("offset")
	if topic == nil || pv == nil || ov == nil || !v.Exists("payload") {
		return nil, partitionRef{}, 0, fmt.Errorf("%w: %s: not a kcat -J line: want topic, partition, offset and payload (kcat -C -J)", ErrRead, where())
	}
	p, err1 := pv.Int()
	off, err2 := ov.Int64()
	if err1 != nil || err2 != nil || p < 0 || off < 0 {
		return nil, partitionRef{}, 0, fmt.Errorf("%w: %s: partition and offset must be non-negative integers", ErrRead, where())
	}
	return v, partitionRef{string(topic), int32(p)}, off, nil
}

// kcatRecord is the record of envelope v at offset off: its timestamp, key,
// payload and headers.
func kcatRecord(v *fastjson.Value, off int64, where func() string) (*kgo.Record, error) {
	r := &kgo.Record{Offset: off, Timestamp: noTime}
	if v.GetStringBytes("tstype") != nil && string(v.GetStringBytes("tstype")) != "none" {
		if ts, err := v.Get("ts").Int64(); err == nil && ts >= 0 {
			r.Timestamp = time.UnixMilli(ts)
		}
	}
	// kcat writes a key's or payload's bytes into the JSON string as
	// they are (bytes that are not UTF-8 too): value: json and
	// value: string refuse those as bad records, value: bytes takes
	// them as written.
	field := func(name string) ([]byte, error) {
		fv := v.Get(name)
		if fv == nil || fv.Type() == fastjson.TypeNull {
			return nil, nil
		}
		b, err := fv.StringBytes()
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %s: want a string or null", ErrRead, where(), name)
		}
		return append([]byte{}, b...), nil
	}
	var err error
	if r.Key, err = field("key"); err != nil {
		return nil, err
	}
	if r.Value, err = field("payload"); err != nil {
		return nil, err
	}
	if hs := v.Get("headers"); hs != nil && hs.Type() != fastjson.TypeNull {
		arr, err := hs.Array()
		if err != nil || len(arr)%2 != 0 {
			return nil, fmt.Errorf("%w: %s: headers: want [\"name\", \"value\", …]", ErrRead, where())
		}
		for i := 0; i < len(arr); i += 2 {
			k, err := arr[i].StringBytes()
			if err != nil {
				return nil, fmt.Errorf("%w: %s: headers: a name that is not a string", ErrRead, where())
			}
			h := kgo.RecordHeader{Key: string(k)}
			if arr[i+1].Type() != fastjson.TypeNull {
				b, err := arr[i+1].StringBytes()
				if err != nil {
					return nil, fmt.Errorf("%w: %s: headers: a value that is not a string", ErrRead, where())
				}
				h.Value = append([]byte{}, b...)
			}
			r.Headers = append(r.Headers, h)
		}
	}
	return r, nil
}

// twiceIn returns a field name given twice in object v (the first so
// found), or "": fastjson's Get takes the first, another reader the last.
// keys is scratch, kept by the caller so that a line costs no allocation.
func twiceIn(v *fastjson.Value, keys *[][]byte) string {
	o, err := v.Object()
	if err != nil {
		return ""
	}
	*keys = (*keys)[:0]
	dup := ""
	o.Visit(func(k []byte, _ *fastjson.Value) {
		if dup == "" && slices.ContainsFunc(*keys, func(s []byte) bool { return bytes.Equal(s, k) }) {
			dup = string(k)
		}
		*keys = append(*keys, k) // valid while v is: within this line
	})
	return dup
}
