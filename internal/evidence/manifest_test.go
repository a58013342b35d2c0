package evidence

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// evidenceFolder writes a small evidence folder with its manifest.
func evidenceFolder(t *testing.T, key ed25519.PrivateKey) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"summary.json":                 "{}\n",
		"report.md":                    "# report\n",
		"exceptions/missing_ids.csv":   "entry_id\nE1\n",
		"exceptions/duplicate_ids.csv": "entry_id\n",
		"queries/missing_ids.sql":      "SELECT 1\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := WriteManifest(context.Background(), dir, testSummary(), key); err != nil {
		t.Fatal(err)
	}
	return dir
}

// testSummary is a small run of two inputs, one read from a file and one
// from a database.
func testSummary() *Summary {
	return &Summary{
		SchemaVersion: SchemaVersion, Status: Fail,
		Control: Control{Name: "ledger-daily"},
		Run: Run{ID: "20260301T060000Z-1a2b3c4d", StartedAt: "2026-03-01T06:00:00Z", FinishedAt: "2026-03-01T06:00:07Z",
			ToolVersion: "v0.9.0", DuckDBVersion: "v1.5.6", Spec: "ledger.yaml", SpecSHA256: strings.Repeat("5e", 32)},
		Parameters: &Parameters{Source: InputSpec{URI: "source.csv"}, Sink: InputSpec{URI: "postgres://db/ledger"}, ID: []string{"entry_id"}},
		Inputs: []*Input{
			{Role: "source", Kind: "csv", Location: "source.csv", Rows: 3, Files: []File{{Path: "source.csv", Bytes: 10, SHA256: strings.Repeat("ab", 32)}}},
			{Role: "sink", Kind: "postgres", Location: "postgres://db/ledger", Rows: 3, Details: map[string]any{"snapshot": "3:27:"}},
		},
	}
}

func TestManifestContents(t *testing.T) {
	dir := evidenceFolder(t, nil)
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range m.Files {
		paths = append(paths, f.Path)
	}
	want := []string{"exceptions/duplicate_ids.csv", "exceptions/missing_ids.csv", "queries/missing_ids.sql", "report.md", "summary.json"}
	if !slices.Equal(paths, want) {
		t.Errorf("files %q, want %q", paths, want)
	}
	if f := m.Files[3]; f.Bytes != 9 || f.SHA256 != sha256Hex([]byte("# report\n")) {
		t.Errorf("report.md digest %+v", f)
	}
	if m.Spec.FileSHA256 != testSummary().Run.SpecSHA256 || len(m.Spec.EffectiveSHA256) != 64 {
		t.Errorf("spec digest %+v", m.Spec)
	}
	if len(m.Inputs) != 2 || m.Inputs[0].Files[0].SHA256 == "" || m.Inputs[1].Details["snapshot"] == nil {
		t.Errorf("inputs %+v", m.Inputs)
	}
	if m.Tool.DuckDBVersion != "v1.5.6" || m.Tool.Version == "" {
		t.Errorf("tool %+v", m.Tool)
	}
	if _, err := os.Stat(filepath.Join(dir, SignatureFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("unsigned folder has %s: %v", SignatureFile, err)
	}
	if m.ManifestVersion != ManifestVersion || m.Signed || m.SignatureAlgorithm != "" {
		t.Errorf("unsigned manifest: version %d, signed %v, algorithm %q", m.ManifestVersion, m.Signed, m.SignatureAlgorithm)
	}
}

func TestVerifyManifest(t *testing.T) {
	tests := []struct {
		name   string
		edit   func(t *testing.T, dir string)
		change []string
		miss   []string
		add    []string
	}{
		{name: "unchanged", edit: func(*testing.T, string) {}},
		{name: "one byte changed", change: []string{"exceptions/missing_ids.csv"}, edit: func(t *testing.T, dir string) {
			p := filepath.Join(dir, "exceptions", "missing_ids.csv")
			data, _ := os.ReadFile(p)
			data[len(data)-2] = '2' // E1 -> E2, same size
			write(t, p, data)
		}},
		{name: "removed file", miss: []string{"report.md"}, edit: func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "report.md")); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "added file", add: []string{"exceptions/extra.csv"}, edit: func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "exceptions", "extra.csv"), []byte("x\n"))
		}},
		// entries that are not regular files are never opened (a named
		// pipe hung verify, a link to /dev/zero never ended: found by a
		// reviewer): each differs from what the manifest lists
		{name: "a named pipe", add: []string{"fifo"}, edit: func(t *testing.T, dir string) {
			if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "a link to /dev/zero for a file", change: []string{"report.md"}, edit: func(t *testing.T, dir string) {
			os.Remove(filepath.Join(dir, "report.md"))
			if err := os.Symlink("/dev/zero", filepath.Join(dir, "report.md")); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "an empty folder", add: []string{"exceptions/sub/", "extra/", "resolved/"}, edit: func(t *testing.T, dir string) {
			for _, d := range []string{"extra", "resolved", "exceptions/sub"} {
				if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{name: "a link to a folder", add: []string{"dirlink"}, edit: func(t *testing.T, dir string) {
			if err := os.Symlink(t.TempDir(), filepath.Join(dir, "dirlink")); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "all at once", change: []string{"summary.json"}, miss: []string{"queries/missing_ids.sql"}, add: []string{"notes.txt"}, edit: func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "summary.json"), []byte("{} \n"))
			os.Remove(filepath.Join(dir, "queries", "missing_ids.sql"))
			write(t, filepath.Join(dir, "notes.txt"), nil)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := evidenceFolder(t, nil)
			tt.edit(t, dir)
			v, err := Verify(context.Background(), dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(v.Changed, tt.change) || !slices.Equal(v.Missing, tt.miss) || !slices.Equal(v.Added, tt.add) {
				t.Errorf("changed %q missing %q added %q; want %q %q %q", v.Changed, v.Missing, v.Added, tt.change, tt.miss, tt.add)
			}
			if ok := len(tt.change)+len(tt.miss)+len(tt.add) == 0; v.OK() != ok {
				t.Errorf("OK() = %v", v.OK())
			}
			if v.Signature != SigAbsent {
				t.Errorf("signature %q on an unsigned folder", v.Signature)
			}
		})
	}
}

func write(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyManifestErrors(t *testing.T) {
	if _, err := Verify(context.Background(), t.TempDir(), nil); !errors.Is(err, ErrNoManifest) {
		t.Errorf("empty folder: %v", err)
	}
	dir := evidenceFolder(t, nil)
	for name, bad := range map[string]string{
		"unknown key":            `{"manifest_version": 2, "files": [], "surprise": true}`,
		"unknown version":        `{"manifest_version": 3, "files": []}`,
		"signed, no algorithm":   `{"manifest_version": 2, "signed": true, "files": []}`,
		"unsigned, an algorithm": `{"manifest_version": 2, "signed": false, "signature_algorithm": "ed25519", "files": []}`,
	} {
		write(t, filepath.Join(dir, ManifestFile), []byte(bad))
		if _, err := Verify(context.Background(), dir, nil); !errors.Is(err, ErrBadManifest) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestSignedManifest(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	otherPub, _, _ := ed25519.GenerateKey(rand.Reader)

	// keys round-trip through the PEM files openssl writes
	keyDir := t.TempDir()
	der, _ := x509.MarshalPKCS8PrivateKey(priv)
	write(t, filepath.Join(keyDir, "key.pem"), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	der, _ = x509.MarshalPKIXPublicKey(pub)
	write(t, filepath.Join(keyDir, "pub.pem"), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
	loadedPriv, err := LoadPrivateKey(filepath.Join(keyDir, "key.pem"))
	if err != nil || !loadedPriv.Equal(priv) {
		t.Fatalf("LoadPrivateKey: %v", err)
	}
	loadedPub, err := LoadPublicKey(filepath.Join(keyDir, "pub.pem"))
	if err != nil || !loadedPub.Equal(pub) {
		t.Fatalf("LoadPublicKey: %v", err)
	}
	if _, err := LoadPublicKey(filepath.Join(keyDir, "key.pem")); !errors.Is(err, ErrKey) {
		t.Errorf("private key file as public key: %v", err)
	}

	dir := evidenceFolder(t, loadedPriv)
	check := func(name string, key ed25519.PublicKey, want string) {
		t.Helper()
		v, err := Verify(context.Background(), dir, key)
		if err != nil {
			t.Fatal(err)
		}
		if v.Signature != want {
			t.Errorf("%s: signature %q, want %q", name, v.Signature, want)
		}
		if ok := want == SigValid || want == SigNotChecked || want == SigAbsent; v.OK() != ok {
			t.Errorf("%s: OK() = %v", name, v.OK())
		}
	}
	var m Manifest
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, ManifestFile)), &m); err != nil {
		t.Fatal(err)
	}
	if !m.Signed || m.SignatureAlgorithm != SignatureAlgorithm {
		t.Errorf("signed manifest says signed %v, algorithm %q", m.Signed, m.SignatureAlgorithm)
	}
	check("right key", loadedPub, SigValid)
	check("no key", nil, SigNotChecked)
	check("wrong key", otherPub, SigInvalid)

	// The signature removed: found with the key and without it, since the
	// manifest says the folder was signed.
	sig := readFile(t, filepath.Join(dir, SignatureFile))
	os.Remove(filepath.Join(dir, SignatureFile))
	check("signature removed, no key", nil, SigMissing)
	check("signature removed, key", loadedPub, SigMissing)
	write(t, filepath.Join(dir, SignatureFile), sig)
	check("signature restored", loadedPub, SigValid)

	// A manifest edited to match edited files no longer verifies.
	p := filepath.Join(dir, ManifestFile)
	m.Status = Pass
	data, _ := json.MarshalIndent(m, "", "  ")
	write(t, p, append(data, '\n'))
	check("edited manifest", loadedPub, SigInvalid)

	// A signature beside a manifest that says unsigned is reported, with
	// the key and without it: the signature belongs to another manifest.
	m.Signed, m.SignatureAlgorithm = false, ""
	data, _ = json.MarshalIndent(m, "", "  ")
	write(t, p, append(data, '\n'))
	check("signature on an unsigned manifest, no key", nil, SigUnexpected)
	check("signature on an unsigned manifest, key", loadedPub, SigUnexpected)

	// A key given for an unsigned folder without manifest.sig: the
	// signature is missing, not invalid (there is none to check).
	os.Remove(filepath.Join(dir, SignatureFile))
	check("no signature on an unsigned manifest, no key", nil, SigAbsent)
	check("no signature on an unsigned manifest, key", loadedPub, SigMissing)
}

// TestVerifyVersion1: a manifest written before manifests recorded their
// signing is still verified; its signature is optional, as it was.
func TestVerifyVersion1(t *testing.T) {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	dir := evidenceFolder(t, priv)
	p := filepath.Join(dir, ManifestFile)
	var raw map[string]any
	if err := json.Unmarshal(readFile(t, p), &raw); err != nil {
		t.Fatal(err)
	}
	raw["manifest_version"] = 1
	delete(raw, "signed")
	delete(raw, "signature_algorithm")
	data, _ := json.MarshalIndent(raw, "", "  ")
	write(t, p, data)
	for _, tt := range []struct {
		name, want string
		sig        bool
	}{{"with manifest.sig", SigNotChecked, true}, {"without", SigAbsent, false}} {
		if !tt.sig {
			os.Remove(filepath.Join(dir, SignatureFile))
		}
		v, err := Verify(context.Background(), dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		if v.Signature != tt.want || !v.OK() {
			t.Errorf("%s: signature %q, OK %v; want %q, true", tt.name, v.Signature, v.OK(), tt.want)
		}
	}
	// With a key, the signature it was given to check is missing.
	v, err := Verify(context.Background(), dir, priv.Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	if v.Signature != SigMissing || v.OK() {
		t.Errorf("without manifest.sig, with a key: signature %q, OK %v; want %q, false", v.Signature, v.OK(), SigMissing)
	}
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
