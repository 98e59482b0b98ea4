// Package templatestatus writes the aggregated member statuses of a
// binding into its resource template's .status (Karmada's AggregateStatus
// step). It reads the template fresh from the API (never a cache), asks
// the resource interpreter to aggregate, and writes only when .status
// changed, through the status subresource when the template's resource
// has one. The write is conditional on the template's resourceVersion and
// retried on conflict with a fresh read, so observedGeneration is always
// computed against the template generation it is written to.
package templatestatus

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/retry"

	"github.com/propel-mc/propel/internal/shared/boundedtext"
	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// TemplateReader reads resource templates from the control plane. Every
// Get returns an object the caller owns (a fresh decode or read).
type TemplateReader interface {
	Get(ctx context.Context, gvk schema.GroupVersionKind, namespace, name string) (*unstructured.Unstructured, error)
}

// StatusWriter writes a template's .status.
type StatusWriter interface {
	UpdateStatus(ctx context.Context, obj *unstructured.Unstructured) error
}

// Aggregator is what the step needs of the resource interpreter.
type Aggregator interface {
	HookEnabled(gvk schema.GroupVersionKind, op configv1alpha1.InterpreterOperation) bool
	AggregateStatus(ctx context.Context, obj *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (*unstructured.Unstructured, error)
}

// Syncer aggregates member statuses into templates.
type Syncer struct {
	// Reader is read first: usually an informer cache, which costs no
	// request.
	Reader TemplateReader
	// LiveReader (optional) reads from the API server after a conflict,
	// when the cached copy proved stale.
	LiveReader TemplateReader
	Writer     StatusWriter
	Aggregator Aggregator
}

// Result says what Sync did.
type Result string

// Results of Sync.
const (
	// NoHook: no interpreter layer aggregates the kind; nothing is written.
	NoHook Result = "NoHook"
	// NotFound: the template is gone (or was replaced by another object).
	NotFound Result = "NotFound"
	// Unchanged: the template's status already is the aggregate.
	Unchanged Result = "Unchanged"
	// Updated: the status was written.
	Updated Result = "Updated"
)

// Sync aggregates items into the template resource refers to.
func (s *Syncer) Sync(ctx context.Context, resource workv1alpha2.ObjectReference, items []workv1alpha2.AggregatedStatusItem) (Result, error) {
	gv, err := schema.ParseGroupVersion(resource.APIVersion)
	if err != nil {
		return "", fmt.Errorf("template apiVersion %q: %w", resource.APIVersion, err)
	}
	gvk := gv.WithKind(resource.Kind)
	if !s.Aggregator.HookEnabled(gvk, configv1alpha1.InterpreterOperationAggregateStatus) {
		return NoHook, nil
	}
	result := Unchanged
	reader := s.Reader
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var err error
		result, err = s.syncOnce(ctx, reader, gvk, resource, items)
		if s.LiveReader != nil {
			reader = s.LiveReader
		}
		return err
	})
	if err != nil {
		// An interpreter's text can be megabytes long: bound it here, the
		// error reaches an event and the log.
		return "", fmt.Errorf("aggregate status of %s %s/%s: %w", resource.Kind, resource.Namespace, resource.Name, boundedtext.Error(err))
	}
	return result, nil
}

func (s *Syncer) syncOnce(ctx context.Context, reader TemplateReader, gvk schema.GroupVersionKind, resource workv1alpha2.ObjectReference, items []workv1alpha2.AggregatedStatusItem) (Result, error) {
	tmpl, err := reader.Get(ctx, gvk, resource.Namespace, resource.Name)
	if apierrors.IsNotFound(err) {
		return NotFound, nil
	}
	if err != nil {
		return "", err
	}
	if resource.UID != "" && tmpl.GetUID() != resource.UID {
		return NotFound, nil // a new object under the old name; its own binding will follow
	}
	// The reader's object is the caller's own (decoded or read for this
	// call): only what is compared after the interpreter ran is kept, as
	// a layer may write into the object it is given. Copying the whole
	// template cost more than the native aggregation itself.
	resourceVersion := tmpl.GetResourceVersion()
	oldStatus := runtime.DeepCopyJSONValue(tmpl.Object["status"])
	out, err := s.Aggregator.AggregateStatus(ctx, tmpl, items)
	if err != nil {
		return "", err
	}
	if sameJSON(oldStatus, out.Object["status"]) {
		return Unchanged, nil
	}
	out.SetResourceVersion(resourceVersion)
	if err := s.Writer.UpdateStatus(ctx, out); err != nil {
		return "", err
	}
	return Updated, nil
}

// sameJSON compares two JSON values as JSON: an interpreter layer may
// return 2 as float64 where the API server decoded int64.
func sameJSON(a, b interface{}) bool {
	if equality.Semantic.DeepEqual(a, b) {
		return true
	}
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	if errA != nil || errB != nil {
		return false
	}
	var va, vb interface{}
	if json.Unmarshal(ja, &va) != nil || json.Unmarshal(jb, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}
