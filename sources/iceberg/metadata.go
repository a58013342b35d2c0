package iceberg

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/reconcile-dev/reconcile/sources"
)

// locate finds the metadata file and reads it.
func (s *source) locate(ctx context.Context) (*metadataFile, error) {
	if s.cat != nil {
		return s.locateSQL(ctx)
	}
	mf := &metadataFile{}
	fi, err := os.Stat(s.path)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", sources.ErrInvalidLocation, s.name(), err)
	}
	switch {
	case !fi.IsDir():
		mf.path, mf.how = s.path, "the metadata file given"
	default:
		dir := filepath.Join(s.path, "metadata")
		if _, err := os.Stat(dir); err != nil {
			if filepath.Base(s.path) != "metadata" {
				return nil, fmt.Errorf("%w: %s: no metadata folder (%s): want a table folder or a metadata file", sources.ErrInvalidLocation, s.name(), err)
			}
			dir = s.path
		}
		p, how, err := currentMetadata(dir)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", sources.ErrInvalidLocation, s.name(), err)
		}
		mf.path, mf.how = p, how
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(mf.path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRead, err)
	}
	sum := sha256.Sum256(b)
	mf.bytes, mf.sum = b, hex.EncodeToString(sum[:])
	return mf, nil
}

// currentMetadata finds the current metadata file of a Hadoop-style table
// folder's metadata/ folder, as Iceberg's HadoopTableOperations does: the
// version version-hint.text names, then each next version while its file
// exists (a commit that wrote vN+1 but not yet the hint is committed);
// without a hint, the highest vN.metadata.json.
func currentMetadata(dir string) (string, string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", "", err
	}
	versions := map[int]string{}
	highest := 0
	for _, e := range entries {
		name := e.Name()
		var rest string
		switch {
		case strings.HasSuffix(name, ".gz.metadata.json"):
			rest = strings.TrimSuffix(name, ".gz.metadata.json")
		case strings.HasSuffix(name, ".metadata.json"):
			rest = strings.TrimSuffix(name, ".metadata.json")
		default:
			continue
		}
		if !strings.HasPrefix(rest, "v") {
			continue
		}
		v, err := strconv.Atoi(rest[1:])
		if err != nil || v <= 0 {
			continue
		}
		if old, ok := versions[v]; ok && !strings.Contains(old, ".gz.") {
			continue
		}
		versions[v] = filepath.Join(dir, name)
		highest = max(highest, v)
	}
	hint, err := os.ReadFile(filepath.Join(dir, "version-hint.text"))
	switch {
	case err == nil:
		v, perr := strconv.Atoi(strings.TrimSpace(string(hint)))
		if perr != nil || v <= 0 {
			return "", "", fmt.Errorf("version-hint.text holds %q, not a version number", strings.TrimSpace(string(hint)))
		}
		if _, ok := versions[v]; !ok {
			return "", "", fmt.Errorf("version-hint.text names version %d, but %s has no v%d.metadata.json", v, dir, v)
		}
		how := fmt.Sprintf("version-hint.text (version %d)", v)
		at := v
		for {
			if _, ok := versions[at+1]; !ok {
				break
			}
			at++
		}
		if at != v {
			how += fmt.Sprintf(", then v%d.metadata.json, committed after the hint was written", at)
		}
		return versions[at], how, nil
	case errors.Is(err, os.ErrNotExist):
		if highest == 0 {
			return "", "", fmt.Errorf("%s holds no vN.metadata.json and no version-hint.text: name the metadata file (iceberg:%s/….metadata.json)", dir, dir)
		}
		return versions[highest], fmt.Sprintf("the highest vN.metadata.json (version %d; no version-hint.text)", highest), nil
	default:
		return "", "", err
	}
}
