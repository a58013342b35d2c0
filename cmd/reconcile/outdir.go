package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/reconcile-dev/reconcile/internal/lock"
)

// lockError is err, lock.Acquire's for control's evidence folder out, in the
// user's terms when the lock file beside out could not be made (a folder
// that cannot be written or created): the evidence folder cannot be
// created there, with the system's reason (permission denied, not a
// directory). A lock held by another run (lock.ErrHeld) or a foreign file
// (lock.ErrForeign) is returned as is.
func lockError(out, control string, err error) error {
	if errors.Is(err, lock.ErrHeld) || errors.Is(err, lock.ErrForeign) {
		return err
	}
	var reason error
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		reason = pe.Err
	case errors.As(err, &le):
		reason = le.Err
	default:
		return err
	}
	clean := filepath.Clean(out)
	return fmt.Errorf("cannot create the evidence folder %s in %s: %w (its lock file %s could not be made there; choose an --out, or out:, in a folder you can write)",
		filepath.Base(clean), filepath.Dir(clean), reason, filepath.Base(lock.Path(out, control)))
}
