package sdk

import (
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"slices"
	"sync"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/agentproto/agentproto/plugins/internal/proto"
	"github.com/agentproto/agentproto/plugins/internal/wire"
)

// Serve runs the adapter as an agentproto plugin until the host ends it.
// Nothing may be printed to stdout before or during Serve: stdout carries
// the plugin handshake.
//
// The plugin runs on one OS thread at a time unless GOMAXPROCS is set in
// its environment: an adapter waits on the host and on its agent, and
// goroutine hand-offs across threads cost more than they bring (a prompt
// round trip took 121 µs instead of 176 µs; streaming stayed at 220 MB/s).
// The agent CLIs it starts are not affected. An adapter with heavy work of
// its own can raise it with runtime.GOMAXPROCS in Start.
func Serve(a Adapter) {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  wire.Handshake,
		VersionedPlugins: wire.PluginSets(NewServer(a)),
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			opts = append(opts, grpc.MaxRecvMsgSize(wire.MaxMessage), grpc.MaxSendMsgSize(wire.MaxMessage),
				// Reuse handler goroutines rather than start one per call:
				// a prompt round trip is otherwise dominated by scheduling.
				grpc.NumStreamWorkers(uint32(runtime.GOMAXPROCS(0))))
			return grpc.NewServer(opts...)
		},
		TLSProvider: wire.ServerTLS,
		Logger:      hclog.New(&hclog.LoggerOptions{Output: io.Discard, Level: hclog.Off}),
	})
}

// server implements the wire protocol on top of an Adapter. Every method
// has the same shape: convert in, call the adapter, convert out.
type server struct {
	proto.UnimplementedAdapterServer
	adapter Adapter

	mu      sync.Mutex
	session Session
	log     *eventLog
}

// NewServer returns the gRPC service of an adapter. Serve uses it; tests of
// the protocol can too.
func NewServer(a Adapter) proto.AdapterServer {
	return &server{adapter: a, log: newEventLog()}
}

func (s *server) Describe(context.Context, *proto.DescribeRequest) (*proto.DescribeResponse, error) {
	i := s.adapter.Info()
	return &proto.DescribeResponse{Name: i.Name, Version: i.Version, Capabilities: i.Capabilities, Models: i.Models, AuthMethods: i.AuthMethods}, nil
}

func (s *server) Ping(_ context.Context, r *proto.PingRequest) (*proto.PingResponse, error) {
	return &proto.PingResponse{Payload: r.Payload}, nil
}

func (s *server) StartSession(_ context.Context, r *proto.StartSessionRequest) (*proto.StartSessionResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.session != nil {
		return &proto.StartSessionResponse{Diagnostics: diag(Problemf("this plugin process already runs a session"))}, nil
	}
	req := StartRequest{SessionID: r.SessionId, Dir: r.Dir, Model: r.Model, Env: r.Env, InitialPrompt: r.InitialPrompt, Options: r.Options, Resume: r.Resume}
	bound := s.adapter.Info().Capabilities
	// The session outlives this call: it gets a context of its own.
	sess, err := s.adapter.Start(context.Background(), req, emitter{log: s.log, bound: bound, resumes: slices.Contains(bound, CapResume)})
	if err != nil {
		return &proto.StartSessionResponse{Diagnostics: diag(err)}, problemOnly(err)
	}
	s.session = sess
	return &proto.StartSessionResponse{}, nil
}

func (s *server) current() (Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.session == nil {
		return nil, &Problem{Summary: "no session has been started"}
	}
	return s.session, nil
}

func (s *server) Prompt(ctx context.Context, r *proto.PromptRequest) (*proto.PromptResponse, error) {
	sess, err := s.current()
	if err == nil {
		err = sess.Prompt(ctx, r.Text, r.Interrupt)
	}
	if err != nil {
		return &proto.PromptResponse{Diagnostics: diag(err)}, problemOnly(err)
	}
	return &proto.PromptResponse{}, nil
}

func (s *server) Events(r *proto.EventsRequest, stream proto.Adapter_EventsServer) error {
	rd := s.log.register()
	defer s.log.unregister(rd)
	stop := make(chan struct{})
	go func() {
		<-stream.Context().Done()
		close(stop)
		s.log.wake()
	}()
	after := r.AfterSeq
	for {
		evs, done := s.log.wait(after, stop)
		for _, e := range evs {
			if err := stream.Send(e); err != nil {
				return err
			}
			after = e.Seq
		}
		s.log.advance(rd, after)
		if done {
			return nil
		}
	}
}

func (s *server) Terminate(ctx context.Context, _ *proto.TerminateRequest) (*proto.TerminateResponse, error) {
	sess, err := s.current()
	if err != nil {
		return &proto.TerminateResponse{}, nil
	}
	if err := sess.Terminate(ctx); err != nil {
		return nil, err
	}
	return &proto.TerminateResponse{}, nil
}

// diag turns an error into diagnostics when it is meant for the user.
func diag(err error) []*proto.Diagnostic {
	var p *Problem
	if errors.As(err, &p) {
		return []*proto.Diagnostic{{Severity: proto.Severity_SEVERITY_ERROR, Summary: p.Summary, Detail: p.Detail}}
	}
	return nil
}

// problemOnly keeps user problems out of the transport error channel.
func problemOnly(err error) error {
	var p *Problem
	if errors.As(err, &p) {
		return nil
	}
	return err
}
