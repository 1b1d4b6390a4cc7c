package forge

import (
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/agentproto/agentproto/internal/fault"
)

// The calls that watch a pull request after it was opened: its state and
// head, the check runs and commit statuses of the head, its reviews and
// review comments. Each is one GET of a documented REST endpoint; with
// Options.Cache they are conditional, so polling a pull request nothing
// happened to costs no rate limit. Lists are read as one page of pageSize:
// a pull request with more checks, reviews or comments than that is seen
// through its newest page only (see README).

// pageSize is GitHub's largest page.
const pageSize = 100

// Pull is a pull request as GET /repos/{o}/{r}/pulls/{n} returns it.
type Pull struct {
	Number int    `json:"number"`
	State  string `json:"state"` // open, closed
	Merged bool   `json:"merged"`
	URL    string `json:"html_url"`
	Head   struct {
		Ref string `json:"ref"`
		SHA string `json:"sha"`
	} `json:"head"`
	Base struct {
		Ref string `json:"ref"`
	} `json:"base"`
}

// CheckRun is one check run of a commit.
type CheckRun struct {
	ID         int64  `json:"id"`
	Name       string `json:"name"`
	HeadSHA    string `json:"head_sha"`
	Status     string `json:"status"`     // queued, in_progress, completed
	Conclusion string `json:"conclusion"` // success, failure, neutral, cancelled, skipped, timed_out, action_required
	URL        string `json:"html_url"`
	Output     struct {
		Title            string `json:"title"`
		Summary          string `json:"summary"`
		Text             string `json:"text"`
		AnnotationsCount int    `json:"annotations_count"`
	} `json:"output"`
}

// Annotation is a check run's note on a file and line.
type Annotation struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	Level     string `json:"annotation_level"` // notice, warning, failure
	Title     string `json:"title"`
	Message   string `json:"message"`
}

// Status is one commit status (the older API some CI still uses).
type Status struct {
	ID          int64  `json:"id"`
	Context     string `json:"context"`
	State       string `json:"state"` // error, failure, pending, success
	Description string `json:"description"`
	TargetURL   string `json:"target_url"`
}

// User is who wrote a review or comment.
type User struct {
	Login string `json:"login"`
}

// Review is a submitted pull request review.
type Review struct {
	ID          int64     `json:"id"`
	User        User      `json:"user"`
	Body        string    `json:"body"`
	State       string    `json:"state"` // APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED
	CommitID    string    `json:"commit_id"`
	SubmittedAt time.Time `json:"submitted_at"`
}

// ReviewComment is a comment on a line of the pull request's diff.
type ReviewComment struct {
	ID        int64  `json:"id"`
	ReviewID  int64  `json:"pull_request_review_id"`
	InReplyTo int64  `json:"in_reply_to_id"`
	User      User   `json:"user"`
	Path      string `json:"path"`
	Line      int    `json:"line"`
	Body      string `json:"body"`
	CommitID  string `json:"commit_id"`
	URL       string `json:"html_url"`
}

func (c *Client) path(format string, args ...any) string {
	return fmt.Sprintf("repos/%s/%s/", url.PathEscape(c.repo.Owner), url.PathEscape(c.repo.Name)) + fmt.Sprintf(format, args...)
}

// Pull reads pull request number.
func (c *Client) Pull(number int) (*Pull, error) {
	var p Pull
	if err := c.do(http.MethodGet, c.path("pulls/%d", number), nil, &p); err != nil {
		return nil, c.readError(fmt.Sprintf("pull request #%d", number), err)
	}
	return &p, nil
}

// CheckRuns lists the check runs of commit sha.
func (c *Client) CheckRuns(sha string) ([]CheckRun, error) {
	var res struct {
		CheckRuns []CheckRun `json:"check_runs"`
	}
	if err := c.do(http.MethodGet, c.path("commits/%s/check-runs?per_page=%d", sha, pageSize), nil, &res); err != nil {
		return nil, c.readError("the check runs of "+short(sha), err)
	}
	return res.CheckRuns, nil
}

// Annotations lists the annotations of check run id.
func (c *Client) Annotations(id int64) ([]Annotation, error) {
	var res []Annotation
	if err := c.do(http.MethodGet, c.path("check-runs/%d/annotations?per_page=%d", id, pageSize), nil, &res); err != nil {
		return nil, c.readError(fmt.Sprintf("the annotations of check run %d", id), err)
	}
	return res, nil
}

// Statuses lists the latest commit status of each context of sha.
func (c *Client) Statuses(sha string) ([]Status, error) {
	var res struct {
		Statuses []Status `json:"statuses"`
	}
	if err := c.do(http.MethodGet, c.path("commits/%s/status?per_page=%d", sha, pageSize), nil, &res); err != nil {
		return nil, c.readError("the statuses of "+short(sha), err)
	}
	return res.Statuses, nil
}

// Reviews lists the reviews of pull request number, oldest first.
func (c *Client) Reviews(number int) ([]Review, error) {
	var res []Review
	if err := c.do(http.MethodGet, c.path("pulls/%d/reviews?per_page=%d", number, pageSize), nil, &res); err != nil {
		return nil, c.readError(fmt.Sprintf("the reviews of #%d", number), err)
	}
	return res, nil
}

// ReviewComments lists the review comments of pull request number.
func (c *Client) ReviewComments(number int) ([]ReviewComment, error) {
	var res []ReviewComment
	if err := c.do(http.MethodGet, c.path("pulls/%d/comments?per_page=%d", number, pageSize), nil, &res); err != nil {
		return nil, c.readError(fmt.Sprintf("the review comments of #%d", number), err)
	}
	return res, nil
}

// Reply answers review comment id of pull request number in its thread.
func (c *Client) Reply(number int, id int64, body string) (*ReviewComment, error) {
	var res ReviewComment
	if err := c.do(http.MethodPost, c.path("pulls/%d/comments/%d/replies", number, id), map[string]string{"body": body}, &res); err != nil {
		return nil, c.commentError(number, err)
	}
	return &res, nil
}

// readError says what could not be read; a refused token is exit 5.
func (c *Client) readError(what string, err error) error {
	if he := httpError(err); he != nil {
		switch he.StatusCode {
		case http.StatusUnauthorized:
			return fault.Refusedf("GitHub refused the token for %s (401): it is missing, expired or revoked", c.repo.Host)
		case http.StatusNotFound:
			return fault.Invalidf("%s of %s not found (404), or the token cannot see it", what, c.repo)
		}
		return fmt.Errorf("reading %s of %s: %s", what, c.repo, describe(he))
	}
	return fmt.Errorf("reading %s of %s: %w", what, c.repo, err)
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
