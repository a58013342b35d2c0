package main

import (
	"crypto/ed25519"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/fault"
)

func init() {
	subcommands = append(subcommands, newCmdVerify)
}

// errVerifyFailed is returned when verify found a difference: exit code 1,
// the differences already printed.
var errVerifyFailed = fault.Failed.New("verify: evidence folder differs from its manifest")

// verifyOptions are the parsed arguments of `reconcile verify`.
type verifyOptions struct {
	f         *factory
	dir       string
	publicKey string
}

func newCmdVerify(f *factory) *cobra.Command {
	o := &verifyOptions{f: f}
	cmd := &cobra.Command{
		Use:   "verify DIR",
		Short: "Check that an evidence folder is exactly as reconcile wrote it",
		Long: `Recompute the SHA-256 of every file of the evidence folder DIR and compare
them with its manifest.json. Every changed, missing or added file is listed.

manifest.json records whether the folder was signed (run --sign-key):
manifest.sig must then be present, and must not be otherwise, with or
without a key. With --public-key, manifest.sig must moreover be a valid
Ed25519 signature of manifest.json under that key.

Exit codes: 0 the folder is unchanged (and the signature is valid, when a
key was given); 1 a file was changed, removed or added, manifest.json is
damaged, manifest.sig is missing from a signed folder (or from any folder
when --public-key is given) or present in an unsigned one, or the signature
does not verify; 2 DIR has no manifest.json or the key cannot be read; 3 a
file could not be read.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.dir = args[0]
			return runVerify(cmd, o)
		},
	}
	onceVar(cmd.Flags(), &o.publicKey, "public-key", "Ed25519 public key (PEM) the manifest must be signed with")
	return cmd
}

func runVerify(cmd *cobra.Command, o *verifyOptions) error {
	var pub ed25519.PublicKey
	if o.publicKey != "" {
		var err error
		if pub, err = evidence.LoadPublicKey(o.publicKey); err != nil {
			return fault.Usage.Mark(err)
		}
	}
	w := o.f.stdout
	v, err := evidence.Verify(cmd.Context(), o.dir, pub)
	switch {
	case errors.Is(err, evidence.ErrBadManifest):
		fmt.Fprintf(w, "CHANGED  %s: %v\n", evidence.ManifestFile, err)
		return errVerifyFailed
	case err != nil:
		return err
	}
	for _, l := range []struct {
		tag   string
		paths []string
	}{{"CHANGED", v.Changed}, {"MISSING", v.Missing}, {"ADDED", v.Added}} {
		for _, p := range l.paths {
			fmt.Fprintf(w, "%-8s %s\n", l.tag, p)
		}
	}
	m := v.Manifest
	switch v.Signature {
	case evidence.SigMissing:
		if m.Signed {
			fmt.Fprintf(w, "%-8s %s (%s says the folder was signed with %s)\n", "MISSING", evidence.SignatureFile, evidence.ManifestFile, m.SignatureAlgorithm)
		} else {
			why := "manifest.json says it was not signed"
			if m.ManifestVersion == 1 {
				why = "its version 1 manifest.json does not say whether it was signed"
			}
			fmt.Fprintf(w, "%-8s %s (--public-key %s was given, but the folder has no signature to check: %s)\n", "MISSING", evidence.SignatureFile, o.publicKey, why)
		}
	case evidence.SigUnexpected:
		fmt.Fprintf(w, "%-8s %s (%s says the folder was not signed)\n", "ADDED", evidence.SignatureFile, evidence.ManifestFile)
	case evidence.SigInvalid:
		fmt.Fprintf(w, "SIGNATURE INVALID: %s is not a valid signature of %s under %s\n", evidence.SignatureFile, evidence.ManifestFile, o.publicKey)
	case evidence.SigValid:
		fmt.Fprintf(w, "signature valid (%s)\n", o.publicKey)
	case evidence.SigNotChecked:
		fmt.Fprintf(w, "signature present, not checked (give --public-key)\n")
	}
	if !v.OK() {
		fmt.Fprintf(w, "FAIL  %s: %d changed, %d missing, %d added of %d files in the manifest (run %s)%s\n",
			o.dir, len(v.Changed), len(v.Missing), len(v.Added), len(m.Files), m.RunID, signatureProblem(v.Signature))
		return errVerifyFailed
	}
	fmt.Fprintf(w, "OK  %s: %d files as written by run %s (reconcile %s, DuckDB %s)\n", o.dir, len(m.Files), m.RunID, m.Tool.Version, m.Tool.DuckDBVersion)
	return nil
}

// signatureProblem completes the FAIL line when the signature is what
// failed.
func signatureProblem(sig string) string {
	switch sig {
	case evidence.SigMissing:
		return "; manifest.sig missing"
	case evidence.SigUnexpected:
		return "; manifest.sig where none was written"
	case evidence.SigInvalid:
		return "; signature invalid"
	}
	return ""
}
