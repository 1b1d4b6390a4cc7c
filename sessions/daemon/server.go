package daemon

import (
	"bufio"
	"encoding/json"
	"errors"
	"net"
	"os"
	"time"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/sessions"
)

// requestTimeout bounds the wait for a request once a client connects.
const requestTimeout = 30 * time.Second

// observing are the operations that only look: a client asking them (a
// watch refreshing every second) is no reason to stay up.
var observing = map[string]bool{sessions.OpPing: true, sessions.OpPolicyList: true}

// serveConn answers one connection: one request, one answer. Only our own
// user gets in (admit); a request is read within a bound of time and size.
func (d *Daemon) serveConn(conn net.Conn) {
	defer conn.Close()
	if !d.admit(conn) {
		return
	}
	// The request comes right after connecting. Until it does the client
	// is not counted: one connected with nothing to ask (a probe, a
	// client that hangs) must not keep the daemon from stopping.
	conn.SetReadDeadline(time.Now().Add(requestTimeout))
	req, err := sessions.DecodeRequest(bufio.NewReaderSize(conn, 64<<10), sessions.MaxRequest)
	conn.SetReadDeadline(time.Time{})
	if err == nil && !observing[req.Op] {
		// A request in flight keeps the daemon up, and the idle clock
		// starts again once it is answered.
		defer d.hold()()
	}
	var resp *sessions.Response
	switch {
	case errors.Is(err, sessions.ErrFrameTooLarge):
		d.logf("refused a request: %v", err)
		resp = errResponse(fault.Invalidf("request refused: %v (the limit is %d MiB)", err, sessions.MaxRequest>>20))
	case errors.Is(err, sessions.ErrBadRequest):
		resp = errResponse(fault.Invalidf("%v", err))
	case err != nil:
		return // the client went away or sent nothing in time
	default:
		if err := d.authorise(req); err != nil {
			d.logf("refused %s from process %d: no valid control token", req.Op, d.peerPid(conn))
			resp = errResponse(err)
		} else {
			resp = d.handle(req)
		}
	}
	// What the request did is in the ledger before the caller hears of it.
	d.journal.flush()
	b, _ := json.Marshal(resp)
	// A client that stops reading must not hold the goroutine for ever.
	conn.SetWriteDeadline(time.Now().Add(time.Minute))
	conn.Write(append(b, '\n'))
	if err == nil && req.Op == sessions.OpStop && resp.OK {
		d.stop("the sessions daemon was stopped (git agentproto sessions stop)")
	}
}

func errResponse(err error) *sessions.Response {
	return &sessions.Response{Error: err.Error(), Kind: int(fault.KindOf(err))}
}

// answer is resp, or the error instead; a response with something still
// pending is not OK.
func answer(resp *sessions.Response, err error) *sessions.Response {
	if err != nil {
		return errResponse(err)
	}
	resp.OK = len(resp.Pending) == 0
	return resp
}

// handler answers one operation.
type handler func(d *Daemon, req *sessions.Request) *sessions.Response

// handlers is the daemon's whole protocol: one entry per operation.
var handlers = map[string]handler{
	sessions.OpPing: func(d *Daemon, _ *sessions.Request) *sessions.Response {
		return &sessions.Response{OK: true, Pid: os.Getpid()}
	},
	sessions.OpStart: func(d *Daemon, req *sessions.Request) *sessions.Response {
		rec, err := d.start(req.Start)
		if err != nil {
			// The session exists (failed): its record goes with the error.
			resp := errResponse(err)
			resp.Session = rec
			return resp
		}
		return &sessions.Response{OK: true, Session: rec}
	},
	sessions.OpPrompt: func(d *Daemon, req *sessions.Request) *sessions.Response {
		return answer(&sessions.Response{}, d.prompt(req.ID, req.Text, req.Interrupt))
	},
	sessions.OpKill: func(d *Daemon, req *sessions.Request) *sessions.Response {
		rec, err := d.kill(req.ID, "killed")
		return answer(&sessions.Response{Session: rec}, err)
	},
	sessions.OpWait: func(d *Daemon, req *sessions.Request) *sessions.Response {
		pending, err := d.wait(req.IDs, req.Until, req.Timeout)
		return answer(&sessions.Response{Pending: pending}, err)
	},
	sessions.OpMonitor: func(d *Daemon, req *sessions.Request) *sessions.Response {
		recs, err := d.monitor(req.IDs, req.Timeout)
		return answer(&sessions.Response{Records: recs}, err)
	},
	sessions.OpGC: func(d *Daemon, req *sessions.Request) *sessions.Response {
		recs, err := d.gc(req.Apply)
		return answer(&sessions.Response{Records: recs}, err)
	},
	sessions.OpPolicyAttach: func(d *Daemon, req *sessions.Request) *sessions.Response {
		p, err := d.attachPolicy(req.Policy)
		return answer(&sessions.Response{Policies: []*sessions.Policy{p}}, err)
	},
	sessions.OpPolicyList: func(d *Daemon, _ *sessions.Request) *sessions.Response {
		return &sessions.Response{OK: true, Policies: d.listPolicies()}
	},
	sessions.OpPolicyCancel: func(d *Daemon, req *sessions.Request) *sessions.Response {
		return answer(&sessions.Response{}, d.cancelPolicy(req.ID))
	},
	sessions.OpStop: func(d *Daemon, req *sessions.Request) *sessions.Response {
		resp, err := d.stopRequest(req.Force)
		if err != nil {
			return errResponse(err)
		}
		return resp
	},
	sessions.OpPolicyWait: func(d *Daemon, req *sessions.Request) *sessions.Response {
		pending, err := d.waitPolicies(req.IDs, req.Timeout)
		return answer(&sessions.Response{Pending: pending}, err)
	},
}

// handle answers a request by its operation.
func (d *Daemon) handle(req *sessions.Request) *sessions.Response {
	h, ok := handlers[req.Op]
	if !ok {
		return errResponse(fault.Invalidf("unknown operation %q", req.Op))
	}
	return h(d, req)
}
