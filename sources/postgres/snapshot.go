package postgres

import (
	"context"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/reconcile-dev/reconcile/queries"
)

// pgExport is a snapshot the first PostgreSQL input of a run exported
// (pg_export_snapshot()) and keeps, its transaction open, in the run's
// Group until every input is loaded, so that a later input in the same
// database imports it (SET TRANSACTION SNAPSHOT).
type pgExport struct {
	id       string         // the id pg_export_snapshot() returned
	openedBy string         // the role of the input that exported it
	first    map[string]any // that input's Details, told when another imports it
	database string
}

// pgSnapshotKey names, in the run's Group, the snapshot exported on one
// database of one server. "The same server" is the host (or Unix socket
// folder) and port the connection string gives, after the PG* environment
// variables and defaults: two spellings of one server (localhost and
// 127.0.0.1) are two servers here, and read in two snapshots, which the
// evidence then says. PostgreSQL imports a snapshot only into the database
// it was exported from (snapmgr.c, ImportSnapshot: "cannot import a
// snapshot from a different database"), so the database is part of the
// key; the user is not: any role may import an exported snapshot, and each
// input reads with its own role's privileges.
func pgSnapshotKey(cfg *pgx.ConnConfig) string {
	return "postgres snapshot " + pgServerKey(cfg) + " " + strconv.Quote(cfg.Database)
}

// pgServerKey names the server alone, to say why an input on the same
// server but another database has a snapshot of its own.
func pgServerKey(cfg *pgx.ConnConfig) string {
	return "postgres server " + strconv.Quote(cfg.Host) + " " + strconv.Itoa(int(cfg.Port))
}

// pgBegin opens the input's REPEATABLE READ, READ ONLY transaction on conn
// and records its evidence (pgEvidence). When an earlier input of the run
// exported a snapshot in the same database of the same server, the
// transaction imports it first, so both inputs are read as of one
// instant; otherwise, within a run (a Group), it exports its own for a
// later input, and exp is what the caller hands to the Group once its rows
// are read (nil when there is nothing to hand). Details get
// shared_snapshot, shared_snapshot_reason, exported_snapshot and
// snapshot_opened_by or snapshot_shared_with, as for MySQL. An import or
// export the server refuses is not an error: the transaction is begun
// again with a snapshot of its own, and shared_snapshot_reason says why.
func (s *pgSource) pgBegin(ctx context.Context, conn *pgx.Conn, cfg *pgx.ConnConfig) (tx pgx.Tx, details map[string]any, exp *pgExport, err error) {
	begin := func() (pgx.Tx, error) {
		tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
		if err != nil {
			return nil, fmt.Errorf("begin: %w", err)
		}
		return tx, nil
	}
	key := pgSnapshotKey(cfg)
	share := map[string]any{"shared_snapshot": false}
	if v, ok := s.loc.Group.Get(key); ok {
		e := v.(*pgExport)
		if tx, err = begin(); err != nil {
			return nil, nil, nil, err
		}
		q, err := pgSQL(queries.PostgresImportSnapshot, struct{ ID string }{e.id})
		if err != nil {
			return nil, nil, nil, err
		}
		if _, ierr := tx.Exec(ctx, q); ierr != nil {
			// The transaction is aborted: begin one of its own.
			if rerr := tx.Rollback(ctx); rerr != nil {
				return nil, nil, nil, fmt.Errorf("after SET TRANSACTION SNAPSHOT failed (%v): %w", ierr, rerr)
			}
			share["shared_snapshot_reason"] = fmt.Sprintf("the %s exported snapshot %s on this server and database, but importing it failed (%v), so this input has a snapshot of its own, taken after that one", e.openedBy, e.id, ierr)
		} else {
			share = map[string]any{
				"shared_snapshot":        true,
				"shared_snapshot_reason": fmt.Sprintf("read in the snapshot the %s exported (pg_export_snapshot(), imported with SET TRANSACTION SNAPSHOT): both inputs are as of one instant", e.openedBy),
				"exported_snapshot":      e.id,
				"snapshot_opened_by":     e.openedBy,
			}
			if e.first != nil {
				e.first["shared_snapshot"] = true
				e.first["shared_snapshot_reason"] = fmt.Sprintf("the %s was read later in the snapshot this input exported (pg_export_snapshot(), imported with SET TRANSACTION SNAPSHOT): both inputs are as of one instant", s.loc.Role)
				e.first["snapshot_shared_with"] = s.loc.Role
			}
			details, err := pgEvidence(ctx, tx)
			if err != nil {
				return nil, nil, nil, err
			}
			for k, v := range share {
				details[k] = v
			}
			return tx, details, nil, nil
		}
	}
	if tx, err = begin(); err != nil {
		return nil, nil, nil, err
	}
	if details, err = pgEvidence(ctx, tx); err != nil {
		return nil, nil, nil, err
	}
	if _, failed := share["shared_snapshot_reason"]; !failed {
		switch earlier, ok := s.loc.Group.Get(pgServerKey(cfg)); {
		case s.loc.Group == nil:
			share["shared_snapshot_reason"] = "read on its own (no other input of a run to share a snapshot with)"
		case ok:
			share["shared_snapshot_reason"] = fmt.Sprintf("the %s was read on this server in database %s: PostgreSQL imports a snapshot only into the database that exported it, so this input has a snapshot of its own, taken after that one", earlier.(*pgExport).openedBy, earlier.(*pgExport).database)
		}
	}
	if s.loc.Group != nil && share["shared_snapshot_reason"] == nil {
		q, err := pgSQL(queries.PostgresExportSnapshot, nil)
		if err != nil {
			return nil, nil, nil, err
		}
		var id string
		if xerr := tx.QueryRow(ctx, q).Scan(&id); xerr != nil {
			// The transaction is aborted: begin again, without exporting.
			if rerr := tx.Rollback(ctx); rerr != nil {
				return nil, nil, nil, fmt.Errorf("after pg_export_snapshot() failed (%v): %w", xerr, rerr)
			}
			if tx, err = begin(); err != nil {
				return nil, nil, nil, err
			}
			if details, err = pgEvidence(ctx, tx); err != nil {
				return nil, nil, nil, err
			}
			share["shared_snapshot_reason"] = fmt.Sprintf("pg_export_snapshot() failed (%v): a later input on this server cannot share this input's snapshot", xerr)
		} else {
			share["exported_snapshot"] = id
			share["shared_snapshot_reason"] = "no earlier input of the run was read in this database of this server: this input exported its snapshot and keeps its transaction open until the run's inputs are loaded, so that a later input here reads as of the same instant"
			exp = &pgExport{id: id, openedBy: s.loc.Role, first: details, database: cfg.Database}
		}
	}
	for k, v := range share {
		details[k] = v
	}
	return tx, details, exp, nil
}
