// Package all registers every input kind of reconcile with package
// sources, as a program that reads inputs of any kind needs: it imports
// each kind's package for its init function, in the manner of a
// database/sql driver import.
//
//	import _ "github.com/reconcile-dev/reconcile/sources/all"
//
// The command (cmd/reconcile) imports it, and so does every test that
// runs controls or loads inputs of several kinds; package sources itself
// registers none. A new kind is added here.
package all

import (
	_ "github.com/reconcile-dev/reconcile/sources/file"     // csv (tsv, txt), ndjson (jsonl), parquet (pq)
	_ "github.com/reconcile-dev/reconcile/sources/iceberg"  // iceberg, iceberg+sql
	_ "github.com/reconcile-dev/reconcile/sources/kafka"    // kafka, kcat (kafkacat)
	_ "github.com/reconcile-dev/reconcile/sources/mysql"    // mysql, mariadb
	_ "github.com/reconcile-dev/reconcile/sources/postgres" // postgres, postgresql
)
