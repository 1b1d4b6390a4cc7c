package forge

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
)

// CAEnv names a PEM file whose certificates are trusted, instead of the
// system's, for the forge's TLS: end-to-end tests stand up a loopback
// server playing GitHub with it.
const CAEnv = "AGENTPROTO_GITHUB_CA"

// EnvTransport trusts the CA in $AGENTPROTO_GITHUB_CA when it is set and
// readable; otherwise it is nil and the system's trust applies. Every
// front end that talks to the forge takes its transport from here.
func EnvTransport() http.RoundTripper {
	path := os.Getenv(CAEnv)
	if path == "" {
		return nil
	}
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	return &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
}
