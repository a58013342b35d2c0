package evidence

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/fault"
)

// ManifestVersion is the version of the manifest.json layout. Version 2
// added signed and signature_algorithm; Verify still reads version 1
// manifests, which do not say whether the folder was signed.
const ManifestVersion = 2

// SignatureAlgorithm is the manifest's signature: SignatureFile holds the
// raw 64-byte Ed25519 signature (RFC 8032, pure Ed25519) of the bytes of
// ManifestFile, verifiable with reconcile verify --public-key or openssl
// pkeyutl -verify -rawin.
const SignatureAlgorithm = "ed25519"

// Errors of VerifyManifest and the key loaders.
var (
	// ErrNoManifest: the folder has no manifest.json (not an evidence
	// folder, or one written before manifests existed).
	ErrNoManifest = fault.Usage.New("evidence: no manifest.json")
	// ErrBadManifest: manifest.json is not a manifest (edited or damaged).
	ErrBadManifest = errors.New("evidence: invalid manifest.json")
	// ErrKey: a key file is not a PEM Ed25519 key.
	ErrKey = fault.Usage.New("evidence: invalid Ed25519 key")
)

// Manifest is manifest.json: what the evidence folder holds and what
// produced it.
type Manifest struct {
	// ManifestVersion is ManifestVersion.
	ManifestVersion int `json:"manifest_version"`
	// Control, RunID and Status are those of summary.json.
	Control string `json:"control"`
	RunID   string `json:"run_id"`
	Status  Status `json:"status"`
	// Signed says whether the folder was signed (run --sign-key): then
	// SignatureFile must be present, else it must not. A removed signature
	// is therefore found without the public key.
	Signed bool `json:"signed"`
	// SignatureAlgorithm is SignatureAlgorithm when Signed, else "".
	SignatureAlgorithm string `json:"signature_algorithm,omitempty"`
	// Tool is the build of reconcile that wrote the folder.
	Tool ToolInfo `json:"tool"`
	// Spec fingerprints the control's definition.
	Spec SpecDigest `json:"spec"`
	// Inputs fingerprint the populations compared.
	Inputs []InputDigest `json:"inputs"`
	// Files are every file of the folder except manifest.json and
	// manifest.sig, sorted by path.
	Files []FileDigest `json:"files"`
}

// ToolInfo identifies a build: module path and version, VCS revision and
// whether the working tree had local changes, from the Go build info; and
// the embedded DuckDB's version.
type ToolInfo struct {
	Module        string `json:"module,omitempty"`
	Version       string `json:"version"`
	Revision      string `json:"vcs_revision,omitempty"`
	RevisionTime  string `json:"vcs_time,omitempty"`
	Modified      bool   `json:"vcs_modified,omitempty"`
	GoVersion     string `json:"go_version,omitempty"`
	DuckDBVersion string `json:"duckdb_version"`
}

// SpecDigest fingerprints the spec: the file as read (when there was one)
// and the effective spec — file plus flags, secrets removed — as its
// canonical JSON (the "parameters" of summary.json).
type SpecDigest struct {
	File            string `json:"file,omitempty"`
	FileSHA256      string `json:"file_sha256,omitempty"`
	EffectiveSHA256 string `json:"effective_sha256"`
}

// InputDigest fingerprints one input: every file with its SHA-256, or the
// kind's details (a database snapshot) when it is not a file — as in
// summary.json's inputs.
type InputDigest struct {
	Role     string         `json:"role"`
	Kind     string         `json:"kind"`
	Location string         `json:"location"`
	Rows     int64          `json:"rows"`
	Files    []File         `json:"files,omitempty"`
	Details  map[string]any `json:"details,omitempty"`
}

// FileDigest is one file of the evidence folder. Path is relative to the
// folder, with forward slashes; Bytes is its size.
type FileDigest struct {
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// WriteManifest writes dir/manifest.json for the run s, listing every file
// under dir, and — when key is not nil — dir/manifest.sig, its Ed25519
// signature. Call it after every other file is written.
func WriteManifest(ctx context.Context, dir string, s *Summary, key ed25519.PrivateKey) (*Manifest, error) {
	files, err := digestFolder(ctx, dir)
	if err != nil {
		return nil, err
	}
	params, err := json.Marshal(s.Parameters)
	if err != nil {
		return nil, err
	}
	m := &Manifest{
		ManifestVersion: ManifestVersion,
		Control:         s.Control.Name,
		RunID:           s.Run.ID,
		Status:          s.Status,
		Tool:            toolInfo(s.Run.ToolVersion, s.Run.DuckDBVersion),
		Spec:            SpecDigest{File: s.Run.Spec, FileSHA256: s.Run.SpecSHA256, EffectiveSHA256: sha256Hex(params)},
		Files:           files,
	}
	if key != nil {
		m.Signed, m.SignatureAlgorithm = true, SignatureAlgorithm
	}
	for _, in := range s.Inputs {
		m.Inputs = append(m.Inputs, InputDigest{Role: in.Role, Kind: in.Kind, Location: in.Location, Rows: in.Rows, Files: in.Files, Details: in.Details})
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	data = append(data, '\n')
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), data, 0o644); err != nil {
		return nil, fmt.Errorf("write manifest: %w", err)
	}
	if key != nil {
		if err := os.WriteFile(filepath.Join(dir, SignatureFile), ed25519.Sign(key, data), 0o644); err != nil {
			return nil, fmt.Errorf("write signature: %w", err)
		}
	}
	return m, nil
}

// toolInfo is BuildInfo with the run's versions as the fallback when the
// binary carries no build info (tests).
func toolInfo(version, duckdb string) ToolInfo {
	t, ok := BuildInfo()
	if !ok || t.Version == "" {
		t.Version = version
	}
	t.DuckDBVersion = duckdb
	return t
}

// BuildInfo is what Go's build info records of this binary: module path,
// version, Go version and VCS revision, time and modified flag. ok is false
// when the binary carries none.
func BuildInfo() (t ToolInfo, ok bool) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return t, false
	}
	t.Module, t.GoVersion, t.Version = bi.Main.Path, bi.GoVersion, bi.Main.Version
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			t.Revision = s.Value
		case "vcs.time":
			t.RevisionTime = s.Value
		case "vcs.modified":
			t.Modified = s.Value == "true"
		}
	}
	return t, true
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// digestFolder hashes every regular file under dir except the manifest
// and its signature, sorted by path.
func digestFolder(ctx context.Context, dir string) ([]FileDigest, error) {
	var out []FileDigest
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() || rel == ManifestFile || rel == SignatureFile {
			return nil
		}
		if !d.Type().IsRegular() {
			// never opened: a named pipe or a link to /dev/zero would
			// hang or never end the read; reconcile writes regular files
			// only, so such an entry differs from any the manifest lists
			out = append(out, FileDigest{Path: rel, Bytes: -1, SHA256: "not a regular file (" + d.Type().String() + ")"})
			return nil
		}
		fd, err := digestFile(path)
		if err != nil {
			return err
		}
		fd.Path = rel
		out = append(out, fd)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("fingerprint %s: %w", dir, err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// addedDirs returns the folders of dir (as "path/") that reconcile did not
// make: any but exceptions/ and queries/ (every run makes them) that holds
// no file the manifest lists — an empty folder added after the run, which
// the files alone would not show (found by a reviewer).
func addedDirs(dir string, files []FileDigest) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() || path == dir {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == ExceptionsDir || rel == QueriesDir || slices.ContainsFunc(files, func(f FileDigest) bool { return strings.HasPrefix(f.Path, rel+"/") }) {
			return nil
		}
		out = append(out, rel+"/")
		return fs.SkipDir // what it holds is listed as added already
	})
	if err != nil {
		return nil, fmt.Errorf("fingerprint %s: %w", dir, err)
	}
	return out, nil
}

func digestFile(path string) (FileDigest, error) {
	f, err := os.Open(path)
	if err != nil {
		return FileDigest{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return FileDigest{}, err
	}
	return FileDigest{Bytes: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// Signature states of a verification.
const (
	// SigAbsent: the manifest says unsigned and there is no manifest.sig
	// (or a version 1 manifest, which does not say, and no manifest.sig),
	// and no public key was given.
	SigAbsent = "absent"
	// SigNotChecked: the manifest says signed and manifest.sig is present,
	// but no public key was given to check it.
	SigNotChecked = "not checked"
	// SigValid: manifest.sig verifies under the public key.
	SigValid = "valid"
	// SigInvalid: a public key was given and manifest.sig does not verify
	// under it.
	SigInvalid = "invalid"
	// SigMissing: there is no manifest.sig though the manifest says the
	// folder was signed (with a public key or without), or though a public
	// key was given to check it (the manifest says unsigned, or is of
	// version 1, which does not say).
	SigMissing = "missing"
	// SigUnexpected: manifest.sig is present but the manifest says the
	// folder was not signed (the signature belongs to another manifest, or
	// the manifest was replaced).
	SigUnexpected = "unexpected"
)

// Verification is what VerifyManifest found. Paths are relative to the
// folder, sorted.
type Verification struct {
	Manifest *Manifest
	// Changed files differ in size or SHA-256 from the manifest.
	Changed []string
	// Missing files are in the manifest but not in the folder.
	Missing []string
	// Added files are in the folder but not in the manifest.
	Added []string
	// Signature is one of the Sig… states.
	Signature string
}

// OK reports whether the folder is exactly as the manifest lists it and
// its signature is as the manifest says (valid, when a key was given).
func (v *Verification) OK() bool {
	if len(v.Changed)+len(v.Missing)+len(v.Added) > 0 {
		return false
	}
	switch v.Signature {
	case SigInvalid, SigMissing, SigUnexpected:
		return false
	}
	return true
}

// Verify recomputes the fingerprints of every file under dir and compares
// them with dir/manifest.json. manifest.sig must be present exactly when
// the manifest says the folder was signed; with pub, it must moreover be a
// valid signature of manifest.json under pub. It returns ErrNoManifest
// when there is no manifest and ErrBadManifest when it cannot be read as
// one; differences are reported in the Verification, not as errors.
func Verify(ctx context.Context, dir string, pub ed25519.PublicKey) (*Verification, error) {
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		if st, serr := os.Stat(dir); serr != nil {
			return nil, fmt.Errorf("%w: %s does not exist or cannot be read: %w", ErrNoManifest, dir, serr)
		} else if !st.IsDir() {
			return nil, fmt.Errorf("%w: %s is a file, not an evidence folder", ErrNoManifest, dir)
		}
		return nil, fmt.Errorf("%w in %s", ErrNoManifest, dir)
	}
	if err != nil {
		return nil, err
	}
	m := &Manifest{}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(m); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadManifest, err)
	}
	if m.ManifestVersion != 1 && m.ManifestVersion != ManifestVersion {
		return nil, fmt.Errorf("%w: manifest_version %d, want 1 or %d", ErrBadManifest, m.ManifestVersion, ManifestVersion)
	}
	if m.ManifestVersion == ManifestVersion && m.Signed != (m.SignatureAlgorithm == SignatureAlgorithm) {
		return nil, fmt.Errorf("%w: signed %v with signature_algorithm %q (want %q exactly when signed)", ErrBadManifest, m.Signed, m.SignatureAlgorithm, SignatureAlgorithm)
	}
	// A version 1 manifest does not say whether the folder was signed:
	// a signature is then optional, as it was.
	legacy := m.ManifestVersion == 1
	v := &Verification{Manifest: m}
	sig, err := os.ReadFile(filepath.Join(dir, SignatureFile))
	present := err == nil
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, err
	case !present && !legacy && m.Signed:
		v.Signature = SigMissing
	case pub != nil && !present:
		v.Signature = SigMissing // a key was given but nothing is signed
	case pub != nil && !legacy && !m.Signed:
		v.Signature = SigUnexpected
	case pub != nil:
		v.Signature = SigInvalid
		if ed25519.Verify(pub, data, sig) {
			v.Signature = SigValid
		}
	case present && (legacy || m.Signed):
		v.Signature = SigNotChecked
	case present:
		v.Signature = SigUnexpected
	default:
		v.Signature = SigAbsent
	}
	now, err := digestFolder(ctx, dir)
	if err != nil {
		return nil, err
	}
	have := map[string]FileDigest{}
	for _, f := range now {
		have[f.Path] = f
	}
	for _, f := range m.Files {
		got, ok := have[f.Path]
		switch {
		case !ok:
			v.Missing = append(v.Missing, f.Path)
		case got.SHA256 != f.SHA256 || got.Bytes != f.Bytes:
			v.Changed = append(v.Changed, f.Path)
		}
		delete(have, f.Path)
	}
	for p := range have {
		v.Added = append(v.Added, p)
	}
	dirs, err := addedDirs(dir, m.Files)
	if err != nil {
		return nil, err
	}
	v.Added = append(v.Added, dirs...)
	sort.Strings(v.Missing)
	sort.Strings(v.Changed)
	sort.Strings(v.Added)
	return v, nil
}

// LoadPrivateKey reads an Ed25519 private key from a PEM file in PKCS #8
// form ("-----BEGIN PRIVATE KEY-----", as `openssl genpkey -algorithm
// ed25519` writes). Errors wrap ErrKey.
func LoadPrivateKey(path string) (ed25519.PrivateKey, error) {
	der, err := readPEM(path, "PRIVATE KEY")
	if err != nil {
		return nil, err
	}
	k, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrKey, path, err)
	}
	ek, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("%w: %s holds a %T, not an Ed25519 key", ErrKey, path, k)
	}
	return ek, nil
}

// LoadPublicKey reads an Ed25519 public key from a PEM file in PKIX form
// ("-----BEGIN PUBLIC KEY-----", as `openssl pkey -pubout` writes). Errors
// wrap ErrKey.
func LoadPublicKey(path string) (ed25519.PublicKey, error) {
	der, err := readPEM(path, "PUBLIC KEY")
	if err != nil {
		return nil, err
	}
	k, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrKey, path, err)
	}
	ek, ok := k.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("%w: %s holds a %T, not an Ed25519 key", ErrKey, path, k)
	}
	return ek, nil
}

func readPEM(path, typ string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrKey, err)
	}
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			return nil, fmt.Errorf("%w: %s has no PEM block %q", ErrKey, path, typ)
		}
		if b.Type == typ {
			return b.Bytes, nil
		}
	}
}
