package main

import (
	"crypto/ed25519"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/reconcile-dev/reconcile/internal/evidence"
)

func init() {
	subcommands = append(subcommands, func(f *factory) *cobra.Command { return newCmdVerify(f, nil) })
}

// errVerifyFailed is returned when verify found a difference: exit code 1,
// the differences already printed.
var errVerifyFailed = errors.New("verify: evidence folder differs from its manifest")

// verifyOptions are the parsed arguments of `reconcile verify`.
type verifyOptions struct {
	f         *factory
	dir       string
	publicKey string
}

func newCmdVerify(f *factory, runF func(*verifyOptions) error) *cobra.Command {
	o := &verifyOptions{f: f}
	cmd := &cobra.Command{
		Use:   "verify DIR",
		Short: "Check that an evidence folder is exactly as reconcile wrote it",
		Long: `Recompute the SHA-256 of every file of the evidence folder DIR and compare
them with its manifest.json. Every changed, missing or added file is listed.

With --public-key, manifest.sig must be a valid Ed25519 signature of
manifest.json under that key (the folder was written with run --sign-key).

Exit codes: 0 the folder is unchanged (and the signature is valid, when a
key was given); 1 a file was changed, removed or added, manifest.json is
damaged, or the signature does not verify; 2 DIR has no manifest.json or
the key cannot be read; 3 a file could not be read.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.dir = args[0]
			if runF != nil {
				return runF(o)
			}
			return runVerify(cmd, o)
		},
	}
	cmd.Flags().StringVar(&o.publicKey, "public-key", "", "Ed25519 public key (PEM) the manifest must be signed with")
	return cmd
}

func runVerify(cmd *cobra.Command, o *verifyOptions) error {
	var pub ed25519.PublicKey
	if o.publicKey != "" {
		var err error
		if pub, err = evidence.LoadPublicKey(o.publicKey); err != nil {
			return &usageError{err}
		}
	}
	w := o.f.stdout
	v, err := evidence.Verify(cmd.Context(), o.dir, pub)
	switch {
	case errors.Is(err, evidence.ErrNoManifest):
		return &usageError{err}
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
	switch v.Signature {
	case evidence.SigInvalid:
		fmt.Fprintf(w, "SIGNATURE INVALID: %s is not a valid signature of %s under %s\n", evidence.SignatureFile, evidence.ManifestFile, o.publicKey)
	case evidence.SigValid:
		fmt.Fprintf(w, "signature valid (%s)\n", o.publicKey)
	case evidence.SigNotChecked:
		fmt.Fprintf(w, "signature present, not checked (give --public-key)\n")
	}
	m := v.Manifest
	if !v.OK() {
		fmt.Fprintf(w, "FAIL  %s: %d changed, %d missing, %d added of %d files in the manifest (run %s)\n",
			o.dir, len(v.Changed), len(v.Missing), len(v.Added), len(m.Files), m.RunID)
		return errVerifyFailed
	}
	fmt.Fprintf(w, "OK  %s: %d files as written by run %s (reconcile %s, DuckDB %s)\n", o.dir, len(m.Files), m.RunID, m.Tool.Version, m.Tool.DuckDBVersion)
	return nil
}
