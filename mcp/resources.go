package mcp

import (
	"context"
	"net/url"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentproto/agentproto/internal/fault"
)

// outputTail is how many lines a session's output resource holds: enough
// to see how a turn ended without filling a model's context.
const outputTail = 200

// addBriefResources serves the files of frozen plans as recorded:
// agentproto://plan/PROJECT/FILE (SPEC.md, CONTRACT.md, WPn-brief.md).
func addBriefResources(s *sdk.Server, e *env) {
	s.AddResourceTemplate(&sdk.ResourceTemplate{
		Name:        "frozen-plan-file",
		Title:       "A file of a frozen plan",
		Description: "SPEC.md, CONTRACT.md or a brief, as frozen in the ledger (not the working copy)",
		URITemplate: "agentproto://plan/{project}/{file}",
		MIMEType:    "text/markdown",
	}, func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		parts, err := uriParts(req.Params.URI, "plan", 2)
		if err != nil {
			return nil, err
		}
		b, found, err := e.app.FrozenFile(ctx, parts[0], parts[1])
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, sdk.ResourceNotFoundError(req.Params.URI)
		}
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: string(b)}}}, nil
	})
}

// addSessionResources serves a session's clean output tail:
// agentproto://session/ID/output.
func addSessionResources(s *sdk.Server, e *env) {
	s.AddResourceTemplate(&sdk.ResourceTemplate{
		Name:        "session-output",
		Title:       "A session's output tail",
		Description: "the last 200 lines of a session's output, terminal escapes stripped",
		URITemplate: "agentproto://session/{id}/output",
		MIMEType:    "text/plain",
	}, func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		parts, err := uriParts(req.Params.URI, "session", 2)
		if err != nil {
			return nil, err
		}
		if parts[1] != "output" {
			return nil, sdk.ResourceNotFoundError(req.Params.URI)
		}
		lines, err := e.app.SessionTail(ctx, parts[0], outputTail, true)
		if err != nil {
			return nil, err
		}
		var b strings.Builder
		for _, l := range lines {
			b.WriteString(l.Line)
			b.WriteByte('\n')
		}
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: b.String()}}}, nil
	})
}

// uriParts splits agentproto://HOST/a/b into its n path segments; a
// segment that is empty, dot-only or holds a separator is refused.
func uriParts(uri, host string, n int) ([]string, error) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "agentproto" || u.Host != host {
		return nil, fault.Invalidf("not an agentproto://%s/ resource", host)
	}
	parts := strings.Split(strings.TrimPrefix(u.Path, "/"), "/")
	if len(parts) != n {
		return nil, fault.Invalidf("agentproto://%s/ takes %d path segments", host, n)
	}
	for _, p := range parts {
		if p == "" || p == "." || p == ".." || strings.ContainsAny(p, `\`+"\x00") {
			return nil, fault.Invalidf("bad segment in %s", uri)
		}
	}
	return parts, nil
}
