package binding

import (
	"context"
	"errors"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/propel-mc/propel/internal/pipeline/binding/overrides"
	"github.com/propel-mc/propel/internal/shared/boundedtext"
	"github.com/propel-mc/propel/internal/shared/workwriter"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// RBAC: the target Clusters are read to render each Work.
// +kubebuilder:rbac:groups=cluster.karmada.io,resources=clusters,verbs=get;list;watch

// workJob is one target's Work through rendering and writing.
type workJob struct {
	target  workv1alpha2.TargetCluster
	desired *workwriter.Desired
	applied *overrides.Result
	changed bool
	err     error
}

// ensureWorks renders the Work of every target, then writes them
// concurrently. A failing cluster does not stop the others; the errors
// are aggregated in target order. It returns how many Works were created
// or updated.
func (r *reconciler) ensureWorks(ctx context.Context, b *binding, tmpl *unstructured.Unstructured, targets []workv1alpha2.TargetCluster, works []*workv1alpha1.Work) (int, error) {
	policies, err := overrides.Load(ctx, r.Client, tmpl.GetNamespace(), false)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", b, err)
	}
	rd, err := newRenderer(r.Interpreter, b, tmpl, policies, targets)
	if err != nil {
		return 0, err
	}
	if r.injectPreservedLabels {
		rd.preserved = preservedLabels(b.spec, targets)
	}
	jobs := make([]workJob, len(targets))
	for i, t := range targets {
		jobs[i] = r.renderTarget(ctx, rd, t)
	}
	r.writeAll(ctx, jobs, works)
	written := 0
	var errs []error
	for i := range jobs {
		j := &jobs[i]
		switch {
		case j.err != nil:
			errs = append(errs, fmt.Errorf("%s: cluster %s: %w", b, j.target.Name, j.err))
		case j.changed:
			written++
			r.overridesApplied(rd, j.target.Name, j.applied)
		}
	}
	return written, kerrors.NewAggregate(errs)
}

// renderTarget renders one target's Work.
func (r *reconciler) renderTarget(ctx context.Context, rd *renderer, t workv1alpha2.TargetCluster) workJob {
	job := workJob{target: t}
	cluster := &clusterv1alpha1.Cluster{}
	if err := r.Client.Get(ctx, client.ObjectKey{Name: t.Name}, cluster); err != nil {
		job.err = fmt.Errorf("get Cluster: %w", err)
		return job
	}
	job.desired, job.applied, job.err = rd.render(ctx, t, cluster)
	var overrideErr *overrides.Error
	if errors.As(job.err, &overrideErr) {
		r.overrideFailed(rd, t.Name, overrideErr)
	}
	return job
}

// writeAll writes the rendered Works, up to r.writers at a time.
func (r *reconciler) writeAll(ctx context.Context, jobs []workJob, works []*workv1alpha1.Work) {
	existing := make(map[string]*workv1alpha1.Work, len(works))
	for _, w := range works {
		existing[w.Namespace+"/"+w.Name] = w
	}
	sem := make(chan struct{}, max(r.writers, 1))
	var wg sync.WaitGroup
	for i := range jobs {
		j := &jobs[i]
		if j.err != nil {
			continue
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			logger := log.FromContext(ctx).WithValues("cluster", klog.KRef("", j.target.Name), "work", klog.KRef(j.desired.Namespace, j.desired.Name))
			j.changed, j.err = workwriter.Write(ctx, r.Client, r.APIReader, j.desired, existing[j.desired.Key()])
			switch {
			case j.err != nil:
				j.err = fmt.Errorf("write Work %s: %w", j.desired.Key(), j.err)
			case j.changed:
				logger.V(1).Info("wrote Work")
			}
		})
	}
	wg.Wait()
}

// overridesApplied records ApplyOverridePolicySucceed on the template for
// each applied policy, as Karmada's override manager does.
func (r *reconciler) overridesApplied(rd *renderer, cluster string, applied *overrides.Result) {
	for _, p := range applied.Policies() {
		kind := "override policy"
		if p.Cluster {
			kind = "cluster override policy"
		}
		r.Recorder.Eventf(rd.tmpl, corev1.EventTypeNormal, EventReasonApplyOverridePolicySucceed,
			"Apply %s(%s) for cluster(%s) succeed.", kind, p.Key(), cluster)
	}
}

// overrideFailed records ApplyOverridePolicyFailed on the template and the
// binding, naming the policy, rule and path.
func (r *reconciler) overrideFailed(rd *renderer, cluster string, err *overrides.Error) {
	msg := boundedtext.String(fmt.Sprintf("Apply override policy for cluster(%s) failed: %v", cluster, err))
	r.Recorder.Event(rd.tmpl, corev1.EventTypeWarning, EventReasonApplyOverridePolicyFailed, msg)
	r.Recorder.Event(rd.b.obj, corev1.EventTypeWarning, EventReasonApplyOverridePolicyFailed, msg)
}
