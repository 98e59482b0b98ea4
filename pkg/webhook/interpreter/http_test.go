package interpreter

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"k8s.io/utils/ptr"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
)

const validRequest = `{"apiVersion":"config.karmada.io/v1alpha1","kind":"ResourceInterpreterContext",
 "request":{"uid":"u-1","kind":{"group":"apps","version":"v1","kind":"Deployment"},"name":"web","namespace":"ns",
 "operation":"InterpretReplica","object":{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"}},"replicas":0}}`

func serve(t *testing.T, h Handler, contentType, body string) (int, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/interpret", strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	NewWebhook(h, nil).ServeHTTP(rec, req)
	var out map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("response %q is not JSON: %v", rec.Body.String(), err)
	}
	return rec.Code, out
}

func TestServeHTTP(t *testing.T) {
	var got Request
	h := HandlerFunc(func(_ context.Context, req Request) Response {
		got = req
		r := Succeeded("")
		r.Replicas = ptr.To[int32](4)
		return r
	})
	code, out := serve(t, h, "application/json", validRequest)
	if code != http.StatusOK {
		t.Fatalf("HTTP %d", code)
	}
	if _, ok := out["apiVersion"]; ok || out["kind"] != nil {
		t.Fatalf("response envelope has apiVersion/kind: %v", out)
	}
	resp := out["response"].(map[string]any)
	if resp["uid"] != "u-1" || resp["successful"] != true || resp["replicas"] != float64(4) {
		t.Fatalf("response = %v", resp)
	}
	if st := resp["status"].(map[string]any); st["code"] != float64(200) {
		t.Fatalf("status = %v, want code 200", st)
	}
	if got.Operation != configv1alpha1.InterpreterOperationInterpretReplica || got.Name != "web" || got.Namespace != "ns" ||
		got.Kind.Kind != "Deployment" || !strings.Contains(string(got.Object.Raw), `"Deployment"`) || *got.DesiredReplicas != 0 {
		t.Fatalf("handler got %+v", got)
	}
}

func TestServeHTTPRejects(t *testing.T) {
	called := false
	h := HandlerFunc(func(context.Context, Request) Response { called = true; return Succeeded("") })
	cases := []struct {
		name, contentType, body string
		code                    float64
		msg                     string
	}{
		{"empty body", "application/json", "", 400, "request body is empty"},
		{"wrong content type", "text/plain", validRequest, 400, "contentType=text/plain, expected application/json"},
		{"content type with charset", "application/json; charset=utf-8", validRequest, 400, "expected application/json"},
		{"not JSON", "application/json", "{", 400, "decode request"},
		{"too large", "application/json", `{"x":"` + strings.Repeat("a", MaxRequestBytes) + `"}`, 413, "exceeds"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out := serve(t, h, tc.contentType, tc.body)
			resp := out["response"].(map[string]any)
			st := resp["status"].(map[string]any)
			if code != 200 || resp["successful"] != false || st["code"] != tc.code || !strings.Contains(st["message"].(string), tc.msg) {
				t.Fatalf("HTTP %d, response %v; want 200 with code %v and %q", code, resp, tc.code, tc.msg)
			}
			if uid, ok := resp["uid"]; ok && uid != "" {
				t.Fatalf("early error carries uid %v", uid)
			}
		})
	}
	if called {
		t.Fatal("handler called for a rejected request")
	}
}

type injected struct{ d *Decoder }

func (i *injected) InjectDecoder(d *Decoder)                 { i.d = d }
func (i *injected) Handle(context.Context, Request) Response { return Errored(422, errTest) }

var errTest = &testError{}

type testError struct{}

func (*testError) Error() string { return "unprocessable" }

func TestWebhookHandleCompletes(t *testing.T) {
	d := NewDecoder(nil)
	h := &injected{}
	wh := NewWebhook(h, d)
	if h.d != d {
		t.Fatal("decoder not injected")
	}
	resp := wh.Handle(context.Background(), Request{configv1alpha1.ResourceInterpreterRequest{UID: "abc"}})
	if resp.UID != "abc" || resp.Successful || resp.Status.Code != 422 || resp.Status.Message != "unprocessable" {
		t.Fatalf("response = %+v %+v", resp, resp.Status)
	}
	r := Response{}
	r.Status = &configv1alpha1.RequestStatus{Message: "m"}
	r.Complete(Request{configv1alpha1.ResourceInterpreterRequest{UID: "x"}})
	if r.Status.Code != 200 || r.Status.Message != "m" || r.UID != "x" {
		t.Fatalf("Complete = %+v", r)
	}
}
