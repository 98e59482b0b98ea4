package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"time"

	"k8s.io/klog/v2"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

// maxResponseBytes bounds a webhook answer (statuses of large objects fit
// easily); a larger body is a failed call rather than unbounded memory.
const maxResponseBytes = 32 << 20

// interpret calls the webhook answering a.op for the object and returns
// its verified response.
func (i *Interpreter) interpret(ctx context.Context, a *attributes) (*hook, *configv1alpha1.ResourceInterpreterResponse, error) {
	h, err := i.hookFor(a.object.GroupVersionKind(), a.op)
	if err != nil {
		return nil, nil, err
	}
	start := time.Now()
	resp, err := i.call(ctx, h, a)
	if err != nil {
		if l := i.log.V(2); l.Enabled() {
			l.Error(err, "interpreter webhook call failed", callKeys(h, a, start)...)
		}
		return h, nil, callError(h.uid, err)
	}
	if l := i.log.V(4); l.Enabled() {
		l.Info("called interpreter webhook", callKeys(h, a, start)...)
	}
	return h, resp, nil
}

// callKeys are the structured log keys of a call.
func callKeys(h *hook, a *attributes, start time.Time, extra ...any) []any {
	return append([]any{"webhook", h.uid, "operation", a.op, "kind", a.object.GetKind(),
		"object", klog.KObj(a.object), "duration", time.Since(start)}, extra...)
}

// call posts the request and verifies the answer.
func (i *Interpreter) call(ctx context.Context, h *hook, a *attributes) (*configv1alpha1.ResourceInterpreterResponse, error) {
	if h.versionErr != nil {
		return nil, h.versionErr
	}
	if h.client.err != nil {
		return nil, h.client.err
	}
	uid, body, err := encodeRequest(a)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	raw, err := h.client.post(ctx, body)
	if err != nil {
		return nil, err
	}
	resp, err := decodeResponse(raw)
	if err != nil {
		return nil, err
	}
	if err := verifyResponse(resp, uid, a.op); err != nil {
		return nil, err
	}
	return resp, nil
}

// post sends body and returns the answer of a 2xx response. With a
// deadline the URL carries ?timeout=<seconds, rounded up>s so the webhook
// knows it.
func (c *hookClient) post(ctx context.Context, body []byte) ([]byte, error) {
	u := *c.endpoint
	if deadline, ok := ctx.Deadline(); ok {
		q := u.Query()
		q.Set("timeout", fmt.Sprintf("%ds", int64(math.Ceil(time.Until(deadline).Seconds()))))
		u.RawQuery = q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read response: %w", err)
	}
	if len(raw) > maxResponseBytes {
		return nil, fmt.Errorf("response body exceeds %d bytes", maxResponseBytes)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		if len(bytes.TrimSpace(raw)) == 0 {
			return nil, fmt.Errorf("the server responded with HTTP status %d", resp.StatusCode)
		}
		return nil, fmt.Errorf("the server responded with HTTP status %d: %s", resp.StatusCode, boundedtext.Limit(string(bytes.TrimSpace(raw)), 512))
	}
	return raw, nil
}

var errNoResponse = errors.New("webhook response was absent")
