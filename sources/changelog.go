package sources

// ChangeLog describes an input whose records are the changes of a table —
// the rows each commit inserted and deleted, in commit order — so that the
// loader can look for a key inserted while an earlier insert of it is
// still live (no delete of the key between them): a row the table holds
// twice, the signature of a checkpoint committed again into an upsert
// sink. Each finding is an exception of the input's commit history
// (Input.CommitHistory, checked by commit_history).
type ChangeLog struct {
	// Key are the columns of a row's key (an Iceberg table's equality
	// delete columns), as the records name them.
	Key []string
	// Change is the column holding "insert" or "delete". DeleteKind is the
	// column saying how a delete deletes: DeleteAll (a delete by key:
	// every live row of the key) or another value (a delete of one row,
	// whose key values it holds).
	Change, DeleteKind, DeleteAll string
	// Commit and Checkpoint are the columns naming a change's commit and
	// the checkpoint it committed (Checkpoint "" when there is none).
	Commit, Checkpoint string
}
