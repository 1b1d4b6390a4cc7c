package docs

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/agentproto/agentproto/"

// The ranks of docs/architecture.md's drawing, top to bottom. A package
// imports only packages of a lower rank, or of its own rank where
// sideways says why.
const (
	unranked      = -1 // a package layer() does not know: rank it there
	noLayer       = 0  // e2e, bench, examples, these checks
	floor         = 1  // know nothing of plans or agents
	domain        = 2  // what a plan, a profile, a recon is
	service       = 3  // one record or lifecycle each, on the floors
	composed      = 4  // services built on services
	orchestration = 5  // the pipeline that composes them
	useCase       = 6  // one call per use case, under both front ends
	frontEnd      = 7  // flags or schema, one call, print
)

// layer ranks a package by its first path segment.
func layer(pkg string) int {
	first, _, _ := strings.Cut(pkg, "/")
	switch first {
	case "cmd", "mcp":
		return frontEnd
	case "app":
		return useCase
	case "pipeline", "watch", "reactions", "web":
		return orchestration
	case "peers", "fork", "launch", "isolation":
		return composed
	case "sessions", "worktree", "forge", "hooks", "lessons":
		return service
	case "plans", "profiles", "scout", "spend",
		// The review engine: it knows diffs and findings, not plans or
		// sessions.
		"judge":
		return domain
	case "gitstore", "internal", "sandbox", "plugins", "perimeter":
		return floor
	case "e2e", "bench", "examples", "docs":
		return noLayer
	}
	return unranked
}

// sideways lists the imports allowed between two packages of the same
// rank, by first path segment, each with the reason it is not a tangle.
// Floors and front ends are not listed: floors are small helpers built on
// each other (gitstore on gitobj, host on sandbox), and the front ends are
// one command tree; what matters of them is what they may not import.
var sideways = map[[2]string]string{
	{"plans", "scout"}:        "a plan's check and freeze carry the verdicts of its recon",
	{"fork", "peers"}:         "a fork is a peer decision: admission reads the goal's peers, and fork joins its branches to their packet",
	{"fork", "launch"}:        "a fork's executor session starts through the one launch resolver",
	{"watch", "pipeline"}:     "the live view reads the plan state pipeline folds; it starts nothing",
	{"watch", "reactions"}:    "the live view draws the pull request's reactions as the last poll recorded them; it starts nothing",
	{"reactions", "pipeline"}: "a reaction to a pull request closes its loop through the pipeline's steps (verify, checkpoint, consolidate, review), never around them",
	{"web", "pipeline"}:       "the reviewer's page draws the pipeline's events; it starts nothing",
	{"web", "reactions"}:      "the reviewer's page draws the pull request's reactions as pr watch recorded them",
}

// imports lists every package of the module with the module's packages it
// imports, without the module prefix.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	all := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, ok := strings.CutPrefix(fields[0], module)
		if !ok {
			continue
		}
		all[pkg] = []string{}
		for _, imp := range fields[1:] {
			if dep, ok := strings.CutPrefix(imp, module); ok {
				all[pkg] = append(all[pkg], dep)
			}
		}
	}
	return all
}

// checkImport says what is wrong with pkg importing dep, or "". used
// collects the sideways entries that allowed an import.
func checkImport(pkg, dep string, used map[[2]string]bool) string {
	from, to := layer(pkg), layer(dep)
	if to > from {
		return "imports point down only"
	}
	if strings.HasPrefix(dep, "cmd/") && !strings.HasPrefix(pkg, "cmd/") {
		return "only the command tree uses cmd/ packages"
	}
	// An adapter runs as its own process: the host talks to it over the
	// plugin protocol, never by importing it.
	if strings.HasPrefix(dep, "plugins/adapters/") && !strings.HasPrefix(pkg, "plugins/adapters/") && !strings.HasPrefix(pkg, "cmd/agentproto-adapter-") {
		return "only an adapter's own binary imports an adapter"
	}
	if to != from || from == floor || from == frontEnd {
		return ""
	}
	a, _, _ := strings.Cut(pkg, "/")
	b, _, _ := strings.Cut(dep, "/")
	if a == b {
		return "" // one package's own parts
	}
	if _, ok := sideways[[2]string{a, b}]; ok {
		used[[2]string{a, b}] = true
		return ""
	}
	return "a sideways import between packages of one rank; hand in what is needed, or list it in sideways with the reason"
}

// TestArchitectureLayers fails when a package imports one from a rank
// above its own or, without a reason in sideways, from its own rank; when
// a package outside cmd/ imports one of cmd/ or an adapter; and when a
// package has no rank: the one-way layers docs/architecture.md describes.
func TestArchitectureLayers(t *testing.T) {
	used := map[[2]string]bool{}
	ranked := 0
	for pkg, deps := range imports(t) {
		if layer(pkg) == unranked {
			t.Errorf("%s has no rank: add it to layer() and to docs/architecture.md's drawing", pkg)
			continue
		}
		if layer(pkg) == noLayer {
			continue
		}
		ranked++
		for _, dep := range deps {
			if why := checkImport(pkg, dep, used); why != "" {
				t.Errorf("%s (rank %d) imports %s (rank %d): %s", pkg, layer(pkg), dep, layer(dep), why)
			}
		}
	}
	if ranked < 40 {
		t.Fatalf("only %d packages ranked; go list no longer lists the module", ranked)
	}
	for pair, why := range sideways {
		if !used[pair] {
			t.Errorf("sideways allows %s → %s (%s), which nothing imports any more: remove it", pair[0], pair[1], why)
		}
	}
}

// TestSidewaysImportsFail shows the check refusing the arrows the layers
// once had, so that a rank change cannot quietly let them back.
func TestSidewaysImportsFail(t *testing.T) {
	for _, c := range [][2]string{
		{"peers", "pipeline"},                // up: peers is composed by pipeline's front ends
		{"pipeline", "plugins/adapters/acp"}, // an adapter is a process, not a library
		{"plugins/adapters/acp", "plans"},    // up: the adapter would link the ledger
		{"peers", "fork"},                    // sideways, not listed
		{"sessions", "worktree"},             // sideways, not listed
		{"plans", "profiles"},                // sideways, not listed
		{"gitstore", "plans"},                // a floor knows nothing of plans
		{"judge", "sessions"},                // up: a judge knows diffs, not sessions
	} {
		if checkImport(c[0], c[1], map[[2]string]bool{}) == "" {
			t.Errorf("%s importing %s passes the layer check", c[0], c[1])
		}
	}
}

// TestAdapterLinksNoLedger fails when the acp adapter's binary links the
// ledger's storage (bbolt) or go-git: an adapter needs the perimeter's
// globs, not the repository's history.
func TestAdapterLinksNoLedger(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../cmd/agentproto-adapter-acp").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "bbolt") || strings.HasPrefix(dep, "github.com/go-git/") || dep == module+"gitstore" {
			t.Errorf("cmd/agentproto-adapter-acp links %s", dep)
		}
	}
}

// TestCLILinksNoPluginTransport fails when git-agentproto links the plugin
// transport (go-plugin, gRPC, protobuf): their package initialisation
// alone cost every command 2.4 ms of start-up, half the 5 ms target for
// --version. Launching an adapter belongs to agentproto-sessions; the CLI
// reads plugins/vocab and plugins/catalog, and probes through plugins/probe.
func TestCLILinksNoPluginTransport(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../cmd/git-agentproto", "../cmd/agentproto-sessions").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	cli, err := exec.Command("go", "list", "-deps", "../cmd/git-agentproto").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	transport := func(dep string) bool {
		return strings.HasPrefix(dep, "github.com/hashicorp/go-plugin") ||
			strings.HasPrefix(dep, "google.golang.org/grpc") ||
			strings.HasPrefix(dep, "google.golang.org/protobuf") ||
			dep == module+"plugins/host" || dep == module+"plugins/sdk" || dep == module+"sessions/daemon"
	}
	// The daemon's binary links them: a check that finds none there has
	// lost the names it looks for.
	if !slices.ContainsFunc(strings.Fields(string(out)), transport) {
		t.Fatal("agentproto-sessions links none of the transport packages; the check no longer sees them")
	}
	for _, dep := range strings.Fields(string(cli)) {
		if transport(dep) {
			t.Errorf("cmd/git-agentproto links %s: launch adapters from agentproto-sessions (see plugins/probe)", dep)
		}
	}
}

// TestCLILinksNoMCPServer fails when git-agentproto links the MCP server
// or its SDK: with them, --version took 8-10 % longer (28.4 instead of
// 25.6 ms in alternating runs; the JSON schema machinery, gob, the SDK's
// OAuth types) and the binary was 3.6 MB bigger. git agentproto mcp runs
// agentproto-mcp.
func TestCLILinksNoMCPServer(t *testing.T) {
	server, err := exec.Command("go", "list", "-deps", "../cmd/agentproto-mcp").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	cli, err := exec.Command("go", "list", "-deps", "../cmd/git-agentproto").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	isMCP := func(dep string) bool {
		return strings.HasPrefix(dep, "github.com/modelcontextprotocol/") ||
			strings.HasPrefix(dep, "github.com/google/jsonschema-go") || dep == module+"mcp"
	}
	if !slices.ContainsFunc(strings.Fields(string(server)), isMCP) {
		t.Fatal("agentproto-mcp links none of the MCP packages; the check no longer sees them")
	}
	for _, dep := range strings.Fields(string(cli)) {
		if isMCP(dep) {
			t.Errorf("cmd/git-agentproto links %s: the MCP server is agentproto-mcp, which git agentproto mcp runs", dep)
		}
	}
}
