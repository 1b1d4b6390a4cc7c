package sessions

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// The typed calls of the daemon protocol, one per operation. Each starts
// the daemon first when none runs (see Call); ctx ends the call when the
// caller goes away.

// Ping returns the daemon's process id.
func (c *Client) Ping(ctx context.Context) (int, error) {
	resp, err := c.Call(ctx, &Request{Op: OpPing})
	if err != nil {
		return 0, err
	}
	return resp.Pid, nil
}

// Start starts a session and returns its record once its first prompt
// is on its way. A session that failed while starting still exists: its
// record comes back with the error that says why.
func (c *Client) Start(ctx context.Context, a StartArgs) (*Record, error) {
	resp, err := c.Call(ctx, &Request{Op: OpStart, Start: &a})
	if resp == nil {
		return nil, err
	}
	if r := resp.Session; r != nil && c.Warn != nil && slices.Contains(r.Warnings, SandboxWarning(r.SandboxNote)) {
		c.Warn(SandboxWarning(r.SandboxNote))
	}
	return resp.Session, err
}

// Prompt sends a live session another turn; with interrupt, it first
// interrupts the turn in progress (text may then be empty).
func (c *Client) Prompt(ctx context.Context, id, text string, interrupt bool) error {
	_, err := c.Call(ctx, &Request{Op: OpPrompt, ID: id, Text: text, Interrupt: interrupt})
	return err
}

// Kill ends a session and every process it started, and returns its
// record.
func (c *Client) Kill(ctx context.Context, id string) (*Record, error) {
	resp, err := c.Call(ctx, &Request{Op: OpKill, ID: id})
	if err != nil {
		return nil, err
	}
	return resp.Session, nil
}

// Wait blocks until every named session reached until (UntilTurnEnd, the
// default, or UntilExit) or timeout passed, and returns those still
// pending: none when all arrived.
func (c *Client) Wait(ctx context.Context, ids []string, until string, timeout time.Duration) ([]string, error) {
	resp, err := c.Call(ctx, &Request{Op: OpWait, IDs: ids, Until: until, Timeout: timeout.String()})
	if err != nil {
		return nil, err
	}
	return resp.Pending, nil
}

// Monitor returns the named sessions' records as soon as any of them
// changes state or turn, or when timeout passed.
func (c *Client) Monitor(ctx context.Context, ids []string, timeout time.Duration) ([]*Record, error) {
	resp, err := c.Call(ctx, &Request{Op: OpMonitor, IDs: ids, Timeout: timeout.String()})
	if err != nil {
		return nil, err
	}
	return resp.Records, nil
}

// GC lists the live sessions and, with apply, cleans the settled and dead
// ones; it returns their records as they are afterwards.
func (c *Client) GC(ctx context.Context, apply bool) ([]*Record, error) {
	resp, err := c.Call(ctx, &Request{Op: OpGC, Apply: apply})
	if err != nil {
		return nil, err
	}
	return resp.Records, nil
}

// AttachPolicy attaches a policy to live sessions and returns it.
func (c *Client) AttachPolicy(ctx context.Context, a PolicyArgs) (*Policy, error) {
	resp, err := c.Call(ctx, &Request{Op: OpPolicyAttach, Policy: &a})
	if err != nil {
		return nil, err
	}
	if len(resp.Policies) != 1 {
		return nil, fmt.Errorf("bad answer from the sessions daemon: %d policies for one attached", len(resp.Policies))
	}
	return resp.Policies[0], nil
}

// Policies returns the daemon's policies.
func (c *Client) Policies(ctx context.Context) ([]*Policy, error) {
	resp, err := c.Call(ctx, &Request{Op: OpPolicyList})
	if err != nil {
		return nil, err
	}
	return resp.Policies, nil
}

// CancelPolicy stops a policy from firing again.
func (c *Client) CancelPolicy(ctx context.Context, id string) error {
	_, err := c.Call(ctx, &Request{Op: OpPolicyCancel, ID: id})
	return err
}

// WaitPolicies blocks until each named policy fired once (or was
// canceled) or timeout passed, and returns those still pending.
func (c *Client) WaitPolicies(ctx context.Context, ids []string, timeout time.Duration) ([]string, error) {
	resp, err := c.Call(ctx, &Request{Op: OpPolicyWait, IDs: ids, Timeout: timeout.String()})
	if err != nil {
		return nil, err
	}
	return resp.Pending, nil
}
