// Package liveobject reads the object a reconcile request names and says
// whether a controller has anything to do with it: an object that is gone,
// or being deleted, is left to garbage collection and to the finalizers'
// owners, so most controllers stop there without an error.
package liveobject

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Get reads the object at key into obj. It reports true when the object
// exists and is not being deleted; false with a nil error when it is gone
// or being deleted; false with the read's error otherwise (the request is
// retried).
func Get(ctx context.Context, reader client.Reader, key client.ObjectKey, obj client.Object) (bool, error) {
	if err := reader.Get(ctx, key, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, err
	}
	return obj.GetDeletionTimestamp().IsZero(), nil
}
