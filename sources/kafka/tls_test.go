package kafka_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/reconcile-dev/reconcile/internal/kafkatest"
	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/kafka"
)

// selfSigned makes a certificate for 127.0.0.1 and returns the server's
// TLS config and the certificate as PEM.
func selfSigned(t *testing.T) (*tls.Config, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kfake"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}},
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// A broker behind TLS is read with tls_ca_file (a path relative to the
// spec's folder); without the CA the certificate is refused and the read
// fails, rather than falling back to anything unverified.
func TestKafkaTLS(t *testing.T) {
	cfg, caPEM := selfSigned(t)
	c, err := kafkatest.Start(0, map[string]int32{"t": 1}, kfake.TLS(cfg))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	cl, err := c.Producer(kgo.DialTLSConfig(&tls.Config{RootCAs: pool}))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := kafkatest.Plain(t.Context(), cl, kafkatest.Record("t", 0, "id", "1")); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ca.pem"), caPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	in, rows := mustRead(t, sources.Location{URI: c.URI("t"), BaseDir: dir, Options: map[string]any{"tls_ca_file": "ca.pem"}})
	wantRows(t, rows, "id=1 __partition=0 __offset=0 __file=t[0] __line=0")
	if in.Details["tls"] != true {
		t.Errorf("details tls = %v", in.Details["tls"])
	}
	_, _, err = readTable(t, sources.Location{URI: c.URI("t"), Options: map[string]any{"tls": true}})
	if !errors.Is(err, kafka.ErrRead) {
		t.Errorf("an unknown CA: err = %v, want a read error", err)
	}
}
