// Package host launches adapter plugins and talks to them: checksum checked
// on every launch, an environment built on purpose, its own process group so
// that killing a session kills every process the agent started.
package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/plugins/catalog"
	"github.com/agentproto/agentproto/plugins/internal/proto"
	"github.com/agentproto/agentproto/plugins/internal/wire"
	"github.com/agentproto/agentproto/plugins/sdk"
	"github.com/agentproto/agentproto/sandbox"
)

// Spec says which binary serves an adapter (catalog finds it).
type Spec = catalog.Spec

// FileSHA256 returns the checksum of a file.
func FileSHA256(path string) (string, error) { return catalog.FileSHA256(path) }

// BinaryPrefix starts the name of every adapter binary.
const BinaryPrefix = catalog.BinaryPrefix

// LaunchOptions shape the plugin process.
type LaunchOptions struct {
	// Env is the whole environment of the plugin; nothing of the host's
	// leaks in (go-plugin's SkipHostEnv).
	Env []string
	// Stderr receives the plugin's stderr as it comes.
	Stderr io.Writer
	// StartTimeout bounds the handshake.
	StartTimeout time.Duration
	// SocketDir, when set, is where the plugin makes its go-plugin socket
	// (in a directory of its own, SocketPrefix and a random number,
	// removed by Kill) instead of the shared temp dir, where a killed
	// plugin would leave it.
	SocketDir, SocketPrefix string
	// Confine, when set, runs the plugin (and so everything it starts)
	// in the kernel sandbox.
	Confine *Confinement
}

// Confinement is how a plugin is confined: the launcher that holds and
// confines its tree, and the policy, made once the plugin's socket
// directory (which it must be able to write) is known.
type Confinement struct {
	Launcher string
	Policy   func(socketDir string) (sandbox.Policy, error)
}

// Client is one launched adapter plugin.
type Client struct {
	Spec Spec
	rpc  proto.AdapterClient
	pc   *plugin.Client
	cmd  *exec.Cmd
	tail *Tail
	once sync.Once
	// sockDir is the plugin's own socket directory, removed by Kill.
	sockDir string
	// confined: the process is the sandbox launcher holding the plugin's
	// tree; holderFD is a pidfd of it (-1 when the kernel gave none),
	// which Kill waits on.
	confined bool
	holderFD *int
}

// Launch starts the plugin, verifies its checksum against the pin, and
// pings it. A pinned checksum that no longer matches is refused (exit 5).
func Launch(spec Spec, o LaunchOptions) (*Client, error) {
	// go-plugin checks the pin before it starts the binary; hashing it here
	// as well would cost a second read of the whole file on every launch.
	var checksum []byte
	if spec.SHA256 != "" {
		var err error
		if checksum, err = hex.DecodeString(spec.SHA256); err != nil || len(checksum) != sha256.Size {
			return nil, fault.Invalidf("adapter %s: the pinned sha256 %q is not 64 hex digits", spec.Name, spec.SHA256)
		}
	}
	tail := NewTail(8 << 10)
	var stderr io.Writer = tail
	if o.Stderr != nil {
		stderr = io.MultiWriter(tail, o.Stderr)
	}
	cmd := exec.Command(spec.Path)
	cmd.Env = o.Env
	var sockDir string
	if o.SocketDir != "" {
		d, err := os.MkdirTemp(o.SocketDir, o.SocketPrefix+"*")
		if err != nil {
			return nil, fmt.Errorf("adapter %s: a directory for its socket: %w", spec.Name, err)
		}
		sockDir = d
		cmd.Env = append(append([]string{}, o.Env...), plugin.EnvUnixSocketDir+"="+d)
	}
	// Its own process group: Kill reaches the agent CLI it spawns too. The
	// plugin dies with the host (Pdeathsig follows the thread that started
	// it, and Go ends a thread only when a goroutine locked to it exits,
	// which nothing here does); what it started is left to the host to reap.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	holderFD := new(int)
	*holderFD = -1
	if o.Confine != nil {
		// A pidfd from the fork itself: it names the launcher, never a
		// process that got its pid after it was reaped.
		cmd.SysProcAttr.PidFD = holderFD
		if err := confine(cmd, spec, o.Confine, sockDir); err != nil {
			if sockDir != "" {
				os.RemoveAll(sockDir)
			}
			return nil, err
		}
		// go-plugin would check the launcher's checksum: confine checked
		// the adapter's.
		checksum = nil
	}
	cfg := &plugin.ClientConfig{
		HandshakeConfig:  wire.Handshake,
		VersionedPlugins: wire.PluginSets(nil),
		Cmd:              cmd,
		SkipHostEnv:      true,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		Stderr:           stderr,
		// After Serve, go-plugin carries the plugin's os.Stderr and
		// os.Stdout over gRPC; keep those lines as well.
		SyncStderr:   stderr,
		SyncStdout:   stderr,
		StartTimeout: o.StartTimeout,
		Logger:       hclog.New(&hclog.LoggerOptions{Output: io.Discard, Level: hclog.Off}),
		GRPCDialOptions: []grpc.DialOption{grpc.WithDefaultCallOptions(
			grpc.MaxCallRecvMsgSize(wire.MaxMessage), grpc.MaxCallSendMsgSize(wire.MaxMessage))},
	}
	if checksum != nil {
		// A fresh hash per launch: a reused one fails the second check.
		cfg.SecureConfig = &plugin.SecureConfig{Checksum: checksum, Hash: sha256.New()}
	}
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = 20 * time.Second
	}
	// Mutual TLS with keys made here (wire.HostTLS says why not AutoMTLS).
	tlsConfig, tlsEnv, err := wire.HostTLS()
	if err != nil {
		return nil, fmt.Errorf("adapter %s: its connection's keys: %w", spec.Name, err)
	}
	cfg.TLSConfig = tlsConfig
	cmd.Env = append(append([]string{}, cmd.Env...), tlsEnv...)
	pc := plugin.NewClient(cfg)
	c := &Client{Spec: spec, pc: pc, cmd: cmd, tail: tail, sockDir: sockDir, confined: o.Confine != nil, holderFD: holderFD}
	rpcClient, err := pc.Client()
	if errors.Is(err, plugin.ErrChecksumsDoNotMatch) {
		c.Kill()
		got, herr := FileSHA256(spec.Path)
		if herr != nil {
			return nil, fmt.Errorf("adapter %s: %w", spec.Name, herr)
		}
		return nil, fault.Refusedf("adapter %s: %s has sha256 %s but %s is pinned; if the change is expected, run git agentproto plugin pin %s", spec.Name, spec.Path, got, spec.SHA256, spec.Name)
	}
	if err != nil {
		c.Kill()
		return nil, c.launchError(err)
	}
	raw, err := rpcClient.Dispense(wire.PluginName)
	if err != nil {
		c.Kill()
		return nil, c.launchError(err)
	}
	c.rpc = raw.(proto.AdapterClient)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Ping(ctx); err != nil {
		c.Kill()
		return nil, c.launchError(err)
	}
	return c, nil
}

func (c *Client) launchError(err error) error {
	// go-plugin's messages run to a dozen lines of generic advice; the first
	// line says what happened.
	first, _, _ := strings.Cut(err.Error(), "\n")
	msg := fmt.Sprintf("adapter %s (%s) failed to start: %s", c.Spec.Name, c.Spec.Path, strings.TrimSpace(first))
	if t := c.tail.String(); t != "" {
		msg += "\nstderr (last lines):\n" + t
	}
	return errors.New(msg)
}

// StderrTail returns the end of the plugin's stderr.
func (c *Client) StderrTail() string { return c.tail.String() }

// Pid is the plugin's process id (also its process group id).
func (c *Client) Pid() int {
	if c.cmd.Process == nil {
		return 0
	}
	return c.cmd.Process.Pid
}

// Ping checks the plugin answers.
func (c *Client) Ping(ctx context.Context) error {
	_, err := c.rpc.Ping(ctx, &proto.PingRequest{Payload: []byte("ping")})
	return c.rpcError(err)
}

// Describe asks the adapter who it is.
func (c *Client) Describe(ctx context.Context) (sdk.Info, error) {
	r, err := c.rpc.Describe(ctx, &proto.DescribeRequest{})
	if err != nil {
		return sdk.Info{}, c.rpcError(err)
	}
	return sdk.Info{Name: r.Name, Version: r.Version, Capabilities: r.Capabilities, Models: r.Models, AuthMethods: r.AuthMethods}, nil
}

// Start starts the session.
func (c *Client) Start(ctx context.Context, req sdk.StartRequest) error {
	r, err := c.rpc.StartSession(ctx, &proto.StartSessionRequest{SessionId: req.SessionID, Dir: req.Dir, Model: req.Model,
		Env: req.Env, InitialPrompt: req.InitialPrompt, Options: req.Options, Resume: req.Resume})
	if err != nil {
		return c.rpcError(err)
	}
	return diagError(r.Diagnostics)
}

// Prompt sends a turn or an interrupt.
func (c *Client) Prompt(ctx context.Context, text string, interrupt bool) error {
	r, err := c.rpc.Prompt(ctx, &proto.PromptRequest{Text: text, Interrupt: interrupt})
	if err != nil {
		return c.rpcError(err)
	}
	return diagError(r.Diagnostics)
}

// Events calls fn with every event after seq until the session exits, the
// stream breaks or ctx ends.
func (c *Client) Events(ctx context.Context, after uint64, fn func(*Event) error) error {
	stream, err := c.rpc.Events(ctx, &proto.EventsRequest{AfterSeq: after})
	if err != nil {
		return c.rpcError(err)
	}
	for {
		e, err := stream.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return c.rpcError(err)
		}
		if err := fn(fromWire(e)); err != nil {
			return err
		}
	}
}

// Terminate asks the adapter to end the session.
func (c *Client) Terminate(ctx context.Context) error {
	_, err := c.rpc.Terminate(ctx, &proto.TerminateRequest{})
	return c.rpcError(err)
}

// Kill ends the plugin and its whole process group: go-plugin's own Kill
// stops only the plugin, and the agent CLI it started would be orphaned.
func (c *Client) Kill() {
	c.once.Do(func() {
		if c.confined {
			c.stopHolder()
			if *c.holderFD >= 0 {
				syscall.Close(*c.holderFD)
			}
		}
		if c.cmd.Process != nil {
			syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
		}
		if c.pc != nil {
			c.pc.Kill()
		}
		if c.sockDir != "" {
			os.RemoveAll(c.sockDir)
		}
	})
}

// Confined reports whether the process is the sandbox launcher holding
// the plugin, rather than the plugin itself.
func (c *Client) Confined() bool { return c.confined }

// Exited reports whether the plugin process has ended.
func (c *Client) Exited() bool { return c.pc != nil && c.pc.Exited() }

func diagError(ds []*proto.Diagnostic) error {
	var msgs []string
	for _, d := range ds {
		if d.Severity != proto.Severity_SEVERITY_ERROR {
			continue
		}
		m := d.Summary
		if d.Detail != "" {
			m += ": " + d.Detail
		}
		msgs = append(msgs, m)
	}
	if len(msgs) == 0 {
		return nil
	}
	return fault.Invalidf("%s", strings.Join(msgs, "; "))
}

// Wrap makes a Client over an already connected adapter, for in-process
// protocol tests; Kill then only closes nothing.
func Wrap(name string, rpc proto.AdapterClient) *Client {
	return &Client{Spec: Spec{Name: name}, rpc: rpc, cmd: &exec.Cmd{}, tail: NewTail(1024)}
}

// SocketDir is the plugin's own go-plugin socket directory ("" when the
// plugin uses the temp dir).
func (c *Client) SocketDir() string { return c.sockDir }
