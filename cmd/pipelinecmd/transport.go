package pipelinecmd

import (
	"net/http"

	"github.com/agentproto/agentproto/forge"
)

// testTransport trusts the CA in $AGENTPROTO_GITHUB_CA when it is set
// (forge.EnvTransport), so end-to-end tests can stand up a loopback server
// playing GitHub over TLS.
func testTransport() http.RoundTripper { return forge.EnvTransport() }
