package liveobject_test

import (
	"context"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/propel-mc/propel/internal/shared/liveobject"
)

func TestGet(t *testing.T) {
	now := metav1.Now()
	live := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "live"}}
	deleting := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "deleting", DeletionTimestamp: &now, Finalizers: []string{"keep"}}}
	c := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(live, deleting).Build()
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		want bool
	}{{"live", true}, {"deleting", false}, {"gone", false}} {
		got, err := liveobject.Get(ctx, c, client.ObjectKey{Namespace: "ns", Name: tc.name}, &corev1.ConfigMap{})
		if err != nil || got != tc.want {
			t.Errorf("%s: got %v, %v; want %v, nil", tc.name, got, err, tc.want)
		}
	}
	cm := &corev1.ConfigMap{}
	if _, err := liveobject.Get(ctx, c, client.ObjectKeyFromObject(live), cm); err != nil || cm.Name != "live" {
		t.Errorf("the object read is %q (%v), want live", cm.Name, err)
	}

	failing := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithInterceptorFuncs(interceptor.Funcs{
		Get: func(context.Context, client.WithWatch, client.ObjectKey, client.Object, ...client.GetOption) error {
			return errors.New("connection refused")
		},
	}).Build()
	if got, err := liveobject.Get(ctx, failing, client.ObjectKeyFromObject(live), &corev1.ConfigMap{}); got || err == nil {
		t.Errorf("failed read: got %v, %v; want false and the error", got, err)
	}
}
