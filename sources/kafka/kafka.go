package kafka

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/reconcile-dev/reconcile/sources"
)

func init() {
	sources.Register("kafka", openKafka)
}

// Isolation levels of a Kafka read (the isolation: option).
const (
	ReadCommitted   = "read_committed"
	ReadUncommitted = "read_uncommitted"
	// IsolationUnknown is a kcat dump's level when the user does not
	// declare it.
	IsolationUnknown = "unknown"
)

// kafkaSource reads a bounded snapshot of Kafka topics with
// github.com/twmb/franz-go (see the package doc).
type kafkaSource struct {
	loc       sources.Location
	uri       string // as given, password removed
	brokers   []string
	topics    []string
	topicRE   *regexp.Regexp
	isolation string
	start     kafkaBound
	end       kafkaBound
	rec       recordOptions

	saslMech, saslUser, saslPass, saslPassEnv string
	tls                                       bool
	tlsCA, tlsCert, tlsKey, tlsServer         string

	client *kgo.Client
	spools []*spool
}

// openKafka parses a kafka:// URI and the options (its URI parameters
// among them) without doing any I/O (see the package doc).
func openKafka(loc sources.Location) (sources.Source, error) {
	s := &kafkaSource{loc: loc, uri: sources.Redact(loc.URI)}
	u, err := s.parseURI(loc)
	if err != nil {
		return nil, err
	}
	o := sources.NewOptions("kafka", u.opts)
	s.readOptions(o, u)
	if err := o.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", s.uri, err)
	}
	for _, b := range []kafkaBound{s.start, s.end} {
		for p := range b.offsets {
			if p.Topic == "" && len(s.topics) > 1 {
				return nil, fmt.Errorf("%w: %s: offsets without a topic need exactly one topic; write topic:partition:offset", sources.ErrInvalidLocation, s.uri)
			}
		}
	}
	return s, nil
}

// kafkaURI is what a kafka:// URI gives besides its brokers and topics:
// the user and password of its user info, and the options, the
// location's and the URI parameters together.
type kafkaURI struct {
	user, pass string
	hasPass    bool
	opts       map[string]any
}

// parseURI reads the brokers and topics of loc's kafka:// URI into s and
// returns the rest. Errors wrap sources.ErrInvalidLocation.
func (s *kafkaSource) parseURI(loc sources.Location) (kafkaURI, error) {
	var u kafkaURI
	rest, ok := strings.CutPrefix(loc.URI, "kafka://")
	if !ok {
		return u, fmt.Errorf("%w: %q: want kafka://broker:9092[,broker2:9092]/topic[,topic2]", sources.ErrInvalidLocation, s.uri)
	}
	var query string
	rest, query, _ = strings.Cut(rest, "?")
	authority, path, _ := strings.Cut(rest, "/")
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		info := authority[:at]
		authority = authority[at+1:]
		user, pass, has := strings.Cut(info, ":")
		var err1, err2 error
		u.user, err1 = url.PathUnescape(user)
		u.pass, err2 = url.PathUnescape(pass)
		if err1 != nil || err2 != nil {
			return u, fmt.Errorf("%w: %s: the user or password is not URI-encoded", sources.ErrInvalidLocation, s.uri)
		}
		u.hasPass = has
	}
	for b := range strings.SplitSeq(authority, ",") {
		b = strings.TrimSpace(b)
		if b == "" {
			continue
		}
		if !strings.Contains(b, ":") {
			b += ":9092"
		}
		s.brokers = append(s.brokers, b)
	}
	if len(s.brokers) == 0 {
		return u, fmt.Errorf("%w: %s: no broker (kafka://broker:9092/topic)", sources.ErrInvalidLocation, s.uri)
	}
	path, err := url.PathUnescape(path)
	if err != nil {
		return u, fmt.Errorf("%w: %s: topic: %w", sources.ErrInvalidLocation, s.uri, err)
	}
	for t := range strings.SplitSeq(path, ",") {
		if t = strings.TrimSpace(t); t != "" {
			s.topics = append(s.topics, t)
		}
	}
	// URI parameters are options too (?isolation=read_uncommitted); one
	// given both ways is an error.
	u.opts = map[string]any{}
	for k, v := range loc.Options {
		u.opts[k] = v
	}
	if query != "" {
		q, err := url.ParseQuery(query)
		if err != nil {
			return u, fmt.Errorf("%w: %s: parameters: %w", sources.ErrInvalidLocation, s.uri, err)
		}
		for k, vs := range q {
			if _, dup := u.opts[k]; dup || len(vs) > 1 {
				return u, fmt.Errorf("%w: %s: option %s given twice", sources.ErrInvalidLocation, s.uri, k)
			}
			u.opts[k] = vs[0]
		}
	}
	return u, nil
}

// readOptions reads the options of a kafka location into s; a malformed
// one is reported by o.Err.
func (s *kafkaSource) readOptions(o *sources.Options, u kafkaURI) {
	s.isolation = o.String("isolation", ReadCommitted)
	if s.isolation != ReadCommitted && s.isolation != ReadUncommitted {
		o.Fail(fmt.Errorf("option isolation: %q: want read_committed or read_uncommitted", s.isolation))
	}
	if re := o.String("topic_regex", ""); re != "" {
		if len(s.topics) > 0 {
			o.Fail(errors.New("option topic_regex: give topics in the URI or a regex, not both"))
		}
		rx, err := regexp.Compile("^(?:" + re + ")$")
		if err != nil {
			o.Fail(fmt.Errorf("option topic_regex: %w", err))
		}
		s.topicRE = rx
	} else if len(s.topics) == 0 {
		o.Fail(errors.New("no topic: kafka://broker:9092/topic, several as /t1,t2, or the option topic_regex"))
	}
	s.start = kafkaBoundOption(o, "start", "earliest")
	s.end = kafkaBoundOption(o, "end", "latest")
	s.rec = readRecordOptions(o)
	s.readAuth(o, u)
}

// readAuth reads the SASL and TLS options into s.
func (s *kafkaSource) readAuth(o *sources.Options, u kafkaURI) {
	user := u.user
	s.saslMech = strings.ToUpper(o.String("sasl_mechanism", ""))
	s.saslUser = o.String("sasl_user", user)
	s.saslPass = o.String("sasl_password", u.pass)
	s.saslPassEnv = o.String("sasl_password_env", "")
	if s.saslUser != user && user != "" {
		o.Fail(errors.New("option sasl_user: the URI names a user too"))
	}
	if u.hasPass && (u.opts["sasl_password"] != nil || s.saslPassEnv != "") || u.opts["sasl_password"] != nil && s.saslPassEnv != "" {
		o.Fail(errors.New("the SASL password is given more than once (URI, sasl_password, sasl_password_env)"))
	}
	switch s.saslMech {
	case "":
		if s.saslUser != "" || s.saslPass != "" || s.saslPassEnv != "" {
			o.Fail(errors.New("a SASL user or password needs sasl_mechanism: PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512"))
		}
	case "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512":
		if s.saslUser == "" {
			o.Fail(fmt.Errorf("sasl_mechanism %s needs a user (kafka://user@broker/… or sasl_user)", s.saslMech))
		}
	default:
		o.Fail(fmt.Errorf("option sasl_mechanism: %q: want PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512", s.saslMech))
	}
	s.tlsCA = o.String("tls_ca_file", "")
	s.tlsCert = o.String("tls_cert_file", "")
	s.tlsKey = o.String("tls_key_file", "")
	s.tlsServer = o.String("tls_server_name", "")
	s.tls = o.Bool("tls", s.tlsCA != "" || s.tlsCert != "" || s.tlsServer != "")
	if (s.tlsCert == "") != (s.tlsKey == "") {
		o.Fail(errors.New("options tls_cert_file and tls_key_file go together"))
	}
}

func (s *kafkaSource) Close() error {
	for _, sp := range s.spools {
		sp.close()
	}
	s.spools = nil
	if s.client != nil {
		s.client.Close()
		s.client = nil
	}
	return nil
}

// connect makes the franz-go client: seed brokers, SASL, TLS.
func (s *kafkaSource) connect() (*kgo.Client, error) {
	opts := []kgo.Opt{kgo.SeedBrokers(s.brokers...), kgo.ClientID("reconcile"), kgo.RequestRetries(5)}
	if s.saslMech != "" {
		pass := s.saslPass
		if s.saslPassEnv != "" {
			v, ok := os.LookupEnv(s.saslPassEnv)
			if !ok {
				return nil, fmt.Errorf("%w: %s: sasl_password_env names %s, which is not set", sources.ErrInvalidLocation, s.uri, s.saslPassEnv)
			}
			pass = v
		}
		var m sasl.Mechanism
		switch s.saslMech {
		case "PLAIN":
			m = plain.Auth{User: s.saslUser, Pass: pass}.AsMechanism()
		case "SCRAM-SHA-256":
			m = scram.Auth{User: s.saslUser, Pass: pass}.AsSha256Mechanism()
		case "SCRAM-SHA-512":
			m = scram.Auth{User: s.saslUser, Pass: pass}.AsSha512Mechanism()
		}
		opts = append(opts, kgo.SASL(m))
	}
	if s.tls {
		cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: s.tlsServer}
		if s.tlsCA != "" {
			pem, err := os.ReadFile(s.path(s.tlsCA))
			if err != nil {
				return nil, fmt.Errorf("%w: tls_ca_file: %w", sources.ErrInvalidLocation, err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("%w: tls_ca_file %s: no PEM certificate", sources.ErrInvalidLocation, s.tlsCA)
			}
			cfg.RootCAs = pool
		}
		if s.tlsCert != "" {
			c, err := tls.LoadX509KeyPair(s.path(s.tlsCert), s.path(s.tlsKey))
			if err != nil {
				return nil, fmt.Errorf("%w: tls_cert_file/tls_key_file: %w", sources.ErrInvalidLocation, err)
			}
			cfg.Certificates = []tls.Certificate{c}
		}
		opts = append(opts, kgo.DialTLSConfig(cfg))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", sources.ErrInvalidLocation, s.uri, err)
	}
	return cl, nil
}

func (s *kafkaSource) path(p string) string {
	if p == "" || s.loc.BaseDir == "" || strings.HasPrefix(p, "/") {
		return p
	}
	return s.loc.BaseDir + "/" + p
}

// Read lists the partitions and their start and end offsets (the
// snapshot), fetches every record in [start, end) of each partition once,
// decoding it into the spool, and returns the records read back from the
// spool with every column known. Errors: ErrInvalidLocation (a topic or
// offset that does not exist, offsets out of range), ErrRead (the
// cluster), ErrRecord (a record that does not decode).
func (s *kafkaSource) Read(ctx context.Context) (*sources.Input, array.RecordReader, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	cl, err := s.connect()
	if err != nil {
		return nil, nil, err
	}
	s.client = cl
	parts, listedAt, err := s.snapshot(ctx, kadm.NewClient(cl))
	if err != nil {
		return nil, nil, err
	}
	// One decoder per core, each owning the partitions i, i+n, … and a
	// spool of its own, so decoding keeps up with the fetch and each
	// partition's records stay in offset order.
	cols := newKafkaColumns()
	nw := max(1, min(runtime.GOMAXPROCS(0), len(parts)))
	decs := make([]*recordDecoder, nw)
	chans := make([]chan fetched, nw)
	errs := make([]error, nw)
	mem := newSpoolMemory()
	for i := range nw {
		s.spools = append(s.spools, newSpool(mem))
		decs[i] = newRecordDecoder(s.rec, cols)
		chans[i] = make(chan fetched, 4)
	}
	prog := sources.NewProgress(s.loc.Progress, "fetching "+s.loc.Role+" "+s.uri)
	wctx, wcancel := context.WithCancel(ctx)
	defer wcancel()
	var wg sync.WaitGroup
	for i := range nw {
		wg.Add(1)
		go func() {
			defer wg.Done()
			arena := &fetchArena{}
			dc := kgo.DefaultDecompressor(arena)
			for f := range chans[i] {
				if errs[i] != nil {
					continue
				}
				recs, err := s.records(f, dc, arena)
				if err == nil {
					var n int
					n, err = decs[i].decodeChunk(s.spools[i], f.part.ref, recs)
					f.part.rows += int64(n)
					f.part.bad += int64(len(recs) - n)
					prog.Add(int64(len(recs)))
				}
				arena.reset()
				if err != nil {
					errs[i] = err
					wcancel()
				}
			}
		}()
	}
	err = s.fetch(wctx, cl, parts, func(f fetched) error {
		select {
		case chans[f.part.idx%nw] <- f:
			return nil
		case <-wctx.Done():
			return wctx.Err()
		}
	})
	for _, ch := range chans {
		close(ch)
	}
	wg.Wait()
	// A decoding error explains a cancelled fetch: report the one of the
	// first partition (so the message does not depend on timing).
	for _, p := range parts {
		if e := errs[p.idx%nw]; e != nil && ctx.Err() == nil {
			err = e
			break
		}
	}
	if err != nil {
		prog.Abort()
		return nil, nil, err
	}
	prog.Done()
	in := s.input(parts, listedAt, decs, cols)
	refs := make([]partitionRef, len(parts))
	for i, p := range parts {
		refs[i] = p.ref
	}
	rr, err := spooledRecords(ctx, s.spools, decs, cols, refs, sources.ReadOptions{Progress: s.loc.Progress, Label: "reading " + s.loc.Role + " " + s.uri})
	if err != nil {
		return nil, nil, err
	}
	return in, rr, nil
}

// input describes the read for the evidence: Details are the "as of" of
// the topics (see the package doc).
func (s *kafkaSource) input(parts []*kafkaPart, listedAt time.Time, decs []*recordDecoder, cols *kafkaColumns) *sources.Input {
	in := &sources.Input{Role: s.loc.Role, Kind: "kafka", Location: s.uri, Declared: s.rec.declared, LocationForm: sources.LocationOffset}
	var topics, offsets, heldBack []string
	var ps []map[string]any
	for _, p := range parts {
		if !slices.Contains(topics, p.ref.Topic) {
			topics = append(topics, p.ref.Topic)
		}
		offsets = append(offsets, fmt.Sprintf("%s %d..%d", p.ref.file(), p.start, p.end))
		ps = append(ps, map[string]any{
			"topic": p.ref.Topic, "partition": p.ref.Partition,
			"start_offset": p.start, "end_offset": p.end,
			"records": p.rows, "bad_records": p.bad,
			// commit and abort markers, aborted records (read_committed),
			// compacted records: offsets that are not records, never
			// missing ones
			"offsets_without_record": p.end - p.start - p.rows - p.bad,
		})
		if p.hwm >= 0 {
			ps[len(ps)-1]["high_watermark"] = p.hwm
			if s.end.edge && p.hwm > p.end {
				heldBack = append(heldBack, fmt.Sprintf("%s %d..%d", p.ref.file(), p.end, p.hwm))
			}
		}
	}
	if len(heldBack) > 0 {
		in.Notes = append(in.Notes, fmt.Sprintf("WARNING: %s read to the last stable offset: a transaction was still open when the offsets were listed, and the records from its first offset on — its own and any written after it, committed or not, which read_committed consumers do not see yet either — are not read (a run once it is decided reads them): %s", s.loc.Role, strings.Join(heldBack, ", ")))
	}
	d := map[string]any{
		"brokers":           s.brokers,
		"topics":            topics,
		"isolation_level":   s.isolation,
		"offsets_listed_at": listedAt.Format(time.RFC3339Nano),
		"start":             s.start.text,
		"end":               s.end.text,
		"value":             string(s.rec.value),
		"key":               string(s.rec.key),
		"location_form":     sources.LocationOffset,
		"partitions":        ps,
		"offsets":           strings.Join(offsets, ", "),
		"tls":               s.tls,
	}
	if s.saslMech != "" {
		d["sasl_mechanism"] = s.saslMech
		d["sasl_user"] = s.saslUser
	}
	if s.isolation == ReadUncommitted {
		note := s.loc.Role + " read with isolation read_uncommitted: records of aborted transactions (a transactional producer's writes rolled back on failover) are counted as if committed, so they can show as duplicates or unexpected ids; read_committed reads what consumers of committed data see"
		d["isolation_note"] = note
		in.Notes = append(in.Notes, "WARNING: "+note)
	}
	in.Details = d
	fillRecordInput(in, s.rec, decs, cols)
	return in
}

// fillRecordInput sets what the kafka and kcat kinds both report: the bad
// records (bad_records: report) and the provenance columns.
func fillRecordInput(in *sources.Input, rec recordOptions, decs []*recordDecoder, cols *kafkaColumns) {
	in.ReportsBadRecords = rec.report
	if rec.report {
		in.BadRecords = badRecords(decs)
		in.Details["bad_records"] = len(in.BadRecords)
	}
	in.Provenance = []string{PartitionColumn, OffsetColumn, TimestampColumn}
	var repeated []string
	for i, n := range cols.names {
		switch cols.owner[i] {
		case ownHeader:
			in.Provenance = append(in.Provenance, n)
		case ownHeaderList:
			repeated = append(repeated, strings.TrimPrefix(n[1:], HeaderPrefix))
		}
	}
	slices.Sort(in.Provenance)
	if len(repeated) > 0 {
		// a header some record gives more than once: its column holds
		// JSON arrays (HeaderPrefix)
		slices.Sort(repeated)
		in.Details["repeated_headers"] = repeated
	}
}
