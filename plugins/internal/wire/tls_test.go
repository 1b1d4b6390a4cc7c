package wire

import (
	"crypto/tls"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// serverFromHost sets the adapter's environment as the host would and
// reads it back as the adapter does.
func serverFromHost(t *testing.T) (*tls.Config, *tls.Config) {
	t.Helper()
	host, env, err := HostTLS()
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	server, err := ServerTLS()
	if err != nil || server == nil {
		t.Fatalf("ServerTLS: %v, %v", server, err)
	}
	return host, server
}

// handshake runs both sides of a TLS handshake over a Unix socket, as
// the plugin's connection is.
func handshake(t *testing.T, client, server *tls.Config) (clientErr, serverErr error) {
	t.Helper()
	l, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	done := make(chan error, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			done <- err
			return
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		done <- tls.Server(c, server).Handshake()
	}()
	c, err := net.Dial("unix", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	clientErr = tls.Client(c, client).Handshake()
	c.Close()
	return clientErr, <-done
}

func TestHostAndAdapterAcceptOnlyEachOther(t *testing.T) {
	host, server := serverFromHost(t)
	if ce, se := handshake(t, host, server); ce != nil || se != nil {
		t.Fatalf("the host and its adapter: client %v, server %v", ce, se)
	}
	// Another process of the same user makes its own pair: the adapter
	// refuses it, whatever certificate it shows.
	other, _, err := HostTLS()
	if err != nil {
		t.Fatal(err)
	}
	other.InsecureSkipVerify = true
	if _, se := handshake(t, other, server); se == nil {
		t.Fatal("the adapter accepted a client certificate the host did not make")
	}
	noCert := &tls.Config{InsecureSkipVerify: true}
	if _, se := handshake(t, noCert, server); se == nil {
		t.Fatal("the adapter accepted a client without a certificate")
	}
	// And the host talks to no other server than the one it made a key for.
	_, otherServer := serverFromHost(t)
	if ce, _ := handshake(t, host, otherServer); ce == nil {
		t.Fatal("the host accepted a server certificate it did not make")
	}
}

func TestAdapterKeepsNoKeyInTheEnvironmentItsAgentInherits(t *testing.T) {
	serverFromHost(t)
	for _, k := range []string{EnvServerPair, EnvClientCert} {
		if v, ok := os.LookupEnv(k); ok {
			t.Errorf("%s still set after ServerTLS: %.40q", k, v)
		}
	}
}

func TestWithoutTheHostsPairGoPluginMakesItsOwn(t *testing.T) {
	t.Setenv(EnvServerPair, "")
	os.Unsetenv(EnvServerPair)
	cfg, err := ServerTLS()
	if cfg != nil || err != nil {
		t.Fatalf("ServerTLS without a pair: %v, %v; want nil, nil so go-plugin's AutoMTLS answers", cfg, err)
	}
}

func TestABrokenPairIsAnError(t *testing.T) {
	t.Setenv(EnvServerPair, "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n")
	t.Setenv(EnvClientCert, "x")
	if _, err := ServerTLS(); err == nil || !strings.Contains(err.Error(), "key pair") {
		t.Fatalf("err = %v", err)
	}
}
