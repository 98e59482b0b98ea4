package templatecontroller

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/propel-mc/propel/internal/pipeline/detector/policyindex"
)

// claim writes p's claim on the template when missing and returns the
// server's copy, whose resourceVersion the binding then records (so the
// claim's own update event causes no second binding write).
func (r *Reconciler) claim(ctx context.Context, obj *unstructured.Unstructured, p *policyindex.Policy) (*unstructured.Unstructured, error) {
	if policyindex.Claimed(obj, p) {
		return obj, nil
	}
	superseded := obj.GetResourceVersion()
	obj = obj.DeepCopy()
	policyindex.SetClaim(obj, p)
	updated, err := r.templates.Update(ctx, obj)
	if err != nil {
		return nil, err
	}
	if k, ok := r.templates.KeyFor(updated.GroupVersionKind(), updated.GetNamespace(), updated.GetName()); ok {
		r.ownClaims.Remember(k, superseded, updated.GetResourceVersion(), struct{}{})
	}
	return updated, nil
}

// Release removes claim c from the template's binding, then from the
// template, each only while it still carries c (another policy may have
// re-claimed it). The binding goes first so a retry still finds the
// template. The policy controller calls it too.
func (r *Reconciler) Release(ctx context.Context, obj *unstructured.Unstructured, c policyindex.Claim) error {
	if c.ID == "" {
		return nil
	}
	binding, err := r.getBinding(ctx, obj)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if err == nil && binding.GetLabels()[c.LabelKey()] == c.ID {
		policyindex.RemoveClaim(binding, c.Cluster)
		if err := r.client.Update(ctx, binding); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("release binding %s: %w", binding.GetName(), err)
		}
	}
	if obj.GetLabels()[c.LabelKey()] != c.ID {
		return nil
	}
	obj = obj.DeepCopy()
	policyindex.RemoveClaim(obj, c.Cluster)
	if _, err := r.templates.Update(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("release template: %w", err)
	}
	return nil
}
