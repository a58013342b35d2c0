package main

import (
	"archive/zip"
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/pgtest"
)

// TestEvidencePackage: a run on the ledger sample writes the whole package
// — workbook, HTML, Markdown, JSON, exceptions, queries, manifest — and
// verify passes on it, then fails after any edit.
func TestEvidencePackage(t *testing.T) {
	dir := t.TempDir()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(priv)
	keyFile := writeFile(t, filepath.Join(dir, "key.pem"), string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})))
	der, _ = x509.MarshalPKIXPublicKey(pub)
	pubFile := writeFile(t, filepath.Join(dir, "pub.pem"), string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})))

	ev := filepath.Join(dir, "ev")
	code, stdout, stderr := runCLI(t, "run", "--config", filepath.Join("..", "..", "samples", "ledger", "at-least-once.yaml"), "--out", ev, "--sign-key", keyFile)
	if code != exitFailed {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, f := range []string{"summary.json", "report.md", "report.html", "workbook.xlsx", "manifest.json", "manifest.sig", "exceptions/duplicate_ids.csv", "queries/duplicate_ids.sql"} {
		if _, err := os.Stat(filepath.Join(ev, f)); err != nil {
			t.Errorf("evidence lacks %s: %v", f, err)
		}
	}
	wb, err := excelize.OpenFile(filepath.Join(ev, "workbook.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	sheets := strings.Join(wb.GetSheetList(), ",")
	wb.Close()
	if want := "Summary,duplicate_ids,value_mismatches,row_count_balance,sum_balance,key_checkpoint_conflicts,Inputs,Parameters,Queries"; sheets != want {
		t.Errorf("sheets %s, want %s", sheets, want)
	}

	verify := func(args ...string) (exitCode, string) {
		t.Helper()
		code, stdout, stderr := runCLI(t, append([]string{"verify", ev}, args...)...)
		return code, stdout + stderr
	}
	if code, out := verify("--public-key", pubFile); code != exitOK || !strings.Contains(out, "signature valid") {
		t.Fatalf("verify of a fresh folder: exit %d\n%s", code, out)
	}

	// one changed byte, a removed file, an added file: each listed, exit 1
	p := filepath.Join(ev, "exceptions", "sum_balance.csv")
	data, _ := os.ReadFile(p)
	data[len(data)-2] ^= 1
	writeFile(t, p, string(data))
	os.Remove(filepath.Join(ev, "report.md"))
	writeFile(t, filepath.Join(ev, "exceptions", "notes.csv"), "x\n")
	code, out := verify()
	if code != exitFailed {
		t.Errorf("verify after edits: exit %d, want 1\n%s", code, out)
	}
	for _, want := range []string{"CHANGED  exceptions/sum_balance.csv", "MISSING  report.md", "ADDED    exceptions/notes.csv", "1 changed, 1 missing, 1 added"} {
		if !strings.Contains(out, want) {
			t.Errorf("verify output lacks %q:\n%s", want, out)
		}
	}

	if code, out := verify("--public-key", filepath.Join(dir, "nonexistent.pem")); code != exitUsage {
		t.Errorf("missing key file: exit %d\n%s", code, out)
	}
	if code, _, errOut := runCLI(t, "verify", dir); code != exitUsage {
		t.Errorf("folder without manifest: exit %d\n%s", code, errOut)
	}
}

// TestEvidenceDeterministic: the same inputs and spec give byte-identical
// exception files and query files, and the same findings.
func TestEvidenceDeterministic(t *testing.T) {
	dir := t.TempDir()
	var digests [2]map[string]string
	var findings [2]string
	for i := range 2 {
		ev := filepath.Join(dir, fmt.Sprint("ev", i))
		if code, stdout, stderr := runCLI(t, "run", "--config", filepath.Join("..", "..", "samples", "ledger", "at-least-once.yaml"), "--out", ev); code != exitFailed {
			t.Fatalf("run %d: exit %d\n%s\n%s", i, code, stdout, stderr)
		} else {
			// The verdict line names the run (its id and start); the
			// findings follow it.
			findings[i] = stdout[strings.Index(stdout, "\n")+1 : strings.LastIndex(stdout, "evidence:")]
		}
		data, err := os.ReadFile(filepath.Join(ev, "manifest.json"))
		if err != nil {
			t.Fatal(err)
		}
		var m evidence.Manifest
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		digests[i] = map[string]string{}
		for _, f := range m.Files {
			if strings.HasPrefix(f.Path, "exceptions/") || strings.HasPrefix(f.Path, "queries/") {
				digests[i][f.Path] = f.SHA256
			}
		}
	}
	if len(digests[0]) == 0 || !maps.Equal(digests[0], digests[1]) {
		t.Errorf("exception and query files differ between two runs:\n%v\n%v", digests[0], digests[1])
	}
	if findings[0] != findings[1] {
		t.Errorf("findings differ:\n%s\n%s", findings[0], findings[1])
	}
}

// TestNoSecretsInPackage: a password in an input URI appears in no file of
// the evidence folder, the workbook's XML parts included.
func TestNoSecretsInPackage(t *testing.T) {
	pgtest.Connect(t) // skips when no server answers
	u, err := url.Parse(pgtest.URL())
	if err != nil {
		t.Fatal(err)
	}
	secret, ok := u.User.Password()
	if !ok {
		secret = "s3cret-Pw-4711" // ignored by a trust-auth server, still in the URI
		u.User = url.UserPassword(u.User.Username(), secret)
	}
	q := u.Query()
	q.Set("query", "SELECT 'E1' AS entry_id, 1.00::numeric(10,2) AS amount")
	u.RawQuery = q.Encode()
	dir := t.TempDir()
	src := writeFile(t, filepath.Join(dir, "source.csv"), "entry_id,amount\nE1,1.00\nE2,2.00\n")
	ev := filepath.Join(dir, "ev")
	if code, stdout, stderr := runCLI(t, "run", "--source", src, "--sink", u.String(), "--id", "entry_id", "--measure", "amount", "--out", ev); code != exitFailed {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	} else if strings.Contains(stdout+stderr, secret) {
		t.Errorf("the password is in the command's output")
	}
	err = filepath.WalkDir(ev, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		parts := map[string][]byte{p: data}
		if strings.HasSuffix(p, ".xlsx") {
			zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				return err
			}
			for _, zf := range zr.File {
				rc, err := zf.Open()
				if err != nil {
					return err
				}
				b, err := io.ReadAll(rc)
				rc.Close()
				if err != nil {
					return err
				}
				parts[p+"!"+zf.Name] = b
			}
		}
		for name, b := range parts {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds the password", name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestVerifySignatureState: manifest.json says whether the folder was
// signed, so verify without a key finds a removed manifest.sig, and a
// manifest.sig beside a manifest that says unsigned.
func TestVerifySignatureState(t *testing.T) {
	dir := t.TempDir()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(priv)
	keyFile := writeFile(t, filepath.Join(dir, "key.pem"), string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})))
	config := filepath.Join("..", "..", "samples", "ledger", "exactly-once.yaml")
	signed, unsigned := filepath.Join(dir, "signed"), filepath.Join(dir, "unsigned")
	for _, args := range [][]string{{"--out", signed, "--sign-key", keyFile}, {"--out", unsigned}} {
		if code, stdout, stderr := runCLI(t, append([]string{"run", "--config", config, "--format", "json"}, args...)...); code != exitOK {
			t.Fatalf("run %v: exit %d\n%s\n%s", args, code, stdout, stderr)
		}
	}
	var m evidence.Manifest
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(signed, "manifest.json"))), &m); err != nil || !m.Signed || m.SignatureAlgorithm != "ed25519" {
		t.Errorf("signed manifest: signed %v, algorithm %q, %v", m.Signed, m.SignatureAlgorithm, err)
	}
	if code, stdout, _ := runCLI(t, "verify", signed); code != exitOK || !strings.Contains(stdout, "signature present, not checked") {
		t.Errorf("signed folder without a key: exit %d\n%s", code, stdout)
	}

	sig := readFile(t, filepath.Join(signed, "manifest.sig"))
	os.Remove(filepath.Join(signed, "manifest.sig"))
	code, stdout, _ := runCLI(t, "verify", signed)
	if code != exitFailed || !strings.Contains(stdout, "MISSING  manifest.sig (manifest.json says the folder was signed with ed25519)") || !strings.Contains(stdout, "manifest.sig missing") {
		t.Errorf("signature removed, no key: exit %d, want 1\n%s", code, stdout)
	}

	writeFile(t, filepath.Join(unsigned, "manifest.sig"), sig)
	code, stdout, _ = runCLI(t, "verify", unsigned)
	if code != exitFailed || !strings.Contains(stdout, "ADDED    manifest.sig (manifest.json says the folder was not signed)") {
		t.Errorf("signature added to an unsigned folder: exit %d, want 1\n%s", code, stdout)
	}
}
