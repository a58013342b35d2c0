// Package trino runs reconcile's checks inside a Trino cluster, where the
// warehouse's tables already are: the inputs are Trino tables
// (trino:catalog.schema.table), each check is rendered in Trino's dialect
// (queries/trino) with the inputs as the relations source and sink, and
// only the exception rows and the totals travel back, streamed as Arrow
// record batches into the run's embedded DuckDB session, from which the
// evidence is written exactly as for an embedded run.
//
// An Engine is a checks.Remote: one Trino session (time zone UTC,
// decimal literals as DECIMAL, the JDBC catalogs' decimal mapping strict),
// the inputs it reads (Input: pinned to an Iceberg snapshot where the
// connector allows, fingerprinted otherwise) and the dialect. What has no
// exact form in Trino is refused before any check runs (Prepare), never
// approximated; a check without a Trino statement is listed as not run.
//
// The cluster for tests and development is .ci/trino (make trino).
package trino

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/trinodb/trino-go-client/trino"

	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/queries"
)

// ErrEngine is wrapped by every error about the engine URI or the
// cluster's reach (a usage error, exit 2, for a malformed URI; a runtime
// error, exit 3, for a cluster that does not answer: ErrUnreachable).
var (
	ErrEngine      = fault.Usage.New("trino: invalid engine")
	ErrUnreachable = fault.Runtime.New("trino: cluster not reachable")
	// ErrRefused is wrapped by the error of a spec, an input or a check
	// option that has no exact form in Trino (exit 2): it names what is
	// refused and why.
	ErrRefused = fault.Usage.New("trino: refused")
	// ErrChanged is wrapped when an input that cannot be pinned changed
	// while the run read it (its fingerprint after the checks differs
	// from the one before): the exceptions may mix two states (exit 3).
	ErrChanged = fault.Runtime.New("trino: input changed during the run")
)

// Scheme is the scheme of an engine URI: trino://user@host:port
// (plain HTTP) or trinos://user@host:port (HTTPS).
const Scheme = "trino"

// Node is one node of the cluster as system.runtime.nodes lists it.
type Node struct {
	ID          string `json:"node_id"`
	URI         string `json:"http_uri"`
	Version     string `json:"node_version"`
	Coordinator bool   `json:"coordinator"`
	State       string `json:"state"`
}

// Query is one statement the engine ran: Trino's query id and the SQL as
// sent (the inputs' definitions included).
type Query struct {
	ID  string
	SQL string
}

// Engine is one Trino session: a database/sql handle on the coordinator
// (one connection, so every statement runs with the same session), the
// inputs as the relations source and sink (SetInputs), and the queries run.
type Engine struct {
	uri  string // as given, without a password
	db   *sql.DB
	conn *sql.Conn
	// inputs are the relations the statements read as source and sink
	// (Input.cte), prepended to every statement that names them.
	inputs []*Input
	// nullAs maps each key column to the literal of its type that stands
	// for NULL in the NULL-safe equi-joins (renderData.Match; Prepare).
	nullAs map[string]string
	// emptyNull are the text id and group columns whose empty text both
	// inputs read as NULL (Prepare; renderData.Match).
	emptyNull map[string]bool
	mu        sync.Mutex
	ran       []Query
	sent      map[string]Query
	// last is the query id of the statement running or last run.
	last string
}

// ParseURI checks an engine URI (trino://user@host:port, trinos:// for
// HTTPS) and returns the coordinator's server URI for the driver. The user
// is required (Trino attributes queries to it); a password only over
// trinos://. Errors wrap ErrEngine.
func ParseURI(uri string) (server string, err error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", fmt.Errorf("%w: %q: %w", ErrEngine, redact(uri), err)
	}
	var scheme string
	switch u.Scheme {
	case "trino":
		scheme = "http"
	case "trinos":
		scheme = "https"
	default:
		return "", fmt.Errorf("%w: %q: want trino://user@host:port (or trinos:// for HTTPS)", ErrEngine, redact(uri))
	}
	if u.Host == "" || u.User == nil || u.User.Username() == "" {
		return "", fmt.Errorf("%w: %q: want trino://user@host:port: the user Trino runs the queries as, and the coordinator's host and port", ErrEngine, redact(uri))
	}
	if u.Port() == "" {
		return "", fmt.Errorf("%w: %q: want trino://user@host:port: give the coordinator's port (no default is assumed)", ErrEngine, redact(uri))
	}
	if _, ok := u.User.Password(); ok && scheme == "http" {
		return "", fmt.Errorf("%w: %q: a password is sent only over HTTPS: use trinos://", ErrEngine, redact(uri))
	}
	if strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("%w: %q: no path or parameters: name the inputs' tables as trino:catalog.schema.table", ErrEngine, redact(uri))
	}
	out := url.URL{Scheme: scheme, User: u.User, Host: u.Host}
	return out.String(), nil
}

// IsURI reports whether s is an engine URI of this package (its scheme).
func IsURI(s string) bool {
	return strings.HasPrefix(s, "trino://") || strings.HasPrefix(s, "trinos://")
}

func redact(uri string) string {
	if u, err := url.Parse(uri); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
			return u.String()
		}
	}
	return uri
}

// Open connects to the cluster uri names (ParseURI) and pins the session:
// time zone UTC, whatever the host's, so that no result depends on where
// reconcile runs. It fails with ErrUnreachable when the coordinator does
// not answer or has no active worker.
func Open(ctx context.Context, uri string) (*Engine, error) {
	server, err := ParseURI(uri)
	if err != nil {
		return nil, err
	}
	cfg := &trino.Config{ServerURI: server, TimeZone: "UTC", Source: "reconcile", DisableExplicitPrepare: true}
	connector, err := trino.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEngine, err)
	}
	db := sql.OpenDB(connector)
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("%w at %s: %w", ErrUnreachable, redact(uri), err)
	}
	e := &Engine{uri: redact(uri), db: db, conn: conn}
	nodes, err := e.Nodes(ctx)
	if err != nil {
		e.Close()
		return nil, fmt.Errorf("%w at %s: %w", ErrUnreachable, redact(uri), err)
	}
	workers := 0
	for _, n := range nodes {
		if !n.Coordinator && n.State == "active" {
			workers++
		}
	}
	if workers == 0 && len(nodes) > 1 {
		e.Close()
		return nil, fmt.Errorf("%w at %s: no active worker (%d nodes)", ErrUnreachable, redact(uri), len(nodes))
	}
	return e, nil
}

// Close releases the connection.
func (e *Engine) Close() error {
	var errs []error
	if e.conn != nil {
		errs = append(errs, e.conn.Close())
	}
	errs = append(errs, e.db.Close())
	return errors.Join(errs...)
}

// URI is the engine URI, a password replaced by xxxxx.
func (e *Engine) URI() string { return e.uri }

// Dialect is "trino" (checks.Engine).
func (e *Engine) Dialect() string { return "trino" }

// Queries are the statements run so far, in order, with their query ids.
func (e *Engine) Queries() []Query {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Query(nil), e.ran...)
}

// LastQueryID is the query id of the statement run last ("" before any).
func (e *Engine) LastQueryID() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.last
}

// progress records the query id of the statement running (the driver's
// progress callback, called as the query starts).
type progress struct {
	e *Engine
	// sql is the statement as sent, orig as the caller gave it.
	sql, orig string
	got       bool
}

func (p *progress) Update(info trino.QueryProgressInfo) {
	if p.got || info.QueryId == "" {
		return
	}
	p.got = true
	p.e.mu.Lock()
	defer p.e.mu.Unlock()
	p.e.last = info.QueryId
	q := Query{ID: info.QueryId, SQL: p.sql}
	p.e.ran = append(p.e.ran, q)
	if p.e.sent == nil {
		p.e.sent = map[string]Query{}
	}
	p.e.sent[p.orig] = q
}

// callback returns the driver's named arguments that report the query id
// of statement q, sent as sent (recorded in Queries and Sent).
func (e *Engine) callback(q string, sent ...string) []any {
	s := q
	if len(sent) > 0 {
		s = sent[0]
	}
	return []any{
		sql.Named("X-Trino-Progress-Callback", trino.ProgressUpdater(&progress{e: e, sql: s, orig: q})),
		sql.Named("X-Trino-Progress-Callback-Period", time.Hour),
	}
}

// starting forgets the query id of the statement before, as a statement
// starts: one that fails before Trino gives it an id has none.
func (e *Engine) starting() {
	e.mu.Lock()
	e.last = ""
	e.mu.Unlock()
}

// Sent is the last run of statement query as the caller gave it (a
// check's rendered statement): its query id and the SQL as sent, the
// inputs' definitions included.
func (e *Engine) Sent(query string) (Query, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	q, ok := e.sent[query]
	return q, ok
}

// Exec runs one statement that returns no rows (with the inputs'
// definitions when it reads them). args are not supported: every value of
// reconcile's statements is rendered in the SQL.
func (e *Engine) Exec(ctx context.Context, query string, args ...any) error {
	if len(args) > 0 {
		return fmt.Errorf("trino: statement arguments are not supported: %s", firstLine(query))
	}
	q := e.withInputs(query)
	e.starting()
	rows, err := e.conn.QueryContext(ctx, q, e.callback(query, q)...)
	if err != nil {
		return e.statementError(query, err)
	}
	for rows.Next() {
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return e.statementError(query, err)
	}
	return rows.Close()
}

// Count runs a query that returns one BIGINT.
func (e *Engine) Count(ctx context.Context, query string, args ...any) (int64, error) {
	_, rows, err := e.Strings(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	if len(rows) != 1 || len(rows[0]) != 1 || rows[0][0] == nil {
		return 0, fmt.Errorf("trino: %s: want one BIGINT, got %d rows", firstLine(query), len(rows))
	}
	var n int64
	if _, err := fmt.Sscan(*rows[0][0], &n); err != nil {
		return 0, fmt.Errorf("trino: %s: %w", firstLine(query), err)
	}
	return n, nil
}

// Strings runs query and returns every row with each value as text (NULL
// as nil): decimals as Trino writes them (their scale kept), integers in
// decimal, booleans true or false. For small results only: it holds them.
func (e *Engine) Strings(ctx context.Context, query string, args ...any) ([]string, [][]*string, error) {
	if len(args) > 0 {
		return nil, nil, fmt.Errorf("trino: statement arguments are not supported: %s", firstLine(query))
	}
	q := e.withInputs(query)
	e.starting()
	rows, err := e.conn.QueryContext(ctx, q, e.callback(query, q)...)
	if err != nil {
		return nil, nil, e.statementError(query, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, nil, e.statementError(query, err)
	}
	var out [][]*string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, nil, e.statementError(query, err)
		}
		row := make([]*string, len(cols))
		for i, v := range vals {
			if v == nil {
				continue
			}
			var s string
			switch v := v.(type) {
			case time.Time:
				s = v.UTC().Format("2006-01-02 15:04:05.999999")
			case []byte:
				s = string(v)
			default:
				s = fmt.Sprint(v)
			}
			row[i] = &s
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, e.statementError(query, err)
	}
	return cols, out, nil
}

// raw runs a statement as written (no inputs' definitions) and returns
// its rows as text: for the engine's own statements (nodes, describe).
func (e *Engine) raw(ctx context.Context, query string) ([]string, [][]*string, error) {
	saved := e.inputs
	e.inputs = nil
	defer func() { e.inputs = saved }()
	return e.Strings(ctx, query)
}

// rawFile renders statement id of queries/trino for data and runs it as
// raw does.
func (e *Engine) rawFile(ctx context.Context, id string, data any) ([][]*string, error) {
	q, err := statements().SQL(id, data)
	if err != nil {
		return nil, err
	}
	_, rows, err := e.raw(ctx, q)
	return rows, err
}

// Nodes lists the cluster's nodes (system.runtime.nodes), by node id.
func (e *Engine) Nodes(ctx context.Context) ([]Node, error) {
	rows, err := e.rawFile(ctx, queries.TrinoNodes, nil)
	if err != nil {
		return nil, err
	}
	var out []Node
	for _, r := range rows {
		n := Node{ID: str(r[0]), URI: str(r[1]), Version: str(r[2]), Coordinator: str(r[3]) == "true", State: str(r[4])}
		out = append(out, n)
	}
	return out, nil
}

// Version is the coordinator's Trino version (SELECT version()).
func (e *Engine) Version(ctx context.Context) (string, error) {
	rows, err := e.rawFile(ctx, queries.TrinoVersion, nil)
	if err != nil {
		return "", err
	}
	if len(rows) != 1 {
		return "", fmt.Errorf("trino: version: %d rows", len(rows))
	}
	return str(rows[0][0]), nil
}

func str(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// overflowName is the error name Trino gives a sum or a cast beyond its
// DECIMAL (NUMERIC_VALUE_OUT_OF_RANGE).
var overflowName = regexp.MustCompile(`NUMERIC_VALUE_OUT_OF_RANGE|[Dd]ecimal overflow`)

// ErrOverflow is in the chain of a statement's error when Trino refused a
// sum or a cast beyond DECIMAL(38,s) (never rounded to fit): a runtime
// error, exit 3, as the embedded engine's overflow is.
var ErrOverflow = fault.Runtime.New("trino: decimal overflow")

// statementError wraps err, the driver's error for query, with the
// statement's first line and Trino's query id.
func (e *Engine) statementError(query string, err error) error {
	id := e.LastQueryID()
	if overflowName.MatchString(err.Error()) {
		err = fmt.Errorf("%w: %w", ErrOverflow, err)
	}
	if id != "" {
		return fmt.Errorf("trino (query %s): %s: %w", id, firstLine(query), err)
	}
	return fmt.Errorf("trino: %s: %w", firstLine(query), err)
}

func firstLine(q string) string {
	q = strings.TrimSpace(q)
	for strings.HasPrefix(q, "--") {
		i := strings.IndexByte(q, '\n')
		if i < 0 {
			break
		}
		q = strings.TrimSpace(q[i+1:])
	}
	if i := strings.IndexByte(q, '\n'); i >= 0 {
		q = q[:i] + " …"
	}
	if len(q) > 120 {
		q = q[:120] + " …"
	}
	return q
}

// statements are the files of queries/trino, read once.
func statements() *queries.Set {
	stmtOnce.Do(func() { stmtSet = queries.MustSet("trino", Funcs()) })
	return stmtSet
}

var (
	stmtOnce sync.Once
	stmtSet  *queries.Set
)
