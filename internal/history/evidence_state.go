package history

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

// Evidence states of a recorded run's folder (EvidenceState).
const (
	// EvidenceInPlace: the folder's manifest.json is the one the run
	// published, and every file is as it lists.
	EvidenceInPlace = "in place"
	// EvidenceReplaced: the folder holds another run's manifest.json — a
	// later run wrote its evidence there (run --force, or a control whose
	// out: names no date); the run's own evidence is gone.
	EvidenceReplaced = "replaced"
	// EvidenceChanged: a file of the folder differs from what the run
	// published (a report edited, an exceptions file removed, a file
	// added), or its manifest.json names the run but is not the one it
	// published.
	EvidenceChanged = "changed"
	// EvidenceMissing: the folder or its manifest.json is not there (moved
	// or removed).
	EvidenceMissing = "missing"
	// EvidenceUnreadable: the manifest.json is there but cannot be read
	// (permissions, or not a file).
	EvidenceUnreadable = "unreadable"
)

// EvidenceState says whether r's evidence folder still holds the evidence
// r published: by the SHA-256 of its manifest.json and, when that is the
// one recorded, by every file against the manifest (evidence.Verify: each
// file's size and SHA-256, none missing, none added, the signature as the
// manifest says); when the manifest differs, by the run id it names.
// EvidenceInPlace, EvidenceReplaced (why: the run it holds),
// EvidenceChanged (why: what changed), EvidenceMissing or
// EvidenceUnreadable (why: the error). A folder is one run's business: no
// state is an error of the listing.
func EvidenceState(ctx context.Context, r *RunRecord) (state, why string) {
	b, err := os.ReadFile(filepath.Join(r.Evidence, evidence.ManifestFile))
	switch {
	case errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return EvidenceMissing, ""
	case err != nil:
		return EvidenceUnreadable, err.Error()
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) == r.ManifestSHA {
		v, err := evidence.Verify(ctx, r.Evidence, nil)
		if err != nil {
			return EvidenceUnreadable, err.Error()
		}
		if v.OK() {
			return EvidenceInPlace, ""
		}
		var what []string
		for _, l := range []struct {
			files []string
			how   string
		}{{v.Changed, "changed"}, {v.Missing, "missing"}, {v.Added, "added"}} {
			for _, f := range l.files {
				what = append(what, f+" "+l.how)
			}
		}
		if len(what) == 0 {
			what = append(what, "manifest.sig "+v.Signature)
		}
		return EvidenceChanged, strings.Join(what, ", ")
	}
	var m struct {
		RunID string `json:"run_id"`
	}
	if json.Unmarshal(b, &m) == nil && m.RunID != "" && m.RunID != r.ID {
		return EvidenceReplaced, "it holds run " + m.RunID
	}
	return EvidenceChanged, "its manifest.json is not the one recorded"
}
