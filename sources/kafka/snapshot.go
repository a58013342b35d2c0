package kafka

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/reconcile-dev/reconcile/sources"
)

// kafkaPart is one partition of a read: its bounds, leader, and counts.
type kafkaPart struct {
	idx        int // position in the read's (topic, partition) order
	ref        partitionRef
	id         [16]byte
	leader     int32
	start, end int64
	next       int64 // the next offset to fetch (owned by the fetcher)
	hwm        int64 // read_committed: the high watermark listed after the end (-1: not listed)
	rows, bad  int64
}

// snapshot lists the partitions to read with their bounds, in (topic,
// partition) order, and the instant the end offsets were listed.
func (s *kafkaSource) snapshot(ctx context.Context, adm *kadm.Client) ([]*kafkaPart, time.Time, error) {
	topics, parts, err := s.partitions(ctx, adm)
	if err != nil {
		return nil, time.Time{}, err
	}
	lo, err := s.listOffsets(ctx, adm, topics)
	if err != nil {
		return nil, time.Time{}, err
	}
	starts, err := s.bound(ctx, adm, s.start, "start", lo.low, topics, parts)
	if err != nil {
		return nil, time.Time{}, err
	}
	ends, err := s.bound(ctx, adm, s.end, "end", lo.high, topics, parts)
	if err != nil {
		return nil, time.Time{}, err
	}
	for _, p := range parts {
		if err := s.setBounds(p, lo, starts[p.ref], ends[p.ref]); err != nil {
			return nil, time.Time{}, err
		}
	}
	return parts, lo.listedAt, nil
}

// listFailed is the error of a metadata or offsets request (what) that
// failed: ErrRead, or ctx's error once it is done.
func (s *kafkaSource) listFailed(ctx context.Context, what string, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("%w: %s: %w", cerr, what, err)
	}
	return fmt.Errorf("%w: %s: %s: %w", ErrRead, s.uri, what, err)
}

// partitions returns the topics to read (the location's, or those
// topic_regex matches) and their partitions, in (topic, partition) order,
// each with its leader.
func (s *kafkaSource) partitions(ctx context.Context, adm *kadm.Client) ([]string, []*kafkaPart, error) {
	md, err := adm.Metadata(ctx, s.topics...)
	if err != nil {
		return nil, nil, s.listFailed(ctx, "metadata", err)
	}
	topics := s.topics
	if s.topicRE != nil {
		topics = nil
		for t, d := range md.Topics {
			if !d.IsInternal && s.topicRE.MatchString(t) {
				topics = append(topics, t)
			}
		}
		slices.Sort(topics)
		if len(topics) == 0 {
			return nil, nil, fmt.Errorf("%w: %s: no topic matches topic_regex %s", sources.ErrInvalidLocation, s.uri, s.topicRE)
		}
	}
	var parts []*kafkaPart
	for _, t := range topics {
		d, ok := md.Topics[t]
		if !ok || errors.Is(d.Err, kerr.UnknownTopicOrPartition) {
			return nil, nil, fmt.Errorf("%w: %s: topic %q does not exist", sources.ErrInvalidLocation, s.uri, t)
		}
		if d.Err != nil {
			return nil, nil, s.listFailed(ctx, "topic "+t, d.Err)
		}
		for _, p := range d.Partitions.Numbers() {
			pd := d.Partitions[p]
			parts = append(parts, &kafkaPart{ref: partitionRef{t, p}, id: d.ID, leader: pd.Leader})
		}
	}
	slices.SortFunc(parts, func(a, b *kafkaPart) int { return comparePartitions(a.ref, b.ref) })
	for i, p := range parts {
		p.idx = i
	}
	return topics, parts, nil
}

// listedOffsets are the offsets of a read's partitions, as listed: the log
// start (low), the end (high: the last stable offset under read_committed,
// the high watermark under read_uncommitted) and, under read_committed,
// the high watermark (hwm), with the instant the end was listed.
type listedOffsets struct {
	low, high, hwm kadm.ListedOffsets
	listedAt       time.Time
}

// listOffsets lists the offsets of topics' partitions.
func (s *kafkaSource) listOffsets(ctx context.Context, adm *kadm.Client, topics []string) (listedOffsets, error) {
	var lo listedOffsets
	var err error
	lo.low, err = adm.ListStartOffsets(ctx, topics...)
	if err == nil {
		err = lo.low.Error()
	}
	if err != nil {
		return lo, s.listFailed(ctx, "list the start offsets", err)
	}
	if s.isolation == ReadCommitted {
		lo.high, err = adm.ListCommittedOffsets(ctx, topics...) // the last stable offsets
	} else {
		lo.high, err = adm.ListEndOffsets(ctx, topics...) // the high watermarks
	}
	lo.listedAt = time.Now().UTC()
	if err == nil {
		err = lo.high.Error()
	}
	if err != nil {
		return lo, s.listFailed(ctx, "list the end offsets", err)
	}
	// Under read_committed the high watermarks too, listed after the last
	// stable offsets, so the evidence shows what an open transaction held
	// back (never more than was there when the end was fixed).
	if s.isolation == ReadCommitted {
		if lo.hwm, err = adm.ListEndOffsets(ctx, topics...); err == nil {
			err = lo.hwm.Error()
		}
		if err != nil {
			return lo, s.listFailed(ctx, "list the high watermarks", err)
		}
	}
	return lo, nil
}

// bound returns the offset of each partition of parts that option which
// (start or end), b, gives: def's for earliest or latest, the first offset
// at or after an instant, or the offset named. Errors (ErrInvalidLocation)
// name a partition without an offset or an offset for a partition the read
// does not have.
func (s *kafkaSource) bound(ctx context.Context, adm *kadm.Client, b kafkaBound, which string, def kadm.ListedOffsets, topics []string, parts []*kafkaPart) (map[partitionRef]int64, error) {
	out := map[partitionRef]int64{}
	if len(topics) > 1 {
		for ref := range b.offsets {
			if ref.Topic == "" {
				return nil, fmt.Errorf("%w: %s: option %s: offsets without a topic, but topic_regex matches %s; write topic:partition:offset", sources.ErrInvalidLocation, s.uri, which, strings.Join(topics, ", "))
			}
		}
	}
	var at kadm.ListedOffsets
	if b.at != nil {
		var err error
		at, err = adm.ListOffsetsAfterMilli(ctx, b.at.UnixMilli(), topics...)
		if err == nil {
			err = at.Error()
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s: list the offsets after %s: %w", ErrRead, s.uri, b.text, err)
		}
	}
	named := map[partitionRef]bool{}
	for _, p := range parts {
		var off int64
		switch {
		case b.edge:
			lo, _ := def.Lookup(p.ref.Topic, p.ref.Partition)
			off = lo.Offset
		case b.at != nil:
			lo, _ := at.Lookup(p.ref.Topic, p.ref.Partition)
			off = lo.Offset
		default:
			n, ok := b.offsets[p.ref]
			if !ok {
				n, ok = b.offsets[partitionRef{"", p.ref.Partition}]
				named[partitionRef{"", p.ref.Partition}] = ok
			} else {
				named[p.ref] = true
			}
			if !ok {
				return nil, fmt.Errorf("%w: %s: option %s names no offset for partition %s; name every partition (or use %s)", sources.ErrInvalidLocation, s.uri, which, p.ref.file(), map[string]string{"start": "earliest", "end": "latest"}[which])
			}
			off = n
		}
		out[p.ref] = off
	}
	for ref := range b.offsets {
		if !named[ref] {
			return nil, fmt.Errorf("%w: %s: option %s names partition %s:%d, which the read does not have", sources.ErrInvalidLocation, s.uri, which, ref.Topic, ref.Partition)
		}
	}
	return out, nil
}

// setBounds sets p's start and end offsets from the options' start and
// end, checked against the listed offsets lo: the start not before the log
// start, the end not past the listed end, the start not after the end
// (ErrInvalidLocation otherwise).
func (s *kafkaSource) setBounds(p *kafkaPart, lo listedOffsets, start, end int64) error {
	low, _ := lo.low.Lookup(p.ref.Topic, p.ref.Partition)
	hi, _ := lo.high.Lookup(p.ref.Topic, p.ref.Partition)
	p.start, p.end = start, end
	if s.end.at != nil && p.end > hi.Offset {
		p.end = hi.Offset // a time past the last stable offset: read to it
	}
	if s.start.at != nil && p.start > p.end {
		p.start = p.end // no record at or after the instant below the end: none to read
	}
	switch {
	case p.start < low.Offset:
		return fmt.Errorf("%w: %s: %s: start offset %d is before the log start %d: the records before it were deleted (retention), so this snapshot can no longer be read", sources.ErrInvalidLocation, s.uri, p.ref.file(), p.start, low.Offset)
	case p.end > hi.Offset:
		limit := "last stable offset (read_committed)"
		if s.isolation == ReadUncommitted {
			limit = "high watermark"
		}
		return fmt.Errorf("%w: %s: %s: end offset %d is past the %s %d", sources.ErrInvalidLocation, s.uri, p.ref.file(), p.end, limit, hi.Offset)
	case p.start > p.end:
		return fmt.Errorf("%w: %s: %s: start offset %d is after the end offset %d", sources.ErrInvalidLocation, s.uri, p.ref.file(), p.start, p.end)
	}
	p.next = p.start
	p.hwm = -1
	if h, ok := lo.hwm.Lookup(p.ref.Topic, p.ref.Partition); ok {
		p.hwm = h.Offset
	}
	return nil
}
