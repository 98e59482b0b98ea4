package membercluster

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// The Pod informer stores records whether a pod comes from the paged
// initial list or from a watch event, delivers updates (records keep the
// resourceVersion that tells an update from a resync), and deletes by key.
func TestRecordInformerListsPagesAndWatches(t *testing.T) {
	pods := make([]corev1.Pod, 5)
	for i := range pods {
		pods[i] = *memberPod(i)
	}
	var pages atomic.Int32
	fw := watch.NewFake()
	lw := &cache.ListWatch{
		ListWithContextFunc: func(_ context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			pages.Add(1)
			// Pages of two, as the API server returns them for a limit.
			from := 0
			if opts.Continue != "" {
				from = int(opts.Continue[0] - '0')
			}
			to := min(from+2, len(pods))
			page := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "200000"}, Items: pods[from:to]}
			if to < len(pods) {
				page.Continue = string(rune('0' + to))
			}
			return page, nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return fw, nil },
	}
	// The fake would take a streaming list (ListWatch claims support);
	// the records' ListerWatcher makes the reflector list in pages anyway.
	inf := cache.NewSharedIndexInformer(newRecordListWatch(lw, podListRecord),
		&corev1.Pod{}, 0, cache.Indexers{})
	if err := inf.SetTransform(podRecord); err != nil {
		t.Fatal(err)
	}
	var updates, deletes atomic.Int32
	var deleted atomic.Value
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(any, any) { updates.Add(1) },
		DeleteFunc: func(obj any) { deletes.Add(1); deleted.Store(obj) },
	}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go inf.RunWithContext(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("not synced")
	}
	store := inf.GetStore()
	if got := len(store.List()); got != len(pods) {
		t.Fatalf("store holds %d pods after the list, want %d", got, len(pods))
	}
	for _, obj := range store.List() {
		if _, ok := obj.(*PodRecord); !ok {
			t.Fatalf("store holds a %T", obj)
		}
	}
	rec, ok, err := store.GetByKey(pods[3].Namespace + "/" + pods[3].Name)
	if err != nil || !ok || rec.(*PodRecord).NodeName != pods[3].Spec.NodeName {
		t.Fatalf("get by key: %v %v %v", rec, ok, err)
	}

	moved := pods[3].DeepCopy()
	moved.ResourceVersion = "200001"
	moved.Status.Phase = corev1.PodSucceeded
	fw.Modify(moved)
	fw.Delete(pods[1].DeepCopy())
	deadline := time.Now().Add(10 * time.Second)
	for (updates.Load() < 1 || deletes.Load() < 1) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if pages.Load() != 3 {
		t.Errorf("listed in %d pages, want 3", pages.Load())
	}
	if updates.Load() != 1 || deletes.Load() != 1 {
		t.Fatalf("%d updates, %d deletes delivered, want 1 each", updates.Load(), deletes.Load())
	}
	if rec, _, _ := store.GetByKey(moved.Namespace + "/" + moved.Name); rec.(*PodRecord).Phase != corev1.PodSucceeded {
		t.Fatalf("update not stored: %+v", rec)
	}
	if _, ok := deleted.Load().(*PodRecord); !ok {
		t.Fatalf("delete delivered a %T", deleted.Load())
	}
	if got := len(store.List()); got != len(pods)-1 {
		t.Fatalf("store holds %d pods after a delete, want %d", got, len(pods)-1)
	}
}

// A tombstone of a record keys like the record.
func TestRecordTombstoneKey(t *testing.T) {
	rec := PodRecordOf(memberPod(1))
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(rec)
	if err != nil || key != rec.Namespace()+"/"+rec.Name() {
		t.Fatalf("key %q, %v", key, err)
	}
	tomb := cache.DeletedFinalStateUnknown{Key: key, Obj: rec}
	if got, err := cache.DeletionHandlingMetaNamespaceKeyFunc(tomb); err != nil || got != key {
		t.Fatalf("tombstone key %q, %v", got, err)
	}
}
