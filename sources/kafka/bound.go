package kafka

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/reconcile-dev/reconcile/sources"
)

// kafkaBound is a start: or end: option: earliest/latest, an instant, or
// offsets per partition.
type kafkaBound struct {
	edge    bool // earliest (start) or latest (end)
	at      *time.Time
	offsets map[partitionRef]int64 // Topic "" when the location reads one topic
	text    string
}

// kafkaBoundOption reads start: or end:: earliest/latest, an RFC 3339
// instant, offsets as "P:OFFSET,…" or "TOPIC:P:OFFSET,…", or a mapping
// {P: OFFSET} or {TOPIC: {P: OFFSET}}.
func kafkaBoundOption(o *sources.Options, key, edge string) kafkaBound {
	v, ok := o.Get(key)
	if !ok {
		return kafkaBound{edge: true, text: edge}
	}
	fail := func(why string) kafkaBound {
		o.Fail(fmt.Errorf("option %s: %v: %s (want %s, an RFC 3339 time, or offsets such as \"0:120,1:98\" or {0: 120, 1: 98})", key, v, why, edge))
		return kafkaBound{}
	}
	b := kafkaBound{offsets: map[partitionRef]int64{}}
	put := func(topic string, part, off any) bool {
		p, err1 := strconv.ParseInt(fmt.Sprint(part), 10, 32)
		n, err2 := strconv.ParseInt(fmt.Sprint(off), 10, 64)
		if err1 != nil || err2 != nil || p < 0 || n < 0 {
			return false
		}
		ref := partitionRef{topic, int32(p)}
		if _, dup := b.offsets[ref]; dup {
			return false
		}
		b.offsets[ref] = n
		return true
	}
	switch x := v.(type) {
	case string:
		switch {
		case x == edge:
			return kafkaBound{edge: true, text: edge}
		case strings.Contains(x, "T") || strings.Contains(x, "t"):
			t, err := time.Parse(time.RFC3339Nano, x)
			if err != nil {
				return fail("not an RFC 3339 time with a zone")
			}
			return kafkaBound{at: &t, text: x}
		}
		for item := range strings.SplitSeq(x, ",") {
			parts := strings.Split(strings.TrimSpace(item), ":")
			switch len(parts) {
			case 2:
				if !put("", parts[0], parts[1]) {
					return fail("not partition:offset pairs")
				}
			case 3:
				if !put(parts[0], parts[1], parts[2]) {
					return fail("not topic:partition:offset triples")
				}
			default:
				return fail("not offsets")
			}
		}
	case map[string]any:
		for k, pv := range x {
			if inner, isMap := pv.(map[string]any); isMap {
				for ik, iv := range inner {
					if !put(k, ik, iv) {
						return fail("not {topic: {partition: offset}}")
					}
				}
			} else if !put("", k, pv) {
				return fail("not {partition: offset}")
			}
		}
	case map[any]any:
		for k, pv := range x {
			if !put("", k, pv) {
				return fail("not {partition: offset}")
			}
		}
	default:
		return fail("not a string or a mapping")
	}
	if len(b.offsets) == 0 {
		return fail("no offsets")
	}
	var items []string
	for p, n := range b.offsets {
		items = append(items, fmt.Sprintf("%s:%d:%d", p.Topic, p.Partition, n))
	}
	slices.Sort(items)
	b.text = strings.Join(items, ",")
	return b
}
