package forge

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/cli/go-gh/v2/pkg/api"

	"github.com/agentproto/agentproto/internal/fault"
)

// Comment is a pull request's (an issue's) comment as GitHub returns it.
type Comment struct {
	ID      int64  `json:"id"`
	URL     string `json:"html_url"`
	Body    string `json:"body"`
	Updated bool   `json:"updated"` // an earlier comment with the marker was edited
}

// commentsPage is GitHub's largest page of issue comments.
const commentsPage = 100

// Comment posts body on pull request number, or edits the comment that
// an earlier call left, found by marker at the start of its body: a job
// run again on the same pull request keeps one comment up to date instead
// of adding another. body is prefixed with marker when it lacks it.
func (c *Client) Comment(number int, marker, body string) (*Comment, error) {
	if number <= 0 {
		return nil, fault.Invalidf("pull request number %d: want a positive number", number)
	}
	if marker == "" {
		return nil, fault.Invalidf("a comment needs a marker to be found again")
	}
	if !strings.HasPrefix(body, marker) {
		body = marker + "\n" + body
	}
	old, err := c.findComment(number, marker)
	if err != nil {
		return nil, c.commentError(number, err)
	}
	var res Comment
	if old != nil {
		err = c.do(http.MethodPatch, fmt.Sprintf("repos/%s/%s/issues/comments/%d", c.repo.Owner, c.repo.Name, old.ID), map[string]string{"body": body}, &res)
		res.Updated = true
	} else {
		err = c.do(http.MethodPost, fmt.Sprintf("repos/%s/%s/issues/%d/comments", c.repo.Owner, c.repo.Name, number), map[string]string{"body": body}, &res)
	}
	if err != nil {
		return nil, c.commentError(number, err)
	}
	return &res, nil
}

// findComment returns the first comment whose body starts with marker.
func (c *Client) findComment(number int, marker string) (*Comment, error) {
	for page := 1; ; page++ {
		var list []Comment
		path := fmt.Sprintf("repos/%s/%s/issues/%d/comments?per_page=%d&page=%d", c.repo.Owner, c.repo.Name, number, commentsPage, page)
		if err := c.do(http.MethodGet, path, nil, &list); err != nil {
			return nil, err
		}
		for i := range list {
			if strings.HasPrefix(list[i].Body, marker) {
				return &list[i], nil
			}
		}
		if len(list) < commentsPage {
			return nil, nil
		}
	}
}

func (c *Client) commentError(number int, err error) error {
	var he *api.HTTPError
	if !errors.As(err, &he) {
		return fmt.Errorf("commenting on pull request #%d of %s: %w", number, c.repo, err)
	}
	switch he.StatusCode {
	case http.StatusUnauthorized:
		return fault.Refusedf("GitHub refused the token for %s (401): it is missing, expired or revoked", c.repo.Host)
	case http.StatusForbidden:
		return fault.Refusedf("the token may not comment on %s #%d (403: %s): a job needs permissions: pull-requests: write, and a pull request from a fork gets a read-only token", c.repo, number, he.Message)
	case http.StatusNotFound:
		return fault.Invalidf("pull request #%d of %s not found (404), or the token cannot see it", number, c.repo)
	}
	return fmt.Errorf("commenting on pull request #%d of %s: %s", number, c.repo, describe(he))
}

func httpError(err error) *api.HTTPError {
	var he *api.HTTPError
	if errors.As(err, &he) {
		return he
	}
	return nil
}
