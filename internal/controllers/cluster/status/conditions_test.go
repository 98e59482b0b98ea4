package status

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

func TestObservedReadyReasons(t *testing.T) {
	cases := []struct {
		h               health
		status          metav1.ConditionStatus
		reason, message string
	}{
		{health{}, metav1.ConditionFalse, "ClusterNotReachable", "cluster is not reachable"},
		{health{online: true}, metav1.ConditionFalse, "ClusterNotReady", "cluster is reachable but health endpoint responded without ok"},
		{health{online: true, healthy: true}, metav1.ConditionTrue, "ClusterReady", "cluster is healthy and ready to accept workloads"},
	}
	for _, c := range cases {
		got := observedReady(c.h)
		if got.Type != "Ready" || got.Status != c.status || got.Reason != c.reason || got.Message != c.message {
			t.Errorf("%+v: %+v", c.h, got)
		}
	}
	got := clientFailedReady(errors.New("the api endpoint of cluster m is empty"))
	if got.Status != metav1.ConditionFalse || got.Reason != "StatusCollectionFailed" ||
		got.Message != "failed to create a ClusterClient: the api endpoint of cluster m is empty" {
		t.Errorf("client failure: %+v", got)
	}
}

func TestEnablementsCondition(t *testing.T) {
	cases := []struct {
		n               int
		err             error
		status          metav1.ConditionStatus
		reason, message string
	}{
		{3, nil, metav1.ConditionTrue, "Complete", "collected complete APIEnablements from the cluster"},
		{3, errors.New("metrics.k8s.io/v1beta1 unavailable"), metav1.ConditionFalse, "Partial", "might collect partial APIEnablements(3) from the cluster"},
		{0, errors.New("down"), metav1.ConditionFalse, "Empty", "collected empty APIEnablements from the cluster"},
		{0, nil, metav1.ConditionFalse, "Empty", "collected empty APIEnablements from the cluster"},
	}
	for _, c := range cases {
		got := enablementsCondition(c.n, c.err)
		if got.Type != "CompleteAPIEnablements" || got.Status != c.status || got.Reason != c.reason || got.Message != c.message {
			t.Errorf("%d, %v: %+v", c.n, c.err, got)
		}
	}
}

func TestThresholdsHoldFlipsUntilTheyPersist(t *testing.T) {
	now := time.Unix(1000, 0)
	th := newThresholds(30*time.Second, 20*time.Second)
	th.now = func() time.Time { return now }
	trueC := metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "ClusterReady"}
	falseC := metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "ClusterNotReachable"}

	// The first observation after a start is taken as-is.
	if got := th.adjust("m", &trueC, falseC); got.Status != metav1.ConditionFalse {
		t.Fatalf("first observation held: %+v", got)
	}
	th.forget("m")
	th.adjust("m", &trueC, trueC)
	// The member goes down: True is kept for the 20s failure threshold.
	now = now.Add(time.Second)
	if got := th.adjust("m", &trueC, falseC); got.Status != metav1.ConditionTrue {
		t.Fatalf("flip to False not held: %+v", got)
	}
	now = now.Add(19 * time.Second)
	if got := th.adjust("m", &trueC, falseC); got.Status != metav1.ConditionTrue {
		t.Fatalf("held for less than the threshold: %+v", got)
	}
	now = now.Add(time.Second)
	if got := th.adjust("m", &trueC, falseC); got.Status != metav1.ConditionFalse || got.Reason != "ClusterNotReachable" {
		t.Fatalf("not flipped after the failure threshold: %+v", got)
	}
	// Back up: False is kept for the 30s success threshold; a blip resets it.
	now = now.Add(time.Second)
	if got := th.adjust("m", &falseC, trueC); got.Status != metav1.ConditionFalse {
		t.Fatalf("flip to True not held: %+v", got)
	}
	now = now.Add(20 * time.Second)
	th.adjust("m", &falseC, falseC)
	now = now.Add(time.Second)
	th.adjust("m", &falseC, trueC)
	now = now.Add(29 * time.Second)
	if got := th.adjust("m", &falseC, trueC); got.Status != metav1.ConditionFalse {
		t.Fatalf("the blip did not restart the success threshold: %+v", got)
	}
	now = now.Add(2 * time.Second)
	if got := th.adjust("m", &falseC, trueC); got.Status != metav1.ConditionTrue {
		t.Fatalf("not flipped after the success threshold: %+v", got)
	}
	// A current Unknown is not held.
	unknown := metav1.Condition{Type: "Ready", Status: metav1.ConditionUnknown}
	if got := th.adjust("m", &unknown, falseC); got.Status != metav1.ConditionFalse {
		t.Fatalf("Unknown held: %+v", got)
	}
}

func TestProbe(t *testing.T) {
	codes := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		code, ok := codes[r.URL.Path]
		if !ok {
			code = http.StatusNotFound
		}
		w.WriteHeader(code)
	}))
	defer srv.Close()
	kube := kubernetes.NewForConfigOrDie(&rest.Config{Host: srv.URL})
	cases := []struct {
		readyz, healthz int
		want            health
	}{
		{http.StatusOK, 0, health{online: true, healthy: true}},
		{http.StatusInternalServerError, http.StatusOK, health{online: true}},
		{0, http.StatusOK, health{online: true, healthy: true}}, // no /readyz: /healthz decides
		{0, http.StatusForbidden, health{online: true}},
	}
	for _, c := range cases {
		codes = map[string]int{}
		if c.readyz != 0 {
			codes["/readyz"] = c.readyz
		}
		if c.healthz != 0 {
			codes["/healthz"] = c.healthz
		}
		if got := probe(context.Background(), kube); got != c.want {
			t.Errorf("readyz %d healthz %d: %+v, want %+v", c.readyz, c.healthz, got, c.want)
		}
	}
	srv.Close()
	if got := probe(context.Background(), kube); got != (health{}) {
		t.Errorf("closed server: %+v, want offline", got)
	}
}
