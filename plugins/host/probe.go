package host

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/plugins/probe"
	"github.com/agentproto/agentproto/plugins/vocab"
)

// probeTimeout bounds what a probe asks of a launched adapter.
const probeTimeout = 10 * time.Second

// ServeProbe answers one probe request read from in (see package probe)
// with one response on out. An adapter's failure is the response's; the
// returned error is only for a request that cannot be read or an answer
// that cannot be written.
func ServeProbe(in io.Reader, out io.Writer) error {
	var req probe.Request
	if err := json.NewDecoder(in).Decode(&req); err != nil {
		return fault.Invalidf("a probe request: %v", err)
	}
	var resp probe.Response
	info, err := runProbe(req)
	if err != nil {
		resp.Error, resp.Kind = err.Error(), fault.KindOf(err)
	}
	resp.Info = info
	return json.NewEncoder(out).Encode(resp)
}

func runProbe(req probe.Request) (vocab.Info, error) {
	c, err := Launch(req.Spec, LaunchOptions{Env: req.Env})
	if err != nil {
		return vocab.Info{}, err
	}
	defer c.Kill()
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	if req.Start == nil {
		return c.Describe(ctx)
	}
	if err := c.Start(ctx, *req.Start); err != nil {
		return vocab.Info{}, err
	}
	c.Terminate(ctx)
	return vocab.Info{}, nil
}
