// Package wire is what the host and the SDK share about the plugin
// transport: the go-plugin handshake and the gRPC plugin definition.
package wire

import (
	"context"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/agentproto/agentproto/plugins/internal/proto"
)

// ProtocolVersion is the adapter protocol version; VersionedPlugins lets a
// later version be served beside it.
const ProtocolVersion = 1

// PluginName is the single plugin an adapter binary serves.
const PluginName = "adapter"

// Handshake is not security: it keeps a user from running an adapter by
// hand and tells a wrong binary apart from an adapter.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   "AGENTPROTO_ADAPTER_PLUGIN",
	MagicCookieValue: "4f1c9d2e-agentproto-adapter",
}

// MaxMessage bounds one gRPC message; output chunks are far smaller.
const MaxMessage = 16 << 20

// GRPCPlugin serves or dials the Adapter service.
type GRPCPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	Impl proto.AdapterServer
}

// GRPCServer registers the adapter's service.
func (p *GRPCPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	proto.RegisterAdapterServer(s, p.Impl)
	return nil
}

// GRPCClient returns the client stub.
func (p *GRPCPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return proto.NewAdapterClient(c), nil
}

// PluginSets is the versioned plugin map both sides use.
func PluginSets(server proto.AdapterServer) map[int]plugin.PluginSet {
	return map[int]plugin.PluginSet{
		ProtocolVersion: {PluginName: &GRPCPlugin{Impl: server}},
	}
}
