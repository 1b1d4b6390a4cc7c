package pipeline

import (
	"strings"

	"github.com/agentproto/agentproto/forge"
	"github.com/agentproto/agentproto/internal/config"
	"github.com/agentproto/agentproto/internal/fault"
	"github.com/agentproto/agentproto/internal/gitrepo"
)

// CommentTarget is the repository a pull request comment goes to: ownerName
// ("OWNER/NAME") when given, else the one the plan's pull request opens on
// (PRTarget); its host is host when given, else [pr] host, else the
// target's own.
func CommentTarget(repo *gitrepo.Repo, cfg config.PR, ownerName, host string) (forge.Repo, error) {
	var target forge.Repo
	if ownerName != "" {
		owner, name, ok := strings.Cut(ownerName, "/")
		if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
			return target, fault.Invalidf("--repo %q: want OWNER/NAME", ownerName)
		}
		target = forge.Repo{Host: "github.com", Owner: owner, Name: name}
	} else {
		var err error
		if target, err = (&Env{Repo: repo}).PRTarget(cfg); err != nil {
			return target, err
		}
	}
	if cfg.Host != "" {
		target.Host = cfg.Host
	}
	if host != "" {
		target.Host = host
	}
	return target, nil
}
