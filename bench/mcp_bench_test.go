package bench

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentproto/agentproto/internal/testbin"
)

// mcpSession starts `git-agentproto mcp` in the runner's repository and
// connects the Go SDK's client to it over stdio.
func (r *runner) mcpSession() *sdk.ClientSession {
	r.b.Helper()
	cmd := exec.Command(filepath.Join(binDir, "git-agentproto"), "mcp")
	cmd.Dir, cmd.Env = r.dir, testbin.Env(binDir, r.home)
	c := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		r.b.Fatal(err)
	}
	return cs
}

func (r *runner) mcpCall(cs *sdk.ClientSession, name string, args any) time.Duration {
	r.b.Helper()
	start := time.Now()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	d := time.Since(start)
	if err != nil || res.IsError {
		r.b.Fatalf("%s: %v %+v", name, err, res)
	}
	return d
}

// BenchmarkMCP: round trips of a connected MCP client (tools/list, and
// ledger_log of 50 events from a 1,000-event ledger), against the same
// read as a CLI command (`ledger log --json --limit 50`) in the same run.
// The warm ratio is what a supervisor pays per call once connected; the
// cold figure adds starting the server and the handshake, paid once per
// client.
func BenchmarkMCP(b *testing.B) {
	for i := 0; i < b.N; i++ {
		r := newRunner(b)
		r.seed(1000)
		r.timeToNull("git", "agentproto", "ledger", "log", "--limit", "1") // build the index
		cs := r.mcpSession()
		args := map[string]any{"limit": 50}
		var list, warm, cli, cold []time.Duration
		for k := 0; k < 21; k++ {
			start := time.Now()
			if _, err := cs.ListTools(context.Background(), nil); err != nil {
				b.Fatal(err)
			}
			list = append(list, time.Since(start))
			warm = append(warm, r.mcpCall(cs, "ledger_log", args))
			cli = append(cli, r.timeToNull("git", "agentproto", "ledger", "log", "--json", "--limit", "50"))
			if k < 7 {
				start = time.Now()
				c := r.mcpSession()
				r.mcpCall(c, "ledger_log", args)
				c.Close()
				cold = append(cold, time.Since(start))
			}
		}
		cs.Close()
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		b.ReportMetric(ms(median(list)), "tools-list-ms")
		b.ReportMetric(ms(median(warm)), "mcp-ledger-log-ms")
		b.ReportMetric(ms(median(cli)), "cli-ledger-log-ms")
		b.ReportMetric(median(warm).Seconds()/median(cli).Seconds(), "mcp/cli-ratio")
		b.ReportMetric(ms(median(cold)), "mcp-connect+call-ms")
		b.ReportMetric(median(cold).Seconds()/median(cli).Seconds(), "cold-mcp/cli-ratio")
	}
}
