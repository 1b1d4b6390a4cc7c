package acp_test

import (
	"context"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/agentproto/agentproto/internal/fakemodel"
	"github.com/agentproto/agentproto/plugins/adapters/acp"
	"github.com/agentproto/agentproto/plugins/sdk"
)

// BenchmarkRealACP measures, for each real ACP agent against the fake
// provider, launch + first token (start the agent, initialize, open the
// session, set the model, send a prompt, first answer text) and one more
// turn, through the adapter and through a bare ACP client that only waits
// for the text: the agent alone. Each figure is the median of 5 runs.
//
//	AGENTPROTO_REAL_AGENTS=$PWD/.agents/node_modules/.bin go test -run '^$' -bench RealACP -benchtime 1x ./plugins/adapters/acp/
func BenchmarkRealACP(b *testing.B) {
	dir := os.Getenv("AGENTPROTO_REAL_AGENTS")
	if dir == "" {
		b.Skip("the real ACP agents are not installed: run make test-agents")
	}
	for _, a := range realAgents {
		b.Run(a.name, func(b *testing.B) {
			var first, next, bareFirst, bareNext []time.Duration
			for i := 0; i < 5; i++ {
				f, n := benchAdapter(b, dir, a)
				first, next = append(first, f), append(next, n)
				f, n = benchBare(b, dir, a)
				bareFirst, bareNext = append(bareFirst, f), append(bareNext, n)
			}
			b.ReportMetric(ms(median(first)), "ms-first-token")
			b.ReportMetric(ms(median(bareFirst)), "ms-first-token-bare")
			b.ReportMetric(ms(median(next)), "ms-turn")
			b.ReportMetric(ms(median(bareNext)), "ms-turn-bare")
			b.ReportMetric(float64(median(first))/float64(median(bareFirst)), "first-token-ratio")
			b.ReportMetric(float64(median(next))/float64(median(bareNext)), "turn-ratio")
		})
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// benchEnv is the agent's environment against a fresh fake provider.
func benchEnv(b *testing.B, a realAgent) (*fakemodel.Server, map[string]string) {
	fake := fakemodel.New(b)
	fake.SetModels(a.model)
	env := a.env(b, fake, fakemodel.Key)
	env["PATH"] = os.Getenv("PATH")
	return fake, env
}

// firstOutput is an Emitter that notes when the first answer text comes.
type firstOutput struct {
	seen  chan struct{}
	ended chan struct{}
	once  sync.Once
}

func (f *firstOutput) Output(p []byte) {
	if strings.Contains(string(p), "fast") {
		f.once.Do(func() { close(f.seen) })
	}
}
func (f *firstOutput) TurnStarted()         {}
func (f *firstOutput) TurnEnded()           { f.ended <- struct{}{} }
func (f *firstOutput) Error(string, string) {}
func (f *firstOutput) Exited(int)           {}

func benchAdapter(b *testing.B, dir string, a realAgent) (first, next time.Duration) {
	fake, env := benchEnv(b, a)
	fake.Default = fakemodel.Text("fast answer")
	opts := map[string]string{"command": dir + "/" + strings.Join(a.command, " ")}
	for k, v := range a.options {
		opts[k] = v
	}
	out := &firstOutput{seen: make(chan struct{}), ended: make(chan struct{}, 4)}
	wt := b.TempDir()
	start := time.Now()
	s, err := acp.Adapter{}.Start(context.Background(), sdk.StartRequest{Dir: wt, Env: env, Options: opts, Model: a.model, InitialPrompt: "go"}, out)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Terminate(context.Background())
	<-out.seen
	first = time.Since(start)
	<-out.ended
	start = time.Now()
	if err := s.Prompt(context.Background(), "again", false); err != nil {
		b.Fatal(err)
	}
	<-out.ended
	return first, time.Since(start)
}

// bareClient is the least an ACP client can be: it allows everything,
// writes nothing and only watches for the answer text.
type bareClient struct {
	seen chan struct{}
	once sync.Once
}

func (c *bareClient) SessionUpdate(_ context.Context, n acpsdk.SessionNotification) error {
	if m := n.Update.AgentMessageChunk; m != nil && m.Content.Text != nil && strings.Contains(m.Content.Text.Text, "fast") {
		c.once.Do(func() { close(c.seen) })
	}
	return nil
}
func (c *bareClient) RequestPermission(_ context.Context, r acpsdk.RequestPermissionRequest) (acpsdk.RequestPermissionResponse, error) {
	return acpsdk.RequestPermissionResponse{Outcome: acpsdk.NewRequestPermissionOutcomeSelected(r.Options[0].OptionId)}, nil
}
func (c *bareClient) ReadTextFile(context.Context, acpsdk.ReadTextFileRequest) (acpsdk.ReadTextFileResponse, error) {
	return acpsdk.ReadTextFileResponse{}, nil
}
func (c *bareClient) WriteTextFile(context.Context, acpsdk.WriteTextFileRequest) (acpsdk.WriteTextFileResponse, error) {
	return acpsdk.WriteTextFileResponse{}, nil
}
func (c *bareClient) CreateTerminal(context.Context, acpsdk.CreateTerminalRequest) (acpsdk.CreateTerminalResponse, error) {
	return acpsdk.CreateTerminalResponse{}, nil
}
func (c *bareClient) KillTerminal(context.Context, acpsdk.KillTerminalRequest) (acpsdk.KillTerminalResponse, error) {
	return acpsdk.KillTerminalResponse{}, nil
}
func (c *bareClient) TerminalOutput(context.Context, acpsdk.TerminalOutputRequest) (acpsdk.TerminalOutputResponse, error) {
	return acpsdk.TerminalOutputResponse{}, nil
}
func (c *bareClient) ReleaseTerminal(context.Context, acpsdk.ReleaseTerminalRequest) (acpsdk.ReleaseTerminalResponse, error) {
	return acpsdk.ReleaseTerminalResponse{}, nil
}
func (c *bareClient) WaitForTerminalExit(context.Context, acpsdk.WaitForTerminalExitRequest) (acpsdk.WaitForTerminalExitResponse, error) {
	return acpsdk.WaitForTerminalExitResponse{}, nil
}

func benchBare(b *testing.B, dir string, a realAgent) (first, next time.Duration) {
	fake, env := benchEnv(b, a)
	fake.Default = fakemodel.Text("fast answer")
	ctx := context.Background()
	start := time.Now()
	cmd := exec.Command(dir+"/"+a.command[0], a.command[1:]...)
	cmd.Dir = b.TempDir()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	in, _ := cmd.StdinPipe()
	outp, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { in.Close(); cmd.Process.Kill(); cmd.Wait() }()
	c := &bareClient{seen: make(chan struct{})}
	conn := acpsdk.NewClientSideConnection(c, in, outp)
	if _, err := conn.Initialize(ctx, acpsdk.InitializeRequest{ProtocolVersion: acpsdk.ProtocolVersionNumber,
		ClientCapabilities: acpsdk.ClientCapabilities{Fs: acpsdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}}}); err != nil {
		b.Fatal(err)
	}
	if a.name == "codex-acp" {
		conn.Authenticate(ctx, acpsdk.AuthenticateRequest{MethodId: "openai-api-key"})
	}
	ns, err := conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: cmd.Dir, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		b.Fatal(err)
	}
	if ns.Models != nil {
		conn.UnstableSetSessionModel(ctx, acpsdk.UnstableSetSessionModelRequest{SessionId: ns.SessionId, ModelId: acpsdk.UnstableModelId(a.model)})
	} else {
		conn.SetSessionConfigOption(ctx, acpsdk.SetSessionConfigOptionRequest{ValueId: &acpsdk.SetSessionConfigOptionValueId{
			SessionId: ns.SessionId, ConfigId: "model", Value: acpsdk.SessionConfigValueId(a.model)}})
	}
	if m := a.options["mode"]; m != "" {
		conn.SetSessionMode(ctx, acpsdk.SetSessionModeRequest{SessionId: ns.SessionId, ModeId: acpsdk.SessionModeId(m)})
	}
	done := make(chan error, 1)
	go func() {
		_, err := conn.Prompt(ctx, acpsdk.PromptRequest{SessionId: ns.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("go")}})
		done <- err
	}()
	<-c.seen
	first = time.Since(start)
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	start = time.Now()
	if _, err := conn.Prompt(ctx, acpsdk.PromptRequest{SessionId: ns.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("again")}}); err != nil {
		b.Fatal(err)
	}
	return first, time.Since(start)
}
