package pipelinecmd

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"os"
)

// testTransport trusts the CA in $AGENTPROTO_GITHUB_CA when it is set, so
// end-to-end tests can stand up a loopback server playing GitHub over TLS.
// Otherwise it is nil and the system's trust applies.
func testTransport() http.RoundTripper {
	path := os.Getenv("AGENTPROTO_GITHUB_CA")
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
