// Package profiles resolves executor profiles (adapter, model, auth) and
// checks them before any work is dispatched, so a dead provider or a wrong
// model id is found in seconds, not after a wasted session.
package profiles

import (
	"context"
	"os"
	"sort"
	"strings"

	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
	"github.com/agentproto/agentproto/plugins/catalog"
	"github.com/agentproto/agentproto/plugins/probe"
	"github.com/agentproto/agentproto/plugins/vocab"
)

// Resolve returns a profile by name.
func Resolve(cfg config.Config, name string) (config.Profile, error) {
	p, ok := cfg.Profiles[name]
	if !ok {
		var names []string
		for n := range cfg.Profiles {
			names = append(names, n)
		}
		sort.Strings(names)
		return p, fault.Invalidf("no profile %q (configured: %s)", name, strings.Join(names, ", "))
	}
	return p, nil
}

// Result is the preflight of one profile.
type Result struct {
	Name     string   `json:"name"`
	Adapter  string   `json:"adapter"`
	Model    string   `json:"model,omitempty"`
	Auth     string   `json:"auth"`
	Path     string   `json:"path,omitempty"`
	Checksum string   `json:"checksum"` // ok, mismatch, unpinned, -
	AuthOK   bool     `json:"auth_supported"`
	KeySet   bool     `json:"key_set"`
	ModelOK  string   `json:"model_check"` // declared, not-declared, unknown (adapter cannot say), -
	Problems []string `json:"problems"`
	OK       bool     `json:"ok"`
}

// Check preflights profiles: the adapter is found and its checksum
// matches, the auth method is one it supports, the key variable is set
// when needed, and the model is among those it declares (or it cannot say).
// Each adapter is launched once.
func Check(cfg config.Config, root string, names []string, getenv func(string) string) []Result {
	if len(names) == 0 {
		for n := range cfg.Profiles {
			names = append(names, n)
		}
		sort.Strings(names)
	}
	infos := map[string]*vocab.Info{}
	errs := map[string]string{}
	var out []Result
	for _, name := range names {
		r := Result{Name: name, Checksum: "-", ModelOK: "-", Problems: []string{}}
		p, err := Resolve(cfg, name)
		if err != nil {
			r.Problems = append(r.Problems, err.Error())
			out = append(out, r)
			continue
		}
		r.Adapter, r.Model, r.Auth = p.Adapter, p.Model, p.Auth
		r.KeySet = p.KeyEnv == "" || getenv(p.KeyEnv) != ""
		found, err := catalog.Discover(p.Adapter, cfg.Plugins, root)
		if err != nil {
			r.Problems = append(r.Problems, err.Error())
			out = append(out, r)
			continue
		}
		r.Path = found.Path
		r.Checksum = "unpinned"
		if found.SHA256 != "" {
			r.Checksum = "ok"
			if sum, err := catalog.FileSHA256(found.Path); err != nil || !strings.EqualFold(sum, found.SHA256) {
				r.Checksum = "mismatch"
				r.Problems = append(r.Problems, "the adapter binary does not match its pinned sha256")
			}
		}
		if r.Checksum != "mismatch" && infos[p.Adapter] == nil && errs[p.Adapter] == "" {
			info, err := describe(found.Spec)
			if err != nil {
				errs[p.Adapter] = err.Error()
			} else {
				infos[p.Adapter] = &info
			}
		}
		if e := errs[p.Adapter]; e != "" {
			r.Problems = append(r.Problems, e)
		}
		if info := infos[p.Adapter]; info != nil {
			r.AuthOK = contains(info.AuthMethods, p.Auth) || (p.Auth == "none" && len(info.AuthMethods) == 0)
			if !r.AuthOK {
				r.Problems = append(r.Problems, "the adapter does not support auth "+p.Auth+" ("+strings.Join(info.AuthMethods, ", ")+")")
			}
			switch {
			case p.Model == "":
				r.ModelOK = "-"
			case len(info.Models) == 0:
				r.ModelOK = "unknown"
			case contains(info.Models, p.Model):
				r.ModelOK = "declared"
			default:
				r.ModelOK = "not-declared"
				r.Problems = append(r.Problems, "model "+p.Model+" is not among the adapter's models ("+strings.Join(info.Models, ", ")+")")
			}
		}
		if infos[p.Adapter] != nil {
			// The check starts the adapter with the options: untrusted
			// committed ones are named, not run.
			if err := (Launch{Adapter: p.Adapter, Profile: name}).RequireTrust(cfg, root, commonDir(root), root, ""); err != nil {
				r.Problems = append(r.Problems, "options: "+err.Error())
			} else if err := checkOptions(found.Spec, p, cfg.Plugins[p.Adapter].Options); err != nil {
				r.Problems = append(r.Problems, "options: "+err.Error())
			}
		}
		if !r.KeySet {
			r.Problems = append(r.Problems, "auth api-key needs $"+p.KeyEnv+", which is not set")
		}
		r.OK = len(r.Problems) == 0
		out = append(out, r)
	}
	return out
}

func describe(spec catalog.Spec) (vocab.Info, error) {
	return probe.Describe(context.Background(), spec, probe.PathAndHome())
}

// checkOptions starts a session without a prompt, so the adapter checks
// the profile's options (a flag its CLI rejects, a bad sandbox) now rather
// than mid-dispatch; without a prompt no agent runs.
func checkOptions(spec catalog.Spec, p config.Profile, base map[string]string) error {
	opts := map[string]string{}
	for k, v := range base {
		opts[k] = v
	}
	for k, v := range p.Options {
		opts[k] = v
	}
	dir, err := os.MkdirTemp("", "agentproto-check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	return probe.Start(context.Background(), spec, probe.PathAndHome(), vocab.StartRequest{SessionID: "profile-check", Dir: dir, Model: p.Model, Options: opts})
}

func commonDir(root string) string {
	if repo, err := gitrepo.Discover(root); err == nil {
		return repo.CommonDir
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// DeadFaults are provider faults after which a profile is abandoned for
// the next one; rate_limited is waited out first instead.
var DeadFaults = map[string]bool{
	vocab.FaultInsufficientCredits: true,
	vocab.FaultInvalidModel:        true,
	vocab.FaultAuthFailed:          true,
	vocab.FaultProviderUnavailable: true,
	vocab.FaultEmptyTurn:           true,
}
