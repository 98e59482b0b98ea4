package join

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/propel-mc/propel/internal/shared/names"
	"github.com/propel-mc/propel/pkg/apis"
	clusterv1alpha1 "github.com/propel-mc/propel/pkg/apis/cluster/v1alpha1"
	workv1alpha1 "github.com/propel-mc/propel/pkg/apis/work/v1alpha1"
)

// Unjoin deletes the Push-mode Cluster opts.Name and waits, up to
// opts.Wait, until the controller manager has removed its execution
// namespace and the Cluster is gone; then it deletes the Cluster's
// credentials Secrets and, when member is not nil, what join created in
// the member. Without opts.Force a timeout is an error and the member is
// left alone.
func Unjoin(ctx context.Context, controlPlane, member *rest.Config, opts UnjoinOptions) error {
	opts = opts.withDefaults()
	cp, mc, err := unjoinClients(controlPlane, member, opts)
	if err != nil {
		return err
	}
	cluster, err := pushCluster(ctx, cp, opts.Name)
	if err != nil {
		return err
	}
	if err := cp.Delete(ctx, cluster); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("unjoin %s: delete Cluster: %w", opts.Name, err)
	}
	if err := waitForRemoval(ctx, cp, opts); err != nil {
		if !opts.Force {
			return fmt.Errorf("unjoin %s: %w", opts.Name, err)
		}
		klog.InfoS("forcing the removal of the cluster", "cluster", klog.KRef("", opts.Name), "reason", err.Error())
		forceRemoval(ctx, cp, opts.Name)
	}
	if err := deleteAll(ctx, cp, credentialSecrets(opts), opts.Force); err != nil {
		return fmt.Errorf("unjoin %s: control plane: %w", opts.Name, err)
	}
	if mc == nil {
		return nil
	}
	if err := deleteAll(ctx, mc, memberCleanup(opts), opts.Force); err != nil {
		return fmt.Errorf("unjoin %s: member: %w", opts.Name, err)
	}
	return nil
}

// PlanUnjoin checks that opts.Name is a Push-mode Cluster and returns what
// Unjoin would delete, deleting nothing: --dry-run.
func PlanUnjoin(ctx context.Context, controlPlane, member *rest.Config, opts UnjoinOptions) (*Plan, error) {
	opts = opts.withDefaults()
	cp, _, err := unjoinClients(controlPlane, member, opts)
	if err != nil {
		return nil, err
	}
	cluster, err := pushCluster(ctx, cp, opts.Name)
	if err != nil {
		return nil, err
	}
	p := &Plan{ControlPlane: append([]client.Object{cluster}, credentialSecrets(opts)...)}
	if member != nil {
		p.Member = memberCleanup(opts)
	}
	return p, nil
}

func unjoinClients(controlPlane, member *rest.Config, opts UnjoinOptions) (cp, mc client.Client, err error) {
	if opts.Name == "" {
		return nil, nil, fmt.Errorf("unjoin: cluster name is required")
	}
	if cp, err = client.New(controlPlane, client.Options{Scheme: apis.Scheme}); err != nil {
		return nil, nil, fmt.Errorf("unjoin %s: control plane client: %w", opts.Name, err)
	}
	if member == nil {
		return cp, nil, nil
	}
	if mc, err = client.New(member, client.Options{Scheme: apis.Scheme}); err != nil {
		return nil, nil, fmt.Errorf("unjoin %s: member client: %w", opts.Name, err)
	}
	return cp, mc, nil
}

// pushCluster returns the Cluster name, refusing a missing one and a Pull
// one (its agent unregisters it).
func pushCluster(ctx context.Context, cp client.Client, name string) (*clusterv1alpha1.Cluster, error) {
	cluster := &clusterv1alpha1.Cluster{}
	if err := cp.Get(ctx, client.ObjectKey{Name: name}, cluster); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("unjoin %s: no Cluster %s in the control plane", name, name)
		}
		return nil, fmt.Errorf("unjoin %s: get Cluster: %w", name, err)
	}
	if cluster.Spec.SyncMode == clusterv1alpha1.Pull {
		return nil, fmt.Errorf("unjoin %s: Cluster %s is in Pull mode; unregister it with its agent instead", name, name)
	}
	return cluster, nil
}

// errRemovalTimeout is what waitForRemoval wraps when the cleanup did not
// finish in time.
var errRemovalTimeout = errors.New("timed out")

// waitForRemoval polls until both the Cluster and its execution namespace
// are gone: the cluster controller keeps the Cluster (by its finalizer)
// until the namespace, and the Works in it, are removed.
func waitForRemoval(ctx context.Context, cp client.Client, opts UnjoinOptions) error {
	execSpace := names.ExecutionSpace(opts.Name)
	var left []string
	var lastErr error
	err := wait.PollUntilContextTimeout(ctx, opts.PollInterval, opts.Wait, true, func(ctx context.Context) (bool, error) {
		left, lastErr = left[:0], nil
		for _, o := range []client.Object{&clusterv1alpha1.Cluster{}, &corev1.Namespace{}} {
			key := client.ObjectKey{Name: opts.Name}
			if _, ok := o.(*corev1.Namespace); ok {
				key.Name = execSpace
			}
			// A failed read (an API server restart, the client's rate
			// limiter near the deadline) counts the object as present
			// and the poll goes on: only the wait's end stops it.
			if err := cp.Get(ctx, key, o); err == nil {
				left = append(left, kindOf(o)+" "+key.Name)
			} else if !apierrors.IsNotFound(err) {
				left = append(left, kindOf(o)+" "+key.Name)
				lastErr = err
			}
		}
		return len(left) == 0, nil
	})
	if err == nil {
		return nil
	}
	if wait.Interrupted(err) {
		if lastErr != nil {
			left = append(left, fmt.Sprintf("last read error: %v", lastErr))
		}
		return fmt.Errorf("%w after %s waiting for the controller manager to remove the execution namespace %s and the Cluster (still present: %v); is propel-controller-manager running? --force removes the finalizers and goes on",
			errRemovalTimeout, opts.Wait, execSpace, left)
	}
	return fmt.Errorf("wait for the removal of Cluster %s: %w", opts.Name, err)
}

// forceRemoval strips the execution controller's finalizer from the Works
// in the execution namespace and the cluster controller's from the
// Cluster, so that both go without the member's cleanup. Failures are
// logged: forcing goes on regardless.
func forceRemoval(ctx context.Context, cp client.Client, name string) {
	works := &workv1alpha1.WorkList{}
	if err := cp.List(ctx, works, client.InNamespace(names.ExecutionSpace(name))); err != nil {
		klog.ErrorS(err, "force: list works", "namespace", names.ExecutionSpace(name))
	}
	for i := range works.Items {
		removeFinalizer(ctx, cp, &works.Items[i], names.ExecutionControllerFinalizer)
	}
	cluster := &clusterv1alpha1.Cluster{}
	if err := cp.Get(ctx, client.ObjectKey{Name: name}, cluster); err != nil {
		if !apierrors.IsNotFound(err) {
			klog.ErrorS(err, "force: get cluster", "cluster", klog.KRef("", name))
		}
		return
	}
	removeFinalizer(ctx, cp, cluster, names.ClusterControllerFinalizer)
}

func removeFinalizer(ctx context.Context, cp client.Client, obj client.Object, finalizer string) {
	fins := obj.GetFinalizers()
	kept := fins[:0:0]
	for _, f := range fins {
		if f != finalizer {
			kept = append(kept, f)
		}
	}
	if len(kept) == len(fins) {
		return
	}
	patch := client.MergeFrom(obj.DeepCopyObject().(client.Object))
	obj.SetFinalizers(kept)
	if err := cp.Patch(ctx, obj, patch); client.IgnoreNotFound(err) != nil {
		klog.ErrorS(err, "force: remove finalizer", "object", klog.KObj(obj), "kind", kindOf(obj), "finalizer", finalizer)
	}
}

// credentialSecrets are the control plane's Secrets join made for name;
// the Cluster owns them, so the garbage collector would remove them too.
func credentialSecrets(opts UnjoinOptions) []client.Object {
	ns := opts.ClusterNamespace
	return []client.Object{
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: opts.Name}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: impersonatorSecretName(opts.Name)}},
	}
}

// memberCleanup is what join created in the member, in the order unjoin
// deletes it: the binding before its role, the accounts and their token
// Secrets, then the namespace.
func memberCleanup(opts UnjoinOptions) []client.Object {
	ns, sa, role := opts.ClusterNamespace, serviceAccountName(opts.Name), clusterRoleName(opts.Name)
	return []client.Object{
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: role}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: role}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: sa}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: sa}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: names.ImpersonatorName}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: names.ImpersonatorName}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
	}
}

// deleteAll deletes objs, absent ones being fine. With force a failure is
// logged and the rest still deleted.
func deleteAll(ctx context.Context, c client.Client, objs []client.Object, force bool) error {
	for _, o := range objs {
		err := c.Delete(ctx, o)
		if err == nil || apierrors.IsNotFound(err) {
			continue
		}
		err = fmt.Errorf("delete %s %s: %w", kindOf(o), objectName(o), err)
		if !force {
			return err
		}
		klog.ErrorS(err, "force: cleanup failed, going on")
	}
	return nil
}
