package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agentproto/agentproto/internal/fault"
)

// MCPClients are the clients the MCP config snippets are written for.
var MCPClients = []string{"claude", "codex", "cursor"}

// MCPServerName is the name the MCP server is registered under in a
// client.
const MCPServerName = "agentproto"

// MCPJSON is Claude Code's project file of MCP servers.
const MCPJSON = ".mcp.json"

// MCPConfig is what registers the MCP server with a client: the snippet
// to paste, and with write the project file it was added to.
type MCPConfig struct {
	Snippet string
	// Path is the file written (Claude Code's .mcp.json); Changed is
	// false when it registered the server already.
	Path    string
	Changed bool
}

// ConfigureMCPClient gives the snippet that registers the server with
// client and, with write, adds it to the repository's .mcp.json (Claude
// Code's file: the others' snippets are pasted).
func (e *Env) ConfigureMCPClient(ctx context.Context, client string, write bool) (*MCPConfig, error) {
	repo, err := e.Repo()
	if err != nil {
		return nil, err
	}
	if repo.WorkTree == "" {
		return nil, fault.Invalidf("mcp config needs a working tree")
	}
	text, err := mcpSnippet(client, repo.WorkTree)
	if err != nil || !write {
		return &MCPConfig{Snippet: text}, err
	}
	if client != "claude" {
		return nil, fault.Invalidf("--write adds to %s, Claude Code's file; for %s, paste the snippet", MCPJSON, client)
	}
	changed, err := writeMCPJSON(repo.WorkTree)
	if err != nil {
		return nil, err
	}
	return &MCPConfig{Snippet: text, Path: filepath.Join(repo.WorkTree, MCPJSON), Changed: changed}, nil
}

// serverEntry is one server of an mcpServers object (Claude Code, Cursor).
type serverEntry struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// mcpSnippet is the text that registers the server with client. Project
// files (Claude Code's .mcp.json, Cursor's .cursor/mcp.json) run the server
// in the project, so only Codex, configured per user, is given repoDir.
func mcpSnippet(client, repoDir string) (string, error) {
	switch client {
	case "claude", "cursor":
		where := "# add to .mcp.json at the top of the repository (or run: git agentproto mcp config --client claude --write)\n"
		if client == "cursor" {
			where = "# add to .cursor/mcp.json at the top of the repository\n"
		}
		b, _ := json.MarshalIndent(map[string]any{"mcpServers": map[string]serverEntry{MCPServerName: mcpEntry()}}, "", "  ")
		return where + string(b) + "\n", nil
	case "codex":
		return fmt.Sprintf("# add to ~/.codex/config.toml\n[mcp_servers.%s]\ncommand = \"git-agentproto\"\nargs = [\"mcp\", \"--repo\", %s]\n",
			MCPServerName, strconv.Quote(repoDir)), nil
	}
	return "", fault.Invalidf("--client %q: give one of %s", client, strings.Join(MCPClients, ", "))
}

func mcpEntry() serverEntry { return serverEntry{Command: "git-agentproto", Args: []string{"mcp"}} }

// writeMCPJSON adds the server to workTree/.mcp.json: other servers and
// other keys are kept as they are, a file that is not a JSON object (or
// whose mcpServers is not one) is refused with nothing written, and the
// file is replaced by rename so a reader never sees half of it. It
// reports whether anything changed.
func writeMCPJSON(workTree string) (bool, error) {
	root, err := os.OpenRoot(workTree)
	if err != nil {
		return false, err
	}
	defer root.Close()
	doc := map[string]json.RawMessage{}
	if fi, err := root.Lstat(MCPJSON); err == nil {
		if !fi.Mode().IsRegular() {
			return false, fault.Refusedf("%s is not a regular file (a symlink?); nothing was written", MCPJSON)
		}
		b, err := root.ReadFile(MCPJSON)
		if err != nil {
			return false, err
		}
		if len(bytes.TrimSpace(b)) > 0 {
			if err := json.Unmarshal(b, &doc); err != nil || doc == nil {
				return false, fault.Invalidf("%s is not a JSON object (%v); fix or move it, nothing was written", MCPJSON, jsonProblem(err))
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	servers := map[string]json.RawMessage{}
	if raw, ok := doc["mcpServers"]; ok {
		if err := json.Unmarshal(raw, &servers); err != nil || servers == nil {
			return false, fault.Invalidf("%s: mcpServers is not a JSON object; nothing was written", MCPJSON)
		}
	}
	want, _ := json.Marshal(mcpEntry())
	if old, ok := servers[MCPServerName]; ok && sameJSON(old, want) {
		return false, nil
	}
	servers[MCPServerName] = want
	doc["mcpServers"], _ = json.Marshal(servers)
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return false, err
	}
	tmp := fmt.Sprintf("%s.tmp-%d", MCPJSON, os.Getpid())
	if err := root.WriteFile(tmp, append(out, '\n'), 0o644); err != nil {
		return false, err
	}
	if err := root.Rename(tmp, MCPJSON); err != nil {
		root.Remove(tmp)
		return false, err
	}
	return true, nil
}

func jsonProblem(err error) string {
	if err == nil {
		return "null"
	}
	return err.Error()
}

func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}
