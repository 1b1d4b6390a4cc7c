package bench

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
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

// BenchmarkMCPCheapRead: the round trip of a cheap read through a
// connected client (ledger_log of one event from a 1,000-event ledger),
// 200 calls: its p50 and p99, what a supervisor's polling costs per call.
func BenchmarkMCPCheapRead(b *testing.B) {
	for i := 0; i < b.N; i++ {
		r := newRunner(b)
		r.seed(1000)
		cs := r.mcpSession()
		args := map[string]any{"limit": 1}
		r.mcpCall(cs, "ledger_log", args) // the index
		var ds []time.Duration
		for k := 0; k < 200; k++ {
			ds = append(ds, r.mcpCall(cs, "ledger_log", args))
		}
		cs.Close()
		sort.Slice(ds, func(x, y int) bool { return ds[x] < ds[y] })
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
		b.ReportMetric(ms(ds[len(ds)/2]), "p50-ms")
		b.ReportMetric(ms(ds[len(ds)*99/100]), "p99-ms")
	}
}

// BenchmarkMCPLargeMessages: the server's memory after ten large
// messages on its stdin, each answered before the next: ten of 15 MiB
// (past the 4 MiB bound: skipped as they stream in) and ten of 3.5 MiB
// (within it: decoded and answered). VmRSS after each ten, and the peak.
func BenchmarkMCPLargeMessages(b *testing.B) {
	for i := 0; i < b.N; i++ {
		r := newRunner(b)
		cmd := exec.Command(filepath.Join(binDir, "git-agentproto"), "mcp")
		cmd.Dir, cmd.Env = r.dir, testbin.Env(binDir, r.home)
		in, _ := cmd.StdinPipe()
		outPipe, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		out := bufio.NewReaderSize(outPipe, 1<<20)
		send := func(size int) {
			msg := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", size) + "\"}}\n"
			if _, err := io.WriteString(in, msg); err != nil {
				b.Fatal(err)
			}
			if _, err := out.ReadBytes('\n'); err != nil {
				b.Fatal(err)
			}
		}
		status := func(field string) float64 {
			s, _ := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/status")
			for _, l := range strings.Split(string(s), "\n") {
				if f, ok := strings.CutPrefix(l, field+":"); ok {
					kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(f), "kB")))
					return float64(kb) / 1024
				}
			}
			return 0
		}
		for k := 0; k < 10; k++ {
			send(15 << 20)
		}
		b.ReportMetric(status("VmRSS"), "rss-after-10x15MiB-MiB")
		for k := 0; k < 10; k++ {
			send(7 << 19)
		}
		b.ReportMetric(status("VmRSS"), "rss-after-10x3.5MiB-MiB")
		b.ReportMetric(status("VmHWM"), "peak-MiB")
		in.Close()
		cmd.Wait()
	}
}
