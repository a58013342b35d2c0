package kafka

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/valyala/fastjson"

	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/internal/jsontext"
)

// colAt is a column's first appearance in a partition: the offset of the
// record and the cell's position in it.
type colAt struct {
	col    int
	offset int64
	pos    int
}

// partFirst records, for one partition, the columns in order of first
// appearance (records of a partition are decoded in offset order).
type partFirst struct {
	seen  []bool
	order []colAt
}

// recordDecoder turns records into spooled rows, learning the columns. A
// decoder is used by one goroutine and decodes every record of the
// partitions it is given (so their order is kept).
type recordDecoder struct {
	opt     recordOptions
	cols    *kafkaColumns
	local   map[string]localCol // names this decoder has resolved
	shape   []shapeCol          // the columns of the last record, by position
	parser  fastjson.Parser     // values are copied to the chunk before the next parse
	chunk   chunkRows           // the rows of the chunk being decoded
	stamp   []uint32            // per column: the record that last set it
	gen     uint32
	name    []byte // scratch for a flattened name
	text    []byte // scratch: the text of a value
	nested  []byte // scratch: an object or array's text (jsontext.AppendText)
	why     string // why value refused a value other than a number, or ""
	scratch []byte // scratch: the text of a number in an array
	bad     []badAt
	first   map[partitionRef]*partFirst
	cur     *partFirst
	err     error  // set inside fastjson's Visit
	plain   bool   // the JSON being decoded is plainASCII
	what    string // "value" or "key", for messages
	part    partitionRef
	offset  int64
	pos     int
}

type localCol struct{ col, owner int }

type shapeCol struct {
	name []byte
	localCol
}

type badAt struct {
	part   partitionRef
	offset int64
	reason string
}

func newRecordDecoder(opt recordOptions, cols *kafkaColumns) *recordDecoder {
	return &recordDecoder{opt: opt, cols: cols, local: map[string]localCol{}, first: map[partitionRef]*partFirst{}}
}

// errBad is a reason a record is bad, as opposed to a failure of the read.
type errBad struct{ reason string }

func (e *errBad) Error() string { return e.reason }

func bad(format string, args ...any) error { return &errBad{fmt.Sprintf(format, args...)} }

// decode appends r's values to the chunk's columns (the row is ended by
// the caller, or rolled back when decode fails). It returns an *errBad for a record that
// does not decode, or an ErrRecord error for fields that cannot be
// columns at all.
func (d *recordDecoder) decode(r *kgo.Record) error {
	d.gen++
	d.offset, d.pos = r.Offset, 0
	switch d.opt.key {
	case payloadJSON:
		if r.Key != nil {
			if err := d.json(r.Key, "key", "key."); err != nil {
				return err
			}
		}
	case payloadString:
		if r.Key != nil {
			if !utf8.Valid(r.Key) {
				return bad("key is not UTF-8 text (key: string); read it with key: bytes")
			}
			if err := d.add("key", false, ownKey, r.Key, false); err != nil {
				return err
			}
		}
	case payloadBytes:
		if r.Key != nil {
			if err := d.add("key", true, ownKey, r.Key, false); err != nil {
				return err
			}
		}
	}
	switch d.opt.value {
	case payloadJSON:
		// A null value (a tombstone) is a row whose value columns are all
		// NULL: kept, so null_ids shows it rather than it vanishing.
		if r.Value != nil {
			if err := d.json(r.Value, "value", ""); err != nil {
				return err
			}
		}
	case payloadString:
		if r.Value != nil && !utf8.Valid(r.Value) {
			return bad("value is not UTF-8 text (value: string); read it with value: bytes")
		}
		if err := d.add("value", false, ownValue, r.Value, r.Value == nil); err != nil {
			return err
		}
	case payloadBytes:
		if err := d.add("value", true, ownValue, r.Value, r.Value == nil); err != nil {
			return err
		}
	}
	for _, h := range r.Headers {
		if !utf8.Valid(h.Value) {
			return bad("header %q is not UTF-8 text", h.Key)
		}
	}
	if repeatsHeader(r.Headers) {
		return d.repeatedHeaders(r.Headers)
	}
	for _, h := range r.Headers {
		if err := d.add(HeaderPrefix+h.Key, false, ownHeader, h.Value, h.Value == nil); err != nil {
			return err
		}
	}
	return nil
}

// repeatsHeader reports whether a header name is given more than once in hs.
func repeatsHeader(hs []kgo.RecordHeader) bool {
	for i := 1; i < len(hs); i++ {
		for j := range i {
			if hs[i].Key == hs[j].Key {
				return true
			}
		}
	}
	return false
}

// repeatedHeaders adds the headers of a record that gives a name more than
// once, each name once, in order of first appearance: a name given once to
// its column, as any header; a name given more than once NULL there, and
// the JSON array of all its values, in order, to its list column
// (headerListName), which spooledRecords merges into the header's column.
func (d *recordDecoder) repeatedHeaders(hs []kgo.RecordHeader) error {
	for i, h := range hs {
		if slices.ContainsFunc(hs[:i], func(o kgo.RecordHeader) bool { return o.Key == h.Key }) {
			continue // added with its first
		}
		name := HeaderPrefix + h.Key
		n := 0
		list := append(d.text[:0], '[')
		for _, o := range hs[i:] {
			if o.Key != h.Key {
				continue
			}
			if n++; n > 1 {
				list = append(list, ',')
			}
			if o.Value == nil {
				list = append(list, "null"...)
			} else {
				list = jsontext.AppendString(list, o.Value)
			}
		}
		d.text = append(list, ']')
		if n == 1 {
			if err := d.add(name, false, ownHeader, h.Value, h.Value == nil); err != nil {
				return err
			}
			continue
		}
		if err := d.add(name, false, ownHeader, nil, true); err != nil {
			return err
		}
		if err := d.add(headerListName(name), false, ownHeaderList, d.text, false); err != nil {
			return err
		}
	}
	return nil
}

// plainASCII reports whether b holds only printable ASCII: no escape, no
// control character, nothing that needs UTF-8 validation.
func plainASCII(b []byte) bool {
	// sixteen bytes at a time: a byte ≥ 0x80, < 0x20 or equal to '\\' sets
	// its high bit in bad (the classic "has less" and "has zero" word tricks)
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	bad := func(x uint64) uint64 {
		esc := x ^ (0x5c * ones)
		return x | ((x - 0x20*ones) &^ x) | ((esc - ones) &^ esc)
	}
	for len(b) >= 16 {
		if (bad(binary.LittleEndian.Uint64(b))|bad(binary.LittleEndian.Uint64(b[8:])))&highs != 0 {
			return false
		}
		b = b[16:]
	}
	if len(b) >= 8 {
		if bad(binary.LittleEndian.Uint64(b))&highs != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c < 0x20 || c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

// json decodes a JSON object into cells named prefix+field (nested objects
// also as prefix+field.sub…). JSON is read as RFC 8259 defines it: a value
// with an escape, a control character or a non-ASCII byte is validated in
// full (valid UTF-8, fastjson.Validate) before it is parsed; any other
// value is parsed at once (fastjson.Parse, which checks its structure) and
// each number's text is checked against the RFC's grammar, the one thing
// Parse is lenient about (it takes NaN, Inf, 01, 1.).
func (d *recordDecoder) json(b []byte, what, prefix string) error {
	if d.plain = plainASCII(b); !d.plain {
		if !utf8.Valid(b) {
			return bad("%s is not UTF-8 text, so not JSON (%s: json)", what, what)
		}
		if err := fastjson.ValidateBytes(b); err != nil {
			return bad("%s is not JSON (%s: json): %s", what, what, shorten(err.Error()))
		}
		if esc, ok := jsontext.LoneSurrogate(b); ok {
			return bad("%s is not JSON text of Unicode characters (%s: json): the escape %s is half of a UTF-16 surrogate pair, which names no character (RFC 8259 section 8.2)", what, what, esc)
		}
	}
	v, err := d.parser.ParseBytes(b)
	if err != nil {
		return bad("%s is not JSON (%s: json): %s", what, what, shorten(err.Error()))
	}
	o, err := v.Object()
	if err != nil {
		return bad("%s is JSON but not an object (%s: json): a %s, starts %s", what, what, v.Type(), quotePrefix(b))
	}
	owner := ownValue
	if prefix != "" {
		owner = ownKey
	}
	d.name = append(d.name[:0], prefix...)
	d.err = nil
	d.what = what
	d.object(o, owner)
	return d.err
}

func (d *recordDecoder) object(o *fastjson.Object, owner int) {
	base := len(d.name)
	o.Visit(func(k []byte, v *fastjson.Value) {
		if d.err != nil {
			return
		}
		// a top-level field's name is its key, as the parser holds it
		name := k
		if base > 0 {
			d.name = append(d.name[:base], k...)
			name = d.name
		}
		// The value first, then its column: a field whose value is bad
		// names no column.
		val, null, isObject := d.value(v)
		if val == nil && !null {
			if d.why != "" {
				d.err = bad("%s is not JSON reconcile reads (%s: json): field %q: %s", d.what, d.what, name, d.why)
				return
			}
			d.err = bad("%s is not JSON (%s: json): field %q: %q is not a JSON number", d.what, d.what, name, d.text)
			return
		}
		cc, err := d.column(name, false, owner)
		if err != nil {
			d.err = err
			return
		}
		if null {
			cc.null()
		} else {
			cc.value(val)
		}
		if isObject {
			obj, _ := v.Object()
			d.name = append(append(d.name[:base], k...), '.')
			d.object(obj, owner)
		}
	})
	d.name = d.name[:base]
}

// value returns a field's value as its cell holds it — a string's text, a
// number as written, true/false, an object or array as the text
// jsontext.AppendText gives (compact, strings with the fewest escapes, keys
// and numbers as written: the ndjson kind's rule) — valid until the next
// value; null for JSON null; and nil with null false for a number RFC 8259
// does not allow (fastjson's parse takes NaN, nan, Inf, 01, 1.), whose text
// is then in d.text, or for an object or array that gives a key twice,
// d.why saying so.
//
// In a plainASCII record a string has no escape, so its value is the text
// between its quotes in fastjson's text of it (MarshalTo), taken without
// the unescaping pass of fastjson's string accessors; a plain record's
// arrays are walked for their numbers, which Parse does not check (a
// record that is not plain was validated in full by fastjson.Validate).
func (d *recordDecoder) value(v *fastjson.Value) (val []byte, null, isObject bool) {
	d.why = ""
	if d.plain {
		d.text = v.MarshalTo(d.text[:0])
		t := d.text
		switch t[0] {
		case '"':
			return t[1 : len(t)-1], false, false
		case '{':
			return d.nestedText(t), false, true
		case '[':
			if !numbersIn(v, &d.scratch) {
				d.text = append(d.text[:0], d.scratch...) // the number, for the message
				return nil, false, false
			}
			return d.nestedText(t), false, false
		case 't', 'f':
			return t, false, false
		}
		if string(t) == "null" {
			return nil, true, false
		}
		if !jsonNumber(t) {
			return nil, false, false
		}
		return t, false, false
	}
	switch v.Type() {
	case fastjson.TypeString:
		s, _ := v.StringBytes()
		return s, false, false
	case fastjson.TypeNull:
		return nil, true, false
	case fastjson.TypeNumber:
		d.text = v.MarshalTo(d.text[:0])
		if !jsonNumber(d.text) {
			return nil, false, false
		}
		return d.text, false, false
	}
	// true/false as written, nested JSON as its text. MarshalTo gives
	// the text as written less its white space (strings and keys not yet
	// read keep their escapes: fastjson unescapes them lazily, and a
	// nested object is read only after its own text is taken).
	d.text = v.MarshalTo(d.text[:0])
	switch v.Type() {
	case fastjson.TypeObject, fastjson.TypeArray:
		return d.nestedText(d.text), false, v.Type() == fastjson.TypeObject
	}
	return d.text, false, false
}

// nestedText is an object or array's text as jsontext.AppendText gives it
// (in d.nested), or nil with d.why set when it gives a key twice.
func (d *recordDecoder) nestedText(t []byte) []byte {
	var err error
	if d.nested, err = jsontext.AppendText(d.nested[:0], t); err != nil {
		d.why = err.Error()
		return nil
	}
	return d.nested
}

// numbersIn reports whether every number in array or object v, at any
// depth, is one RFC 8259 allows; buf is scratch.
func numbersIn(v *fastjson.Value, buf *[]byte) bool {
	switch v.Type() {
	case fastjson.TypeNumber:
		*buf = v.MarshalTo((*buf)[:0])
		return jsonNumber(*buf)
	case fastjson.TypeArray:
		a, _ := v.Array()
		for _, e := range a {
			if !numbersIn(e, buf) {
				return false
			}
		}
	case fastjson.TypeObject:
		o, _ := v.Object()
		ok := true
		o.Visit(func(_ []byte, e *fastjson.Value) { ok = ok && numbersIn(e, buf) })
		return ok
	}
	return true
}

// jsonNumber reports whether b is a number as RFC 8259 section 6 writes
// it: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func jsonNumber(b []byte) bool {
	i, n := 0, len(b)
	digits := func() int {
		j := i
		for i < n && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i - j
	}
	if i < n && b[i] == '-' {
		i++
	}
	if i < n && b[i] == '0' {
		i++
	} else if digits() == 0 {
		return false
	}
	if i < n && b[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < n && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < n && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == n
}

// add appends v (null when null) to column name.
func (d *recordDecoder) add(name string, isBinary bool, owner int, v []byte, null bool) error {
	d.name = append(d.name[:0], name...)
	cc, err := d.column(d.name, isBinary, owner)
	if err != nil {
		return err
	}
	if null {
		cc.null()
	} else {
		cc.value(v)
	}
	return nil
}

// column returns the chunk's column for name (the record's d.pos-th
// value), found from the last record's shape when it had the same name
// there, else from the decoder's names, else from the shared columns. It
// refuses a name used twice in one record or by both the key and the
// value.
func (d *recordDecoder) column(name []byte, isBinary bool, owner int) (*chunkColumn, error) {
	var lc localCol
	if d.pos < len(d.shape) && string(d.shape[d.pos].name) == string(name) {
		lc = d.shape[d.pos].localCol
	} else {
		var ok bool
		if lc, ok = d.local[string(name)]; !ok {
			col, own, err := d.cols.add(string(name), isBinary, owner, d.where)
			if err != nil {
				return nil, err
			}
			lc = localCol{col, own}
			d.local[string(name)] = lc
		}
		if d.pos < len(d.shape) {
			d.shape[d.pos] = shapeCol{append(d.shape[d.pos].name[:0], name...), lc}
		} else {
			d.shape = append(d.shape, shapeCol{append([]byte(nil), name...), lc})
		}
	}
	if lc.owner != owner {
		return nil, fmt.Errorf("%w: %s: column %q comes from both the %s and the %s; load the key with key: json or key: none", ErrRecord, d.where(), name, ownerName(lc.owner), ownerName(owner))
	}
	col := lc.col
	for col >= len(d.stamp) {
		d.stamp = append(d.stamp, 0)
	}
	if d.stamp[col] == d.gen {
		return nil, bad("%s %q appears twice in one record; which value holds is not defined", ownerName(owner), name)
	}
	d.stamp[col] = d.gen
	pf := d.cur
	for col >= len(pf.seen) {
		pf.seen = append(pf.seen, false)
	}
	if !pf.seen[col] {
		pf.seen[col] = true
		pf.order = append(pf.order, colAt{col, d.offset, d.pos})
	}
	d.pos++
	return d.chunk.column(col, isBinary), nil
}

func ownerName(o int) string {
	switch o {
	case ownKey:
		return "key field"
	case ownHeader, ownHeaderList:
		return "header"
	}
	return "field"
}

func (d *recordDecoder) where() string {
	return fmt.Sprintf("%s@%d", d.part.file(), d.offset)
}

// shorten cuts a library's message (which may quote the rest of a value)
// to a length fit for an exception row.
func shorten(s string) string {
	if r := []rune(s); len(r) > 160 {
		return string(r[:160]) + "…"
	}
	return s
}

// quotePrefix shows the first bytes of a value for a message.
func quotePrefix(b []byte) string {
	if len(b) > 40 {
		return strconv.Quote(string(b[:40])) + "…"
	}
	return strconv.Quote(string(b))
}

// decodeChunk decodes recs of p into the spool, collecting bad records
// (bad_records: report) or failing on the first. The rows become chunks
// of at most BatchBytes of record bytes each (a chunk, and the batch it
// becomes, stays bounded however large the records). It returns the
// number of rows spooled.
func (d *recordDecoder) decodeChunk(s *spool, p partitionRef, recs []*kgo.Record) (int, error) {
	d.part = p
	if d.cur = d.first[p]; d.cur == nil {
		d.cur = &partFirst{}
		d.first[p] = d.cur
	}
	c := &d.chunk
	c.reset()
	defer c.reset()
	rows, size := 0, 0
	for _, r := range recs {
		err := d.decode(r)
		if err == nil {
			c.endRow(r, d.pos)
			if size += recordSize(r); size >= sources.BatchBytes {
				if err := d.writeChunk(s, p); err != nil {
					return 0, err
				}
				rows, size = rows+c.rows, 0
				c.reset()
			}
			continue
		}
		c.rollback()
		var be *errBad
		if !errors.As(err, &be) {
			return 0, err
		}
		if !d.opt.report {
			return 0, fmt.Errorf("%w: %s@%d: %s (bad_records: report lists such records instead of stopping)", ErrRecord, p.file(), r.Offset, be.reason)
		}
		if len(d.bad) >= maxBadRecords {
			return 0, fmt.Errorf("%w: more than %d records do not decode (the last at %s@%d: %s): is the value: option right for this topic?", ErrRecord, maxBadRecords, p.file(), r.Offset, be.reason)
		}
		d.bad = append(d.bad, badAt{p, r.Offset, be.reason})
	}
	if err := d.writeChunk(s, p); err != nil {
		return 0, err
	}
	return rows + c.rows, nil
}

// writeChunk writes the chunk's rows, if any, to the spool as one chunk of p.
func (d *recordDecoder) writeChunk(s *spool, p partitionRef) error {
	if d.chunk.rows == 0 {
		return nil
	}
	rec, err := d.chunk.finish()
	if err != nil {
		return err
	}
	defer rec.Release()
	return s.writeChunk(p, rec)
}

// badRecords returns the bad records of decs in (topic, partition,
// offset) order.
func badRecords(decs []*recordDecoder) []sources.BadRecord {
	var all []badAt
	for _, d := range decs {
		all = append(all, d.bad...)
	}
	slices.SortFunc(all, func(a, b badAt) int {
		return cmp.Or(comparePartitions(a.part, b.part), cmp.Compare(a.offset, b.offset))
	})
	out := make([]sources.BadRecord, len(all))
	for i, b := range all {
		out[i] = sources.BadRecord{Location: fmt.Sprintf("%s@%d", b.part.file(), b.offset), Reason: b.reason}
	}
	return out
}
