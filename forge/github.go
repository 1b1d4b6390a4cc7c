// Package forge opens pull requests on GitHub (github.com and Enterprise)
// through go-gh. It never merges, and never prints or logs the token.
package forge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/cli/go-gh/v2/pkg/api"
	"github.com/cli/go-gh/v2/pkg/auth"
	"github.com/cli/go-gh/v2/pkg/repository"
	"github.com/hashicorp/go-retryablehttp"

	"github.com/agentproto/agentproto/internal/fault"
)

// Repo names a repository on a GitHub host.
type Repo struct {
	Host  string `json:"host"`
	Owner string `json:"owner"`
	Name  string `json:"name"`
}

func (r Repo) String() string { return r.Host + "/" + r.Owner + "/" + r.Name }

// ParseRemote reads host, owner and repository from a remote URL
// (https://HOST/OWNER/REPO, git@HOST:OWNER/REPO, ssh://git@HOST/OWNER/REPO)
// as gh does. A local path is no remote URL, even one that reads as
// OWNER/REPO.
func ParseRemote(u string) (Repo, error) {
	bad := fault.Invalidf("remote URL %q does not name a GitHub repository: point the remote at one (https://HOST/OWNER/NAME or git@HOST:OWNER/NAME), or set [pr] repo = \"OWNER/NAME\" (and [pr] host for an Enterprise host)", u)
	if !strings.Contains(u, ":") || strings.HasPrefix(u, "file:") {
		return Repo{}, bad
	}
	r, err := repository.Parse(u)
	if err != nil || r.Owner == "" || r.Name == "" || r.Host == "" {
		return Repo{}, bad
	}
	return Repo{Host: r.Host, Owner: r.Owner, Name: r.Name}, nil
}

// PullRequest is what is opened.
type PullRequest struct {
	Title string `json:"title"`
	Head  string `json:"head"`
	Base  string `json:"base"`
	Body  string `json:"body"`
	Draft bool   `json:"draft"`
}

// Result is an opened (or updated) pull request.
type Result struct {
	Number  int    `json:"number"`
	URL     string `json:"html_url"`
	Updated bool   `json:"updated"` // it existed already; its body was updated
}

// Client opens pull requests and comments on one host.
type Client struct {
	rest *api.RESTClient
	repo Repo
}

// Options for NewClient. Transport is for tests (a loopback server).
type Options struct {
	Token     string
	Transport http.RoundTripper
	// RetryWait is the first delay before a call answered 429 or 5xx (or
	// not answered) is tried again, doubling up to 10 s; 0 means 200 ms.
	// A Retry-After of the answer counts, up to that bound.
	RetryWait time.Duration
	// Cache makes GETs conditional (ETag, If-None-Match): a poll whose
	// answer did not change costs no rate limit. nil: none.
	Cache *Conditional
}

// retries of one call: four tries in all, about 1.4 s at the default wait.
const retries = 3

// Token finds a token for host: GH_TOKEN / GITHUB_TOKEN (or the Enterprise
// variables), then gh's own configuration. It never returns the value in an
// error.
func Token(host string) (string, error) {
	tok, _ := auth.TokenForHost(host)
	// gh reads GH_TOKEN only for github.com; agentproto also takes it (and
	// GITHUB_TOKEN) for an Enterprise host when nothing more specific is set.
	for _, k := range []string{"GH_TOKEN", "GITHUB_TOKEN"} {
		if tok == "" {
			tok = os.Getenv(k)
		}
	}
	if tok == "" {
		return "", fault.Refusedf("no GitHub token for %s: set GH_TOKEN (or GITHUB_TOKEN), or log in with gh auth login", host)
	}
	return tok, nil
}

// NewClient returns a client for repo.
func NewClient(repo Repo, o Options) (*Client, error) {
	opts := api.ClientOptions{Host: repo.Host, AuthToken: o.Token, Transport: o.Transport, Timeout: 30 * time.Second,
		Headers: map[string]string{"Accept": "application/vnd.github+json"}, LogIgnoreEnv: true}
	if opts.Transport == nil {
		opts.Transport = http.DefaultTransport
	}
	opts.Transport = authTransport{host: repo.Host, token: o.Token, rt: retrying(opts.Transport, o.RetryWait)}
	if o.Cache != nil {
		opts.Transport = o.Cache.wrap(opts.Transport)
	}
	rest, err := api.NewRESTClient(opts)
	if err != nil {
		return nil, err
	}
	return &Client{rest: rest, repo: repo}, nil
}

// retrying wraps rt so that a call GitHub answers 429 or 5xx, or does not
// answer, is tried again (go-retryablehttp: its request bodies replay, and
// Retry-After is read). The last answer is passed on as it came, so the
// caller still sees GitHub's status and message.
func retrying(rt http.RoundTripper, wait time.Duration) http.RoundTripper {
	if wait <= 0 {
		wait = 200 * time.Millisecond
	}
	c := retryablehttp.NewClient()
	c.HTTPClient = &http.Client{Transport: rt}
	c.Logger = nil
	c.RetryMax, c.RetryWaitMin, c.RetryWaitMax = retries, wait, 10*time.Second
	c.ErrorHandler = retryablehttp.PassthroughErrorHandler
	c.Backoff = func(lo, hi time.Duration, attempt int, resp *http.Response) time.Duration {
		return min(retryablehttp.DefaultBackoff(lo, hi, attempt, resp), hi)
	}
	return &retryablehttp.RoundTripper{Client: c}
}

// do runs one call; retries happen below, in the transport.
func (c *Client) do(method, path string, body any, out any) error {
	var payload []byte
	if body != nil {
		payload, _ = json.Marshal(body)
	}
	return c.rest.Do(method, path, bytes.NewReader(payload), out)
}

// Open creates the pull request; when one already exists for the head
// branch (GitHub answers 422), that one's title and body are updated.
func (c *Client) Open(pr PullRequest) (*Result, error) {
	var res Result
	path := fmt.Sprintf("repos/%s/%s/pulls", c.repo.Owner, c.repo.Name)
	err := c.do(http.MethodPost, path, pr, &res)
	if err == nil {
		return &res, nil
	}
	var he *api.HTTPError
	if !errors.As(err, &he) {
		return nil, fmt.Errorf("opening the pull request on %s: %w", c.repo, err)
	}
	switch {
	case he.StatusCode == http.StatusUnprocessableEntity && alreadyExists(he):
		return c.update(pr)
	case he.StatusCode == http.StatusUnauthorized:
		return nil, fault.Refusedf("GitHub refused the token for %s (401): it is missing, expired or revoked", c.repo.Host)
	case he.StatusCode == http.StatusNotFound:
		return nil, fault.Invalidf("repository %s not found (404), or the token cannot see it", c.repo)
	}
	return nil, fmt.Errorf("opening the pull request on %s: %s", c.repo, describe(he))
}

func alreadyExists(he *api.HTTPError) bool {
	if strings.Contains(he.Message, "already exists") {
		return true
	}
	for _, e := range he.Errors {
		if strings.Contains(e.Message, "already exists") {
			return true
		}
	}
	return false
}

func describe(he *api.HTTPError) string {
	msg := fmt.Sprintf("HTTP %d: %s", he.StatusCode, he.Message)
	for _, e := range he.Errors {
		msg += fmt.Sprintf("; %s %s %s", e.Resource, e.Field, e.Message)
	}
	return msg
}

// update finds the open pull request of the head branch and updates it.
func (c *Client) update(pr PullRequest) (*Result, error) {
	var open []Result
	q := url.Values{"head": {c.repo.Owner + ":" + pr.Head}, "state": {"open"}}
	if err := c.do(http.MethodGet, fmt.Sprintf("repos/%s/%s/pulls?%s", c.repo.Owner, c.repo.Name, q.Encode()), nil, &open); err != nil {
		return nil, fmt.Errorf("finding the existing pull request: %w", err)
	}
	if len(open) == 0 {
		return nil, fmt.Errorf("GitHub says a pull request for %s exists, but none is open", pr.Head)
	}
	var res Result
	patch := map[string]string{"title": pr.Title, "body": pr.Body}
	if err := c.do(http.MethodPatch, fmt.Sprintf("repos/%s/%s/pulls/%d", c.repo.Owner, c.repo.Name, open[0].Number), patch, &res); err != nil {
		return nil, fmt.Errorf("updating pull request #%d: %w", open[0].Number, err)
	}
	res.Updated = true
	return &res, nil
}

// Call is the request Open would make, for --dry-run: as data, so that
// --json gives its parts, and as text (String) for a terminal.
type Call struct {
	Method string      `json:"method"`
	URL    string      `json:"url"`
	Body   PullRequest `json:"body"`
}

// Request describes the call Open would make.
func Request(repo Repo, pr PullRequest) Call {
	base := "https://api.github.com/"
	if !strings.EqualFold(repo.Host, "github.com") {
		base = "https://" + repo.Host + "/api/v3/"
	}
	return Call{Method: http.MethodPost, URL: fmt.Sprintf("%srepos/%s/%s/pulls", base, repo.Owner, repo.Name), Body: pr}
}

// String is the call as a person reads it: the method and URL, then the
// body's JSON.
func (c Call) String() string {
	b, _ := json.MarshalIndent(c.Body, "", "  ")
	return fmt.Sprintf("%s %s\n%s\n", c.Method, c.URL, b)
}

// authTransport adds the token for an Enterprise host given with a port,
// which go-gh's own header logic compares without the port and skips.
type authTransport struct {
	host, token string
	rt          http.RoundTripper
}

func (a authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if a.token != "" && req.Header.Get("Authorization") == "" && strings.EqualFold(req.URL.Host, a.host) {
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", "token "+a.token)
	}
	return a.rt.RoundTrip(req)
}
