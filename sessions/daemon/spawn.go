package daemon

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/sessions"
)

// checkSpawn refuses spawn settings that cannot work before anything is
// launched: a switch without its confirmation line, a brief that carries a
// switch of its own, an error log that is not an absolute path.
func checkSpawn(a *sessions.StartArgs) error {
	if a.ErrorLog != "" && !filepath.IsAbs(a.ErrorLog) {
		return fault.Invalidf("error log %q is not an absolute path", a.ErrorLog)
	}
	if a.ModelSwitch == "" {
		if a.ModelSwitchExpect != "" {
			return fault.Invalidf("model_switch_expect is set without model_switch")
		}
		return nil
	}
	if a.ModelSwitchExpect == "" {
		return fault.Invalidf("model switch %q has no model_switch_expect: its confirmation could not be checked", a.ModelSwitch)
	}
	if strings.ContainsAny(a.ModelSwitch, "\r\n") || strings.TrimSpace(a.ModelSwitch) == "" {
		return fault.Invalidf("model switch %q is not one line of text", a.ModelSwitch)
	}
	// Such agents explore with the default (expensive) model when a switch
	// comes with the work: the switch goes alone, first.
	verb := strings.Fields(a.ModelSwitch)[0]
	for _, line := range strings.Split(a.Prompt, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == verb {
			return fault.Refusedf("the prompt carries a model switch (%q): the profile's switch %q is sent alone before the prompt; remove it from the prompt", strings.TrimSpace(line), a.ModelSwitch)
		}
	}
	return nil
}

// spawn runs the spawn protocol on an idle session: the model switch and
// its confirmation, then the liveness ping; the caller then sends the
// prompt. No policy fires on these turns.
func (d *Daemon) spawn(l *live, a *sessions.StartArgs) error {
	d.mu.Lock()
	d.pinging[l.rec.ID] = true
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		delete(d.pinging, l.rec.ID)
		d.mu.Unlock()
	}()
	err := d.spawnSteps(l, a)
	if err != nil {
		if f, ref := d.diagnose(l); f != "" {
			err = fmt.Errorf("%v; the agent's error log says %s (%s)", err, f, ref)
		} else if f := d.lastFault(l); f != "" && !strings.Contains(err.Error(), f) {
			err = fmt.Errorf("%v; %s", err, f)
		}
	}
	return err
}

func (d *Daemon) spawnSteps(l *live, a *sessions.StartArgs) error {
	if a.ModelSwitch != "" {
		if err := d.switchModel(l, a); err != nil {
			return err
		}
	}
	if !a.Ping {
		return nil
	}
	out, err := d.pingTurn(l)
	// A prompt-switched agent often answers the turn after its switch
	// with nothing while it reloads: one more ping before calling it dead.
	if err != nil && a.ModelSwitch != "" && strings.TrimSpace(out) == "" {
		d.spawnEvent(l, Spawn{Step: "ping_retry", Why: "empty turn after the model switch"})
		_, err = d.pingTurn(l)
	}
	if err != nil {
		return err
	}
	d.spawnEvent(l, Spawn{Step: "ping"})
	return nil
}

// switchModel sends the switch alone and requires its confirmation line
// in that turn's output.
func (d *Daemon) switchModel(l *live, a *sessions.StartArgs) error {
	out, state, err := d.turnOutput(l, a.ModelSwitch, pingTimeout)
	if err != nil {
		return fmt.Errorf("model switch: %v", err)
	}
	if state != sessions.StateSettled {
		return fmt.Errorf("model switch: no answer (session %s)", state)
	}
	if !hasLine(out, func(line string) bool { return strings.Contains(line, a.ModelSwitchExpect) }) {
		return fmt.Errorf("model switch not confirmed: after %q the agent did not print %q (it said %q)", a.ModelSwitch, a.ModelSwitchExpect, tail(out))
	}
	d.spawnEvent(l, Spawn{Step: "model_switch", Switch: a.ModelSwitch, Confirmed: a.ModelSwitchExpect})
	return nil
}

// lastFault is the last typed fault the session's record holds, "" for none.
func (d *Daemon) lastFault(l *live) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if n := len(l.rec.Faults); n > 0 {
		return "fault " + l.rec.Faults[n-1]
	}
	return ""
}

// spawnEvent records one step of the spawn protocol in the ledger.
func (d *Daemon) spawnEvent(l *live, step Spawn) {
	step.sessionRef = d.ref(l)
	record(d, spawnKind, eventID(step.sessionRef, KindSpawn, step.Step), step)
}
