package cloudapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
)

// ErrNotFound is wrapped by the error of a request for a dataset that does
// not exist.
var ErrNotFound = errors.New("not found")

// An APIError is an error the cloud API returned.
type APIError struct {
	Code    int    // HTTP status code
	Status  string // e.g. INVALID_ARGUMENT
	Message string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("cloud API error %d %s: %s", e.Code, e.Status, e.Message)
}

// Unwrap lets errors.Is(err, ErrNotFound) find a 404.
func (e *APIError) Unwrap() error {
	if e.Code == http.StatusNotFound {
		return ErrNotFound
	}
	return nil
}

// A Client calls the fake cloud API for one project.
type Client struct {
	// BaseURL is the server's URL, e.g. Server.URL().
	BaseURL string
	// Project holds the datasets.
	Project string
	// HTTP is the HTTP client; nil means http.DefaultClient.
	HTTP *http.Client
}

// Name is the full name of the dataset with id, as the server writes it in
// Dataset.Name.
func (c *Client) Name(id string) string {
	return "projects/" + c.Project + "/datasets/" + id
}

// Get returns the dataset with id; an error wraps ErrNotFound when there is
// none.
func (c *Client) Get(ctx context.Context, id string) (*Dataset, error) {
	d := &Dataset{}
	if err := c.do(ctx, http.MethodGet, c.path(id), nil, nil, d); err != nil {
		return nil, fmt.Errorf("cannot get dataset %s: %w", id, err)
	}
	return d, nil
}

// Create creates the dataset with id and returns it as the cloud stored it.
// requestID, when not empty, is the call's idempotency key (see Server):
// the same key again returns the first call's result and creates nothing.
func (c *Client) Create(ctx context.Context, id string, d *Dataset, requestID string) (*Dataset, error) {
	out := &Dataset{}
	q := withRequestID(url.Values{"datasetId": {id}}, requestID)
	if err := c.do(ctx, http.MethodPost, "/v1/projects/"+url.PathEscape(c.Project)+"/datasets", q, d, out); err != nil {
		return nil, fmt.Errorf("cannot create dataset %s: %w", id, err)
	}
	return out, nil
}

// Update sets the fields of the dataset with id that mask names (proto field
// names) to their values in d, and returns the dataset as the cloud stored
// it. requestID is the call's idempotency key, as for Create.
func (c *Client) Update(ctx context.Context, id string, d *Dataset, mask []string, requestID string) (*Dataset, error) {
	out := &Dataset{}
	q := withRequestID(url.Values{"updateMask": {strings.Join(mask, ",")}}, requestID)
	if err := c.do(ctx, http.MethodPatch, c.path(id), q, d, out); err != nil {
		return nil, fmt.Errorf("cannot update dataset %s: %w", id, err)
	}
	return out, nil
}

// ErrOperationFailed is wrapped by Wait's error for an operation that ended
// in failure.
var ErrOperationFailed = errors.New("operation failed")

// UpdateAsync starts an update as Update does, as a long-running operation,
// and returns the operation's name (projects/p/operations/op-1.update).
// The same requestID again returns the same operation and starts none.
func (c *Client) UpdateAsync(ctx context.Context, id string, d *Dataset, mask []string, requestID string) (string, error) {
	q := withRequestID(url.Values{"updateMask": {strings.Join(mask, ",")}, "async": {"true"}}, requestID)
	var op OperationStatus
	if err := c.doJSON(ctx, http.MethodPatch, c.path(id), q, d, &op); err != nil {
		return "", fmt.Errorf("cannot update dataset %s: %w", id, err)
	}
	return op.Name, nil
}

// Operation polls the operation name once and reports whether it is done;
// a failed operation's error wraps ErrOperationFailed.
func (c *Client) Operation(ctx context.Context, name string) (done bool, err error) {
	var op OperationStatus
	if err := c.doJSON(ctx, http.MethodGet, "/v1/"+name, nil, nil, &op); err != nil {
		return false, fmt.Errorf("cannot get operation %s: %w", name, err)
	}
	if op.Error != nil {
		return true, fmt.Errorf("%w: %s", ErrOperationFailed, op.Error.Message)
	}
	return op.Done, nil
}

// doJSON is do for a response that is not a dataset.
func (c *Client) doJSON(ctx context.Context, method, path string, q url.Values, in *Dataset, out any) error {
	var raw json.RawMessage
	if err := c.do(ctx, method, path, q, in, nil, &raw); err != nil {
		return err
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("cannot parse the response: %w", err)
	}
	return nil
}

// Delete deletes the dataset with id; an error wraps ErrNotFound when there
// is none.
func (c *Client) Delete(ctx context.Context, id string) error {
	if err := c.do(ctx, http.MethodDelete, c.path(id), nil, nil, nil); err != nil {
		return fmt.Errorf("cannot delete dataset %s: %w", id, err)
	}
	return nil
}

// withRequestID adds the requestId parameter to q, unless id is empty.
func withRequestID(q url.Values, id string) url.Values {
	if id != "" {
		q.Set("requestId", id)
	}
	return q
}

func (c *Client) path(id string) string {
	return "/v1/projects/" + url.PathEscape(c.Project) + "/datasets/" + url.PathEscape(id)
}

func (c *Client) do(ctx context.Context, method, path string, q url.Values, in, out *Dataset, raw ...*json.RawMessage) error {
	var body io.Reader
	if in != nil {
		b, err := protojson.Marshal(in)
		if err != nil {
			return fmt.Errorf("cannot encode the request: %w", err)
		}
		body = bytes.NewReader(b)
	}
	u := c.BaseURL + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("cannot read the response: %w", err)
	}
	if resp.StatusCode >= 300 {
		var eb errorBody
		if json.Unmarshal(b, &eb) != nil || eb.Error.Code == 0 {
			return &APIError{Code: resp.StatusCode, Status: http.StatusText(resp.StatusCode), Message: strings.TrimSpace(string(b))}
		}
		return &APIError{Code: eb.Error.Code, Status: eb.Error.Status, Message: eb.Error.Message}
	}
	if len(raw) > 0 {
		*raw[0] = b
	}
	if out != nil {
		if err := protojson.Unmarshal(b, out); err != nil {
			return fmt.Errorf("cannot parse the response: %w", err)
		}
	}
	return nil
}
