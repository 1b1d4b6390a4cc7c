package app

import (
	"context"
	"io"

	"github.com/agentproto/agentproto/forge"
	"github.com/agentproto/agentproto/pipeline"
)

// PRCommentOptions name a comment to post on a pull request.
type PRCommentOptions struct {
	Number int
	// BodyFile holds the text (Markdown); - reads Stdin.
	BodyFile string
	Stdin    io.Reader
	// Repo (OWNER/NAME) and Host default to [pr] repo and host, else the
	// remote URL's.
	Repo, Host string
	// Marker starts the comment, so a later run edits it instead of
	// adding one.
	Marker string
}

// CommentPR posts a comment on a pull request, or edits the one that
// starts with the marker. The token comes from the environment or gh's
// configuration and is never shown; the environment's secrets are
// redacted from the text.
func (e *Env) CommentPR(ctx context.Context, o PRCommentOptions) (*forge.Comment, error) {
	body, err := forge.ReadCommentBody(o.Stdin, o.BodyFile)
	if err != nil {
		return nil, err
	}
	repo, cfg, err := e.repoConfig()
	if err != nil {
		return nil, err
	}
	target, err := pipeline.CommentTarget(repo, cfg.PR, o.Repo, o.Host)
	if err != nil {
		return nil, err
	}
	tok, err := forge.Token(target.Host)
	if err != nil {
		return nil, err
	}
	// forge.EnvTransport trusts the CA in $AGENTPROTO_GITHUB_CA when it is
	// set, so end-to-end tests can stand up a loopback server.
	client, err := forge.NewClient(target, forge.Options{Token: tok, Transport: forge.EnvTransport()})
	if err != nil {
		return nil, err
	}
	return client.Comment(o.Number, o.Marker, body)
}
