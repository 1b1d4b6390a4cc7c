package sessions

import (
	"bufio"
	"encoding/json"
	"errors"
	"net"
	"os"
	"time"

	"github.com/agentproto/agentproto/internal/fault"
)

// serveConn answers one connection: one request, one answer. Only our own
// user gets in (admit); a request is read within a bound of time and size.
func (d *Daemon) serveConn(conn net.Conn) {
	defer conn.Close()
	if !d.admit(conn) {
		return
	}
	d.mu.Lock()
	d.clients++
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		d.clients--
		d.lastBusy = time.Now()
		d.mu.Unlock()
	}()
	// The request comes right after connecting; a client that sends
	// nothing must not keep the daemon from stopping.
	conn.SetReadDeadline(time.Now().Add(requestTimeout))
	req, err := decodeRequest(bufio.NewReaderSize(conn, 64<<10), MaxRequest)
	conn.SetReadDeadline(time.Time{})
	var resp *Response
	switch {
	case errors.Is(err, ErrFrameTooLarge):
		d.logf("refused a request: %v", err)
		resp = errResponse(fault.Invalidf("request refused: %v (the limit is %d MiB)", err, MaxRequest>>20))
	case errors.Is(err, ErrBadRequest):
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
	b, _ := json.Marshal(resp)
	// A client that stops reading must not hold the goroutine for ever.
	conn.SetWriteDeadline(time.Now().Add(time.Minute))
	conn.Write(append(b, '\n'))
}

func errResponse(err error) *Response {
	return &Response{Error: err.Error(), Kind: int(fault.KindOf(err))}
}

// answer is resp, or the error instead; a response with something still
// pending is not OK.
func answer(resp *Response, err error) *Response {
	if err != nil {
		return errResponse(err)
	}
	resp.OK = len(resp.Pending) == 0
	return resp
}

// handler answers one operation.
type handler func(d *Daemon, req *Request) *Response

// handlers is the daemon's whole protocol: one entry per operation.
var handlers = map[string]handler{
	OpPing: func(d *Daemon, _ *Request) *Response {
		return &Response{OK: true, Pid: os.Getpid()}
	},
	OpStart: func(d *Daemon, req *Request) *Response {
		rec, err := d.start(req.Start)
		if err != nil {
			// The session exists (failed): its record goes with the error.
			resp := errResponse(err)
			resp.Session = rec
			return resp
		}
		return &Response{OK: true, Session: rec}
	},
	OpPrompt: func(d *Daemon, req *Request) *Response {
		return answer(&Response{}, d.prompt(req.ID, req.Text, req.Interrupt))
	},
	OpKill: func(d *Daemon, req *Request) *Response {
		rec, err := d.kill(req.ID, "killed")
		return answer(&Response{Session: rec}, err)
	},
	OpWait: func(d *Daemon, req *Request) *Response {
		pending, err := d.wait(req.IDs, req.Until, req.Timeout)
		return answer(&Response{Pending: pending}, err)
	},
	OpMonitor: func(d *Daemon, req *Request) *Response {
		recs, err := d.monitor(req.IDs, req.Timeout)
		return answer(&Response{Records: recs}, err)
	},
	OpGC: func(d *Daemon, req *Request) *Response {
		recs, err := d.gc(req.Apply)
		return answer(&Response{Records: recs}, err)
	},
	OpPolicyAttach: func(d *Daemon, req *Request) *Response {
		p, err := d.attachPolicy(req.Policy)
		return answer(&Response{Policies: []*Policy{p}}, err)
	},
	OpPolicyList: func(d *Daemon, _ *Request) *Response {
		return &Response{OK: true, Policies: d.listPolicies()}
	},
	OpPolicyCancel: func(d *Daemon, req *Request) *Response {
		return answer(&Response{}, d.cancelPolicy(req.ID))
	},
	OpPolicyWait: func(d *Daemon, req *Request) *Response {
		pending, err := d.waitPolicies(req.IDs, req.Timeout)
		return answer(&Response{Pending: pending}, err)
	},
}

// handle answers a request by its operation.
func (d *Daemon) handle(req *Request) *Response {
	h, ok := handlers[req.Op]
	if !ok {
		return errResponse(fault.Invalidf("unknown operation %q", req.Op))
	}
	return h(d, req)
}
