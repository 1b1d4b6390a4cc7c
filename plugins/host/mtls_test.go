package host_test

import (
	"context"
	"crypto/tls"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	scriptedadapter "github.com/agentproto/agentproto/plugins/adapters/scripted"
	"github.com/agentproto/agentproto/plugins/host"
	"github.com/agentproto/agentproto/plugins/internal/proto"
	"github.com/agentproto/agentproto/plugins/internal/wire"
	"github.com/agentproto/agentproto/plugins/sdk"
)

// serveOnAutoMTLS is an adapter as the SDK built it before the host made
// the adapter's keys: go-plugin's own server side of AutoMTLS.
func serveOnAutoMTLS() {
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  wire.Handshake,
		VersionedPlugins: wire.PluginSets(sdk.NewServer(scriptedadapter.Adapter{})),
		GRPCServer:       plugin.DefaultGRPCServer,
	})
}

// An agent runs as the user, and the adapter's socket is a file it can
// find (/proc/net/unix lists it): what keeps it from driving the adapter
// is that the adapter accepts only the host's certificate.
func TestOnlyTheHostTalksToItsAdapter(t *testing.T) {
	base := t.TempDir()
	c, err := host.Launch(host.Spec{Name: "scripted", Path: scripted(t)}, host.LaunchOptions{Env: env(), SocketDir: base, SocketPrefix: "p-"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Kill()
	socks, _ := filepath.Glob(filepath.Join(base, "p-*", "plugin*"))
	if len(socks) != 1 {
		t.Fatalf("sockets: %v", socks)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Ping(ctx); err != nil {
		t.Fatalf("the host's own connection: %v", err)
	}
	other, _, err := wire.HostTLS() // a pair of its own, as any process can make
	if err != nil {
		t.Fatal(err)
	}
	other.InsecureSkipVerify = true
	for name, creds := range map[string]credentials.TransportCredentials{
		"plaintext":            insecure.NewCredentials(),
		"TLS without a cert":   credentials.NewTLS(&tls.Config{InsecureSkipVerify: true}),
		"TLS with its own key": credentials.NewTLS(other),
	} {
		conn, err := grpc.NewClient("unix://"+socks[0], grpc.WithTransportCredentials(creds))
		if err != nil {
			t.Fatal(err)
		}
		_, err = proto.NewAdapterClient(conn).Ping(ctx, &proto.PingRequest{Payload: []byte("x")})
		conn.Close()
		if err == nil {
			t.Errorf("%s: a process without the host's key pinged the adapter", name)
		}
	}
}

func TestAnAdapterOnGoPluginsAutoMTLSStillConnects(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c, err := host.Launch(host.Spec{Name: "automtls", Path: self}, host.LaunchOptions{Env: append(env(), "HOST_TEST_PLUGIN=automtls")})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Kill()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Describe(ctx); err != nil {
		t.Fatal(err)
	}
}
