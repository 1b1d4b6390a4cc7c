package wire

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"os"
	"time"
)

// The plugin's gRPC socket is a pathname Unix socket, which a process of
// the same user can connect to (Landlock does not mediate connect before
// ABI 9, and /proc/net/unix lists the path): mutual TLS is what keeps an
// agent from driving another session's adapter. go-plugin's AutoMTLS makes
// a P-521 key on each side and signs with it, 15 ms of a sandboxed launch
// measured on the 2-core machine (57 vs 42 ms, alternating runs); the host
// makes both Ed25519 pairs here instead, well under a millisecond, and
// hands the adapter its own.
const (
	// EnvClientCert is go-plugin's variable for the host's certificate:
	// the only one an adapter accepts connections from.
	EnvClientCert = "PLUGIN_CLIENT_CERT"
	// EnvServerPair holds the adapter's certificate and key, PEM. An SDK
	// that does not know it falls back to go-plugin's own server side of
	// AutoMTLS, whose certificate the host then pins from the handshake.
	EnvServerPair = "AGENTPROTO_PLUGIN_SERVER_PAIR"
)

// HostTLS makes the host's and the adapter's certificates for one launch.
// It returns the host's TLS configuration, which trusts only the adapter's
// certificate, and the environment the adapter needs.
func HostTLS() (*tls.Config, []string, error) {
	client, clientPEM, _, err := newPair()
	if err != nil {
		return nil, nil, err
	}
	server, serverPEM, serverKey, err := newPair()
	if err != nil {
		return nil, nil, err
	}
	roots := x509.NewCertPool()
	roots.AddCert(server.Leaf)
	cfg := &tls.Config{
		Certificates: []tls.Certificate{client},
		RootCAs:      roots,
		ServerName:   "localhost",
		MinVersion:   tls.VersionTLS12, // an adapter on go-plugin's AutoMTLS offers 1.2 and up
	}
	env := []string{EnvClientCert + "=" + string(clientPEM), EnvServerPair + "=" + string(serverPEM) + string(serverKey)}
	return cfg, env, nil
}

// ServerTLS is the adapter's side: its certificate from EnvServerPair,
// accepting only the host's. Without EnvServerPair it returns nil, and
// go-plugin makes its own pair. The variables are removed from this
// process's environment once read: the agent CLIs an adapter starts
// inherit it.
func ServerTLS() (*tls.Config, error) {
	pair, client := os.Getenv(EnvServerPair), os.Getenv(EnvClientCert)
	if pair == "" {
		return nil, nil
	}
	os.Unsetenv(EnvServerPair)
	os.Unsetenv(EnvClientCert)
	cert, err := tls.X509KeyPair([]byte(pair), []byte(pair))
	if err != nil {
		return nil, fmt.Errorf("the host's key pair for this adapter: %w", err)
	}
	clients := x509.NewCertPool()
	if !clients.AppendCertsFromPEM([]byte(client)) {
		return nil, errors.New("the host gave this adapter no certificate to accept connections from")
	}
	return &tls.Config{
		Certificates: []tls.Certificate{cert},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    clients,
		MinVersion:   tls.VersionTLS13,
	}, nil
}

// newPair makes a self-signed Ed25519 certificate for localhost, usable
// by either side, and returns it with its PEM and its key's PEM.
func newPair() (tls.Certificate, []byte, []byte, error) {
	pub, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return tls.Certificate{}, nil, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "localhost"},
		DNSNames:              []string{"localhost"},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour), // sessions outlive any short bound
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true, // its own root: each side pins the other's certificate
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, key)
	if err != nil {
		return tls.Certificate{}, nil, nil, err
	}
	pkcs8, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return tls.Certificate{}, nil, nil, err
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8})
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, nil, nil, err
	}
	return cert, certPEM, keyPEM, nil
}
