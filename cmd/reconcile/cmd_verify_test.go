package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
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
	if want := "Summary,duplicate_ids,row_count_balance,sum_balance,key_checkpoint_conflicts,Inputs,Parameters,Queries"; sheets != want {
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
