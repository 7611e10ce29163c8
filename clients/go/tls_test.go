package ramino_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	ramino "github.com/ramino/ramino/clients/go"
	raminov1 "github.com/ramino/ramino/clients/go/gen/ramino/v1"
	"github.com/ramino/ramino/clients/go/internal/testserver"
)

// testCA is a certificate authority made by the test, writing PEM files.
type testCA struct {
	t    *testing.T
	dir  string
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
	file string
}

func newTestCA(t *testing.T, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(48 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	ca := &testCA{t: t, dir: t.TempDir(), cert: cert, key: key, pool: x509.NewCertPool()}
	ca.pool.AddCert(cert)
	ca.file = ca.write("ca.pem", "CERTIFICATE", der)
	return ca
}

func (ca *testCA) write(name, kind string, der []byte) string {
	ca.t.Helper()
	path := filepath.Join(ca.dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		ca.t.Fatal(err)
	}
	return path
}

// issue signs a certificate for localhost and 127.0.0.1 (a server's, or a
// client's) and returns its certificate and key files.
func (ca *testCA) issue(name string, client bool) (certFile, keyFile string) {
	ca.t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		ca.t.Fatal(err)
	}
	usage := x509.ExtKeyUsageServerAuth
	if client {
		usage = x509.ExtKeyUsageClientAuth
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		ca.t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		ca.t.Fatal(err)
	}
	return ca.write(name+".pem", "CERTIFICATE", der), ca.write(name+"-key.pem", "PRIVATE KEY", keyDER)
}

// tlsServer starts `ramino serve` over TLS (mutual TLS when mutual).
func tlsServer(t *testing.T, ca *testCA, mutual bool) *testserver.Server {
	t.Helper()
	cert, key := ca.issue("server", false)
	args := []string{"--tls-cert-file", cert, "--tls-key-file", key}
	ready := &tls.Config{RootCAs: ca.pool, MinVersion: tls.VersionTLS12}
	if mutual {
		args = append(args, "--tls-client-ca-file", ca.file)
		ready.Certificates = []tls.Certificate{ca.keyPair("ready")}
	}
	return testserver.Start(t, testserver.Options{Args: args, Creds: credentials.NewTLS(ready), AllowBotGames: true})
}

func (ca *testCA) keyPair(name string) tls.Certificate {
	ca.t.Helper()
	cert, key := ca.issue(name, true)
	pair, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		ca.t.Fatal(err)
	}
	return pair
}

func tlsDial(t *testing.T, s *testserver.Server, cfg *tls.Config) *ramino.Client {
	t.Helper()
	target := fmt.Sprintf("localhost:%d", s.Port())
	c, err := ramino.NewClient(target, ramino.WithTransportCredentials(credentials.NewTLS(cfg)), ramino.WithRetry(ramino.NoRetry))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestTLSGameWithTheRootCA(t *testing.T) {
	ca := newTestCA(t, "Ramino Go test CA")
	s := tlsServer(t, ca, false)
	ctx := testCtx(t)
	c := tlsDial(t, s, &tls.Config{RootCAs: ca.pool, MinVersion: tls.VersionTLS12})
	g, err := c.CreateGame(ctx, ramino.GameSpec{Variant: "rummy", Seats: []ramino.SeatSpec{ramino.Person("ann"), ramino.Bot(raminov1.BotLevel_BOT_LEVEL_GREEDY)}})
	if err != nil {
		t.Fatal(err)
	}
	seat, err := c.JoinGame(ctx, g.GetName(), "ann")
	if err != nil {
		t.Fatal(err)
	}
	view, err := seat.View(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(view.GetHand()) == 0 {
		t.Fatalf("a seated person sees no hand over TLS: %v", view)
	}
	meld, err := c.ValidateMeld(ctx, "rummy", []string{"5H", "6H", "7H"})
	if err != nil || !meld.GetValid() {
		t.Fatalf("ValidateMeld over TLS: %v, %v", meld, err)
	}

	plain, err := ramino.NewClient(s.Address(), ramino.WithTransportCredentials(insecure.NewCredentials()), ramino.WithRetry(ramino.NoRetry))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, err := plain.ValidateMeld(ctx, "rummy", []string{"5H", "6H", "7H"}); ramino.Code(err) != codes.Unavailable {
		t.Fatalf("a plaintext client on the TLS port: %v, want Unavailable", err)
	}
	other := newTestCA(t, "Some other CA")
	stranger := tlsDial(t, s, &tls.Config{RootCAs: other.pool, MinVersion: tls.VersionTLS12})
	if _, err := stranger.ValidateMeld(ctx, "rummy", []string{"5H", "6H", "7H"}); ramino.Code(err) != codes.Unavailable {
		t.Fatalf("a client trusting another CA: %v, want Unavailable", err)
	}
}

func TestMutualTLSClientCertificate(t *testing.T) {
	ca := newTestCA(t, "Ramino Go test CA")
	s := tlsServer(t, ca, true)
	ctx := testCtx(t)
	cards := []string{"5H", "6H", "7H"}

	withCert := tlsDial(t, s, &tls.Config{RootCAs: ca.pool, Certificates: []tls.Certificate{ca.keyPair("ann")}, MinVersion: tls.VersionTLS12})
	if meld, err := withCert.ValidateMeld(ctx, "rummy", cards); err != nil || !meld.GetValid() {
		t.Fatalf("a client certificate of the CA: %v, %v", meld, err)
	}
	without := tlsDial(t, s, &tls.Config{RootCAs: ca.pool, MinVersion: tls.VersionTLS12})
	if _, err := without.ValidateMeld(ctx, "rummy", cards); ramino.Code(err) != codes.Unavailable {
		t.Fatalf("no client certificate under mutual TLS: %v, want Unavailable", err)
	}
	other := newTestCA(t, "Some other CA")
	stranger := tlsDial(t, s, &tls.Config{RootCAs: ca.pool, Certificates: []tls.Certificate{other.keyPair("mallory")}, MinVersion: tls.VersionTLS12})
	if _, err := stranger.ValidateMeld(ctx, "rummy", cards); ramino.Code(err) != codes.Unavailable {
		t.Fatalf("a client certificate of another CA: %v, want Unavailable", err)
	}
}
