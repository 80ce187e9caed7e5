package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// MaxTokenBytes caps the answer of a token endpoint.
const MaxTokenBytes = 1 << 20

// ErrToken means a token endpoint did not grant an access token.
var ErrToken = errors.New("no access token")

// ClientCredentials obtains an OAuth 2.0 access token from tokenURL (an
// oauth2 skill's auth.token_url) with the client credentials grant (RFC
// 6749 §4.4), for a consumer that is itself the resource owner, as a
// service calling a skill is. The client authenticates with HTTP Basic
// (§2.3.1); scopes, when given, are requested. tokenURL must be https (http
// only on loopback); a redirect is not followed, so that the client secret
// goes to tokenURL and nowhere else. The error wraps ErrToken with the
// endpoint's error and error_description when it answers one.
func (c *Client) ClientCredentials(ctx context.Context, tokenURL, clientID, clientSecret string, scopes []string) (string, error) {
	u, err := url.Parse(tokenURL)
	if err != nil || !u.IsAbs() || u.Host == "" {
		return "", fmt.Errorf("token_url %q: not an absolute URL", tokenURL)
	}
	if err := checkURL(u); err != nil {
		return "", fmt.Errorf("token_url %s: %w", u.Redacted(), err)
	}
	form := url.Values{"grant_type": {"client_credentials"}}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	rctx, cancel := context.WithTimeout(ctx, c.timeout())
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, u.String(), strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent())
	req.SetBasicAuth(url.QueryEscape(clientID), url.QueryEscape(clientSecret))
	hc := c.httpClient()
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := hc.Do(req)
	if err != nil {
		return "", fmt.Errorf("token_url %s: %w", u.Redacted(), c.requestError(ctx, rctx, err))
	}
	defer resp.Body.Close()
	data, err := readLimited(resp, MaxTokenBytes)
	if err != nil {
		return "", fmt.Errorf("token_url %s: %w", u.Redacted(), c.requestError(ctx, rctx, err))
	}
	var answer struct {
		AccessToken      string `json:"access_token"`
		TokenType        string `json:"token_type"`
		Error            string `json:"error"`
		ErrorDescription string `json:"error_description"`
	}
	jsonErr := checkContentType(resp.Header.Get("Content-Type"))
	if jsonErr == nil {
		jsonErr = json.Unmarshal(data, &answer)
	}
	switch {
	case answer.Error != "":
		msg := answer.Error
		if answer.ErrorDescription != "" {
			msg += ": " + answer.ErrorDescription
		}
		return "", fmt.Errorf("token_url %s: %w: HTTP %d: %s", u.Redacted(), ErrToken, resp.StatusCode, strconv.Quote(msg))
	case resp.StatusCode != http.StatusOK:
		return "", fmt.Errorf("token_url %s: %w: HTTP %d %s", u.Redacted(), ErrToken, resp.StatusCode, http.StatusText(resp.StatusCode))
	case jsonErr != nil:
		return "", fmt.Errorf("token_url %s: %w: %v", u.Redacted(), ErrToken, jsonErr)
	case answer.AccessToken == "":
		return "", fmt.Errorf("token_url %s: %w: the answer has no access_token", u.Redacted(), ErrToken)
	case !strings.EqualFold(answer.TokenType, "bearer"):
		return "", fmt.Errorf("token_url %s: %w: token_type %q; want Bearer", u.Redacted(), ErrToken, answer.TokenType)
	}
	return answer.AccessToken, nil
}
