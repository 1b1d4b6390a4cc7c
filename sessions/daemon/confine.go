package daemon

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/plugins/host"
	"github.com/agentproto/agentproto/plugins/sdk"
	"github.com/agentproto/agentproto/sandbox"
	"github.com/agentproto/agentproto/sessions"
)

// confinement decides how a session's adapter runs: in the sandbox, or
// (mode off, or auto on a machine without what it needs) unconfined, said
// in the record. A required sandbox that cannot run refuses the start,
// exit 5, before anything is launched. env is the adapter's environment;
// with the sandbox on, its TMPDIR becomes the session's private one.
func (d *Daemon) confinement(rec *sessions.Record, a *sessions.StartArgs, env []string) (*host.Confinement, []string, error) {
	// Only the daemon says an adapter is confined: a caller's variable
	// would let an agent CLI drop its own sandbox outside ours.
	env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, sdk.SandboxEnv+"=") })
	mode, err := sandbox.ParseMode(a.Sandbox.Mode)
	if err != nil {
		return nil, env, fault.Invalidf("%v", err)
	}
	if mode == sandbox.ModeOff {
		rec.Sandbox, rec.SandboxNote = sandbox.KindNone, `off in agentproto.toml ([sandbox] mode = "off")`
		return nil, env, nil
	}
	sup := d.probe()
	if !sup.OK() {
		if mode == sandbox.ModeRequired {
			return nil, env, fault.Refusedf(`the sandbox is required ([sandbox] mode = "required") but %s; no session was started`, sup.Missing)
		}
		rec.Sandbox, rec.SandboxNote = sandbox.KindNone, sup.Missing
		rec.Warnings = append(rec.Warnings, sessions.SandboxWarning(sup.Missing))
		return nil, env, nil
	}
	tmp := d.sessionTmp(rec.ID)
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return nil, env, fmt.Errorf("the session's temporary directory: %w", err)
	}
	spec := sandbox.SessionSpec{
		Dir: a.Dir, CommonDir: d.repo.CommonDir, WorkTree: d.repo.WorkTree, Runtime: sessions.RuntimeDir(),
		Home: lookupEnv(env, "HOME"), Path: lookupEnv(env, "PATH"), Tmp: tmp, Adapter: a.Path,
		Within: a.Sandbox.Within, Writable: a.Sandbox.Writable, Readable: a.Sandbox.Readable, Options: a.Options, ErrorLog: a.ErrorLog, CacheEnv: env,
	}
	rec.Sandbox = sandbox.KindLandlock
	c := &host.Confinement{Launcher: sup.Launcher, Policy: func(sockets string) (sandbox.Policy, error) {
		spec.Sockets = sockets
		p, err := sandbox.ForSession(spec)
		if err == nil {
			// What it may touch, for whoever wonders why a write failed.
			d.logf("start %s: sandbox %s, writes %s; reads %s", rec.ID, sandbox.KindLandlock, strings.Join(p.Write, ":"), strings.Join(p.Read, ":"))
		}
		return p, err
	}}
	env = setEnv(setEnv(env, "TMPDIR", tmp), sdk.SandboxEnv, sandbox.KindLandlock)
	for _, kv := range spec.Env() {
		if k, v, _ := strings.Cut(kv, "="); lookupEnv(env, k) == "" {
			env = setEnv(env, k, v)
		}
	}
	return c, env, nil
}

// sessionTmp is a session's private temporary directory, inside the
// runtime directory (closed to other users) and removed with the session;
// named like the repository's plugin sockets, so that the daemon's start
// removes those a killed daemon left.
func (d *Daemon) sessionTmp(id string) string {
	return filepath.Join(sessions.RuntimeDir(), pluginSocketPrefix(d.repo.CommonDir)+"tmp-"+strings.TrimPrefix(id, "s-"))
}

// probe is what the sandbox can use here, found once per daemon.
func (d *Daemon) probe() sandbox.Support {
	d.probeOnce.Do(func() { d.support = sandbox.Probe() })
	return d.support
}

func lookupEnv(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}

func setEnv(env []string, name, value string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value)
}
