// Package templatescale reads and sets a resource template's replicas
// through its scale subresource on the control plane, the one way both
// the FederatedHPA and the CronFederatedHPA controllers scale a template
// (as Karmada's do, through controller-runtime's scale subresource
// client). The usual propagation then carries the count to the members.
package templatescale

import (
	"context"
	"fmt"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Scale is a template's scale subresource as read, kept for an update
// that conflicts when the template changed since.
type Scale struct {
	target client.Object
	scale  *autoscalingv1.Scale
}

// Get reads the scale subresource of the gvk template key.
func Get(ctx context.Context, c client.Client, gvk schema.GroupVersionKind, key client.ObjectKey) (*Scale, error) {
	target := targetObject(c, gvk)
	target.SetNamespace(key.Namespace)
	target.SetName(key.Name)
	scale := &autoscalingv1.Scale{}
	if err := c.SubResource("scale").Get(ctx, target, scale); err != nil {
		return nil, err
	}
	return &Scale{target: target, scale: scale}, nil
}

// targetObject is an empty object of gvk: typed when the client's scheme
// knows the kind (clients that dispatch the scale subresource by type,
// such as the fake one, need that), unstructured otherwise (custom
// resources).
func targetObject(c client.Client, gvk schema.GroupVersionKind) client.Object {
	if obj, err := c.Scheme().New(gvk); err == nil {
		if typed, ok := obj.(client.Object); ok {
			return typed
		}
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u
}

// Replicas is the scale's spec.replicas (0 when the template omits it).
func (s *Scale) Replicas() int32 { return s.scale.Spec.Replicas }

// Update writes replicas into the scale as read; it conflicts when the
// template changed since Get.
func (s *Scale) Update(ctx context.Context, c client.Client, replicas int32) error {
	body := s.scale.DeepCopy()
	body.Spec.Replicas = replicas
	if err := c.SubResource("scale").Update(ctx, s.target, client.WithSubResourceBody(body)); err != nil {
		return err
	}
	s.scale = body
	return nil
}

// Set makes the template's spec.replicas replicas, reading the scale
// fresh on a conflict; it writes only when the scale differs and reports
// whether it wrote.
func Set(ctx context.Context, c client.Client, gvk schema.GroupVersionKind, key client.ObjectKey, replicas int32) (bool, error) {
	written := false
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		s, err := Get(ctx, c, gvk, key)
		if err != nil {
			return err
		}
		if s.Replicas() == replicas {
			return nil
		}
		if err := s.Update(ctx, c, replicas); err != nil {
			return err
		}
		written = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("scale %s %s to %d: %w", gvk.Kind, key, replicas, err)
	}
	return written, nil
}
