// A supervisor's MCP client made with the official TypeScript SDK
// (@modelcontextprotocol/sdk, pinned in .agents/package.json), used by
// e2e/mcp_npm_test.go. It starts `git-agentproto mcp` in the current
// directory, lists the tools, runs the steps given as JSON in argv[2] and
// prints one JSON document: the tools and each step's outcome.
//
// A step is {tool, args, progress, abortAfterMs, timeoutMs}: progress asks
// for progress notifications (and lets them reset the request timeout, as
// the Inspector does); abortAfterMs cancels the call (the SDK sends
// notifications/cancelled). A string argument "$started" is the id of the
// session the last session_start returned. callTool validates every structured result
// against the tool's output schema: a mismatch is an outcome with error.
const { createRequire } = require("node:module");
const path = require("node:path");

const req = createRequire(path.join(process.env.MCP_NODE_MODULES, "noop.js"));
const { Client } = req("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = req("@modelcontextprotocol/sdk/client/stdio.js");

async function main() {
  const steps = JSON.parse(process.argv[2] || "[]");
  const transport = new StdioClientTransport({
    command: process.env.AGENTPROTO_BIN,
    args: ["mcp"],
    cwd: process.cwd(),
    env: process.env,
    stderr: "inherit",
  });
  const client = new Client({ name: "npm-supervisor", version: "1" });
  await client.connect(transport);
  const listed = await client.listTools();
  const tools = listed.tools.map((t) => ({
    name: t.name,
    annotations: t.annotations || null,
    outputSchema: !!t.outputSchema,
  }));
  const outcomes = [];
  let lastSession = "";
  const fill = (v) => (v === "$started" ? lastSession : Array.isArray(v) ? v.map(fill) : v);
  for (const s of steps) {
    const args = {};
    for (const [k, v] of Object.entries(s.args || {})) args[k] = fill(v);
    const started = Date.now();
    const out = { tool: s.tool, progress: [] };
    const opts = { timeout: s.timeoutMs || 60000 };
    if (s.progress) {
      opts.onprogress = (p) => out.progress.push(p.message || "");
      opts.resetTimeoutOnProgress = true;
    }
    if (s.abortAfterMs) {
      const ac = new AbortController();
      setTimeout(() => ac.abort("the supervisor changed its mind"), s.abortAfterMs);
      opts.signal = ac.signal;
    }
    try {
      const res = await client.callTool({ name: s.tool, arguments: args }, undefined, opts);
      out.isError = !!res.isError;
      out.structuredContent = res.structuredContent || null;
      out.texts = (res.content || []).filter((c) => c.type === "text").map((c) => c.text);
      if (s.tool === "session_start" && res.structuredContent) lastSession = res.structuredContent.id;
    } catch (e) {
      out.error = String(e && e.message ? e.message : e);
    }
    out.ms = Date.now() - started;
    outcomes.push(out);
  }
  await client.close();
  process.stdout.write(JSON.stringify({ tools, outcomes }) + "\n");
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack ? e.stack : e) + "\n");
  process.exit(1);
});
