package report

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrExists is returned by NewFolder when the evidence folder exists and
// replacing it was not asked for.
var ErrExists = errors.New("report: evidence folder exists")

// Folder is an evidence folder under construction. Files are written into a
// hidden staging folder beside the target (".<name>.incomplete-…"); Commit
// renames it into place in one step, so a folder at the target path is
// always complete. Abort (or a crash) leaves at most the staging folder,
// whose name says it is incomplete.
type Folder struct {
	target  string
	staging string
	replace bool
}

// NewFolder prepares the evidence folder target. It fails with ErrExists if
// target exists and replace is false; with replace, an existing folder is
// swapped out only at Commit.
func NewFolder(target string, replace bool) (*Folder, error) {
	target = filepath.Clean(target)
	if _, err := os.Lstat(target); err == nil && !replace {
		return nil, fmt.Errorf("%w: %s (choose another --out, or --force to replace it)", ErrExists, target)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	parent := filepath.Dir(target)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", parent, err)
	}
	staging, err := mkdirUnique(parent, "."+filepath.Base(target)+".incomplete-")
	if err != nil {
		return nil, fmt.Errorf("create staging folder in %s: %w", parent, err)
	}
	return &Folder{target: target, staging: staging, replace: replace}, nil
}

// Dir is the staging folder to write into.
func (f *Folder) Dir() string { return f.staging }

// Target is the final path of the evidence folder.
func (f *Folder) Target() string { return f.target }

// Path joins name onto the staging folder.
func (f *Folder) Path(name ...string) string {
	return filepath.Join(append([]string{f.staging}, name...)...)
}

// Commit moves the staging folder to the target. With replace, an existing
// target is first renamed aside and removed only after the new folder is in
// place.
func (f *Folder) Commit() error {
	var old string
	if _, err := os.Lstat(f.target); err == nil {
		if !f.replace {
			return fmt.Errorf("%w: %s appeared during the run", ErrExists, f.target)
		}
		old = f.staging + ".old"
		if err := os.Rename(f.target, old); err != nil {
			return fmt.Errorf("move aside %s: %w", f.target, err)
		}
	}
	if err := os.Rename(f.staging, f.target); err != nil {
		if old != "" {
			os.Rename(old, f.target)
		}
		return fmt.Errorf("publish evidence %s: %w", f.target, err)
	}
	if old != "" {
		return os.RemoveAll(old)
	}
	return nil
}

// Abort removes the staging folder.
func (f *Folder) Abort() error {
	if !strings.Contains(filepath.Base(f.staging), ".incomplete-") {
		return nil
	}
	return os.RemoveAll(f.staging)
}

// mkdirUnique creates parent/prefix<random> with mode 0755 less the umask,
// like any folder the user makes (os.MkdirTemp would make it 0700, and the
// evidence is for others to read).
func mkdirUnique(parent, prefix string) (string, error) {
	for range 10 {
		dir := filepath.Join(parent, prefix+rand.Text()[:10])
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("no unused name for %s* in %s", prefix, parent)
}
