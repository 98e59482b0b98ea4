package native

import (
	"strings"
	"testing"

	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

type aggregateCase struct {
	name     string
	template string
	items    []workv1alpha2.AggregatedStatusItem
	// status is the expected .status (YAML); "" skips the check.
	status string
	// same: the template object itself must be returned.
	same    bool
	check   func(t *testing.T, status string)
	wantErr bool
}

func runAggregate(t *testing.T, tests []aggregateCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := obj(t, tt.template)
			before := in.DeepCopy()
			out, err := New().AggregateStatus(ctx, in, tt.items)
			if tt.wantErr {
				if err == nil {
					t.Fatal("want an error")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (out == in) != tt.same {
				t.Errorf("returned the template itself: %v, want %v", out == in, tt.same)
			}
			if nested(t, in) != nested(t, before) {
				t.Error("the template object was modified")
			}
			got := nested(t, out, "status")
			if tt.status != "" {
				if want := yamlJSON(t, tt.status); got != want {
					t.Errorf("status\n got %s\nwant %s", got, want)
				}
			}
			if tt.check != nil {
				tt.check(t, got)
			}
			if !tt.same && nested(t, out, "metadata", "creationTimestamp") != "null" {
				t.Error("a rebuilt object must be normalized (metadata.creationTimestamp: null)")
			}
		})
	}
}

func TestAggregateDeployment(t *testing.T) {
	const template = `apiVersion: apps/v1
kind: Deployment
metadata: {name: nginx, namespace: default, generation: 3}
spec: {replicas: 4}
status:
  observedGeneration: 2
  replicas: 1
  conditions: [{type: Available, status: 'True'}]`
	m1 := "{generation: 5, resourceTemplateGeneration: 3, observedGeneration: 5, replicas: 2, readyReplicas: 2, updatedReplicas: 2, availableReplicas: 2}"
	m2 := "{generation: 2, resourceTemplateGeneration: 3, observedGeneration: 2, replicas: 2, readyReplicas: 1, updatedReplicas: 2, availableReplicas: 1, unavailableReplicas: 1}"
	runAggregate(t, []aggregateCase{{
		name:     "every member observed the latest template: observedGeneration advances",
		template: template,
		items:    []workv1alpha2.AggregatedStatusItem{item(t, "member1", m1), item(t, "member2", m2)},
		status: `{observedGeneration: 3, replicas: 4, readyReplicas: 3, updatedReplicas: 4, availableReplicas: 3,
			unavailableReplicas: 1, conditions: [{type: Available, status: 'True', lastUpdateTime: null, lastTransitionTime: null}]}`,
	}, {
		name:     "a member built from an older template holds observedGeneration back",
		template: template,
		items: []workv1alpha2.AggregatedStatusItem{item(t, "member1", m1),
			item(t, "member2", "{generation: 2, resourceTemplateGeneration: 2, observedGeneration: 2, replicas: 2}")},
		check: func(t *testing.T, s string) { wantIn(t, s, `"observedGeneration":2`, `"replicas":4`) },
	}, {
		name:     "a member that has not reconciled its object holds observedGeneration back",
		template: template,
		items: []workv1alpha2.AggregatedStatusItem{item(t, "member1", m1),
			item(t, "member2", "{generation: 4, resourceTemplateGeneration: 3, observedGeneration: 3, replicas: 2}")},
		check: func(t *testing.T, s string) { wantIn(t, s, `"observedGeneration":2`) },
	}, {
		name:     "an item without status counts against advancing",
		template: template,
		items:    []workv1alpha2.AggregatedStatusItem{item(t, "member1", m1), item(t, "member2", "")},
		check:    func(t *testing.T, s string) { wantIn(t, s, `"observedGeneration":2`, `"replicas":2`) },
	}, {
		name:     "an empty list advances observedGeneration",
		template: template,
		items:    nil,
		check: func(t *testing.T, s string) {
			wantIn(t, s, `"observedGeneration":3`)
			if strings.Contains(s, `"replicas"`) {
				t.Errorf("replicas should be 0 (omitted): %s", s)
			}
		},
	}, {
		name: "unchanged status returns the template itself",
		template: `apiVersion: apps/v1
kind: Deployment
metadata: {name: nginx, generation: 3}
status: {observedGeneration: 3, replicas: 4, readyReplicas: 3, updatedReplicas: 4, availableReplicas: 3, unavailableReplicas: 1, extra: kept}`,
		items: []workv1alpha2.AggregatedStatusItem{item(t, "member1", m1), item(t, "member2", m2)},
		same:  true,
	}, {
		name:     "malformed member status fails",
		template: template,
		items:    []workv1alpha2.AggregatedStatusItem{item(t, "member1", "{replicas: many}")},
		wantErr:  true,
	}})
}

func TestAggregateReplicaSet(t *testing.T) {
	template := "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: r, generation: 2}\nstatus: {observedGeneration: 1, fullyLabeledReplicas: 7}"
	runAggregate(t, []aggregateCase{{
		name:     "sums and advances",
		template: template,
		items: []workv1alpha2.AggregatedStatusItem{
			item(t, "m1", "{generation: 1, resourceTemplateGeneration: 2, observedGeneration: 1, replicas: 2, readyReplicas: 2, availableReplicas: 1}"),
			item(t, "m2", "{generation: 3, resourceTemplateGeneration: 2, observedGeneration: 3, replicas: 1, readyReplicas: 1, availableReplicas: 1}"),
		},
		status: "{observedGeneration: 2, replicas: 3, readyReplicas: 3, availableReplicas: 2, fullyLabeledReplicas: 7}",
	}, {
		name:     "unchanged",
		template: "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: r, generation: 2}\nstatus: {observedGeneration: 2, replicas: 1}",
		items:    []workv1alpha2.AggregatedStatusItem{item(t, "m1", "{generation: 1, resourceTemplateGeneration: 2, observedGeneration: 1, replicas: 1}")},
		same:     true,
	}})
}

func TestAggregateDaemonSet(t *testing.T) {
	items := []workv1alpha2.AggregatedStatusItem{
		item(t, "m1", "{generation: 1, resourceTemplateGeneration: 1, observedGeneration: 1, currentNumberScheduled: 2, desiredNumberScheduled: 2, numberReady: 2, updatedNumberScheduled: 2, numberAvailable: 2}"),
		item(t, "m2", "{generation: 1, resourceTemplateGeneration: 1, observedGeneration: 1, currentNumberScheduled: 1, desiredNumberScheduled: 2, numberReady: 1, numberMisscheduled: 1, updatedNumberScheduled: 1, numberAvailable: 1, numberUnavailable: 1}"),
	}
	sum := "{observedGeneration: 1, currentNumberScheduled: 3, desiredNumberScheduled: 4, numberReady: 3, numberMisscheduled: 1, updatedNumberScheduled: 3, numberAvailable: 3, numberUnavailable: 1"
	runAggregate(t, []aggregateCase{{
		name:     "sums the seven counters and advances",
		template: "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: ds, generation: 1}",
		items:    items,
		status:   sum + "}",
	}, {
		name:     "equal counters and nothing else: the template itself",
		template: "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: ds, generation: 1}\nstatus: " + sum + "}",
		items:    items,
		same:     true,
	}, {
		name:     "equal counters but conditions: re-emitted because the whole status is compared",
		template: "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: ds, generation: 1}\nstatus: " + sum + ", collisionCount: 2}",
		items:    items,
		status:   sum + ", collisionCount: 2}",
	}})
}

func TestAggregateStatefulSet(t *testing.T) {
	template := "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: s, generation: 2}\nstatus: {observedGeneration: 1, replicas: 1}"
	runAggregate(t, []aggregateCase{{
		// Karmada quirk: reflected StatefulSet statuses carry no
		// observedGeneration, so members with generation >= 1 never count.
		name:     "members fully caught up still do not advance observedGeneration",
		template: template,
		items: []workv1alpha2.AggregatedStatusItem{
			item(t, "m1", "{generation: 2, resourceTemplateGeneration: 2, replicas: 2, readyReplicas: 2, currentReplicas: 2, updatedReplicas: 2, availableReplicas: 2}"),
			item(t, "m2", "{generation: 1, resourceTemplateGeneration: 2, replicas: 1, readyReplicas: 1, currentReplicas: 1, updatedReplicas: 1, availableReplicas: 1}"),
		},
		status: "{observedGeneration: 1, replicas: 3, readyReplicas: 3, currentReplicas: 3, updatedReplicas: 3, availableReplicas: 3}",
	}, {
		// A member built from template generation 1 (the template is at 2)
		// counts because resourceTemplateGeneration is compared with the
		// member's own generation. (observedGeneration is only present when
		// something other than the native reflector produced the status.)
		name:     "the member's own generation is compared, not the template's",
		template: template,
		items: []workv1alpha2.AggregatedStatusItem{
			item(t, "m1", "{generation: 1, resourceTemplateGeneration: 1, observedGeneration: 1, replicas: 1}"),
		},
		check: func(t *testing.T, s string) { wantIn(t, s, `"observedGeneration":2`) },
	}, {
		name:     "member generation 0 counts as caught up",
		template: template,
		items:    []workv1alpha2.AggregatedStatusItem{item(t, "m1", "{replicas: 1}")},
		check:    func(t *testing.T, s string) { wantIn(t, s, `"observedGeneration":2`) },
	}, {
		name:     "an empty list advances",
		template: template,
		items:    []workv1alpha2.AggregatedStatusItem{},
		status:   "{observedGeneration: 2, availableReplicas: 0, replicas: 0}",
	}, {
		name:     "unchanged",
		template: template,
		items:    []workv1alpha2.AggregatedStatusItem{item(t, "m1", "{generation: 2, resourceTemplateGeneration: 2, replicas: 1}")},
		same:     true,
	}})
}

func TestAggregateService(t *testing.T) {
	lb := "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {type: LoadBalancer}"
	runAggregate(t, []aggregateCase{{
		name:     "LoadBalancer ingress deduplicated and sorted",
		template: lb + "\nstatus: {conditions: [{type: X, status: 'True', reason: r, message: m, lastTransitionTime: '2024-01-01T00:00:00Z'}]}",
		items: []workv1alpha2.AggregatedStatusItem{
			item(t, "m1", "{loadBalancer: {ingress: [{ip: 10.0.0.2}, {hostname: b.example, ports: [{port: 443, protocol: TCP}]}, {ip: 10.0.0.1, ipMode: Proxy}]}}"),
			item(t, "m2", "{loadBalancer: {ingress: [{hostname: b.example, ports: [{port: 80, protocol: UDP}, {port: 80, protocol: TCP}, {port: 443, protocol: TCP}, {port: 80, protocol: TCP, error: oops}, {port: 80, protocol: TCP, error: bad}]}, {ip: 10.0.0.1}, {hostname: a.example}]}}"),
			item(t, "m3", ""),
		},
		status: `{loadBalancer: {ingress: [
			{hostname: a.example},
			{hostname: b.example, ports: [{port: 80, protocol: TCP}, {port: 80, protocol: TCP, error: bad}, {port: 80, protocol: TCP, error: oops}, {port: 80, protocol: UDP}, {port: 443, protocol: TCP}]},
			{ip: 10.0.0.1, ipMode: Proxy},
			{ip: 10.0.0.1},
			{ip: 10.0.0.2}]}}`,
	}, {
		name:     "not a LoadBalancer: the template itself",
		template: "apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {type: ClusterIP}",
		items:    []workv1alpha2.AggregatedStatusItem{item(t, "m1", "{loadBalancer: {ingress: [{ip: 1.1.1.1}]}}")},
		same:     true,
	}, {
		name:     "unchanged",
		template: lb + "\nstatus: {loadBalancer: {ingress: [{ip: 1.1.1.1}]}}",
		items:    []workv1alpha2.AggregatedStatusItem{item(t, "m1", "{loadBalancer: {ingress: [{ip: 1.1.1.1}]}}"), item(t, "m2", "{loadBalancer: {ingress: [{ip: 1.1.1.1}]}}")},
		same:     true,
	}, {
		name:     "no ingress and an empty status: the template itself",
		template: lb,
		items:    []workv1alpha2.AggregatedStatusItem{item(t, "m1", "{loadBalancer: {}}")},
		same:     true,
	}})
}

func TestAggregateIngress(t *testing.T) {
	runAggregate(t, []aggregateCase{{
		name:     "ingress deduplicated by hostname and IP",
		template: "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: i}",
		items: []workv1alpha2.AggregatedStatusItem{
			item(t, "m1", "{loadBalancer: {ingress: [{ip: 10.0.0.9}, {hostname: z.example, ports: [{port: 80, protocol: TCP}]}]}}"),
			item(t, "m2", "{loadBalancer: {ingress: [{ip: 10.0.0.9}, {hostname: z.example, ports: [{port: 80, protocol: TCP}]}, {hostname: c.example, ip: 10.0.0.3}]}}"),
		},
		status: "{loadBalancer: {ingress: [{hostname: c.example, ip: 10.0.0.3}, {hostname: z.example, ports: [{port: 80, protocol: TCP}]}, {ip: 10.0.0.9}]}}",
	}, {
		name:     "unchanged",
		template: "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: i}\nstatus: {loadBalancer: {ingress: [{ip: 10.0.0.9}]}}",
		items:    []workv1alpha2.AggregatedStatusItem{item(t, "m1", "{loadBalancer: {ingress: [{ip: 10.0.0.9}]}}")},
		same:     true,
	}})
}

func TestAggregateJob(t *testing.T) {
	job := "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {parallelism: 2}"
	complete := func(start, end string, extra string) string {
		return "{succeeded: 1, startTime: '" + start + "', completionTime: '" + end + "', conditions: [{type: Complete, status: 'True'}" + extra + "]}"
	}
	criteria := ", {type: SuccessCriteriaMet, status: 'True'}"
	runAggregate(t, []aggregateCase{{
		name:     "running members: counters summed, earliest start once all started",
		template: job,
		items: []workv1alpha2.AggregatedStatusItem{
			item(t, "m1", "{active: 1, startTime: '2024-01-01T00:00:10Z'}"),
			item(t, "m2", "{active: 2, failed: 1, startTime: '2024-01-01T00:00:05Z'}"),
		},
		status: "{active: 3, failed: 1, startTime: '2024-01-01T00:00:05Z'}",
	}, {
		name:     "a member without startTime leaves it unset",
		template: job,
		items: []workv1alpha2.AggregatedStatusItem{
			item(t, "m1", "{active: 1, startTime: '2024-01-01T00:00:10Z'}"),
			item(t, "m2", "{active: 1}"),
		},
		status: "{active: 2}",
	}, {
		name:     "the template's startTime is kept",
		template: job + "\nstatus: {startTime: '2023-12-31T00:00:00Z'}",
		items:    []workv1alpha2.AggregatedStatusItem{item(t, "m1", "{active: 1, startTime: '2024-01-01T00:00:10Z'}")},
		status:   "{active: 1, startTime: '2023-12-31T00:00:00Z'}",
	}, {
		name:     "all complete: Complete and SuccessCriteriaMet, latest completion",
		template: job,
		items: []workv1alpha2.AggregatedStatusItem{
			item(t, "m1", complete("2024-01-01T00:00:00Z", "2024-01-01T01:00:00Z", criteria)),
			item(t, "m2", complete("2024-01-01T00:00:30Z", "2024-01-01T02:00:00Z", criteria)),
		},
		check: func(t *testing.T, s string) {
			wantIn(t, s, `"succeeded":2`, `"startTime":"2024-01-01T00:00:00Z"`, `"completionTime":"2024-01-01T02:00:00Z"`,
				`{"lastProbeTime":"`, `"message":"Job completed","reason":"Completed","status":"True","type":"Complete"}`,
				`"message":"All member clusters have met success criteria","reason":"CompletionsReached","status":"True","type":"SuccessCriteriaMet"}`)
			if strings.Index(s, `"type":"Complete"`) > strings.Index(s, `"type":"SuccessCriteriaMet"`) {
				t.Errorf("Complete must come first: %s", s)
			}
		},
	}, {
		name:     "all complete without success criteria everywhere",
		template: job,
		items: []workv1alpha2.AggregatedStatusItem{
			item(t, "m1", complete("2024-01-01T00:00:00Z", "2024-01-01T01:00:00Z", criteria)),
			item(t, "m2", complete("2024-01-01T00:00:30Z", "2024-01-01T02:00:00Z", "")),
		},
		check: func(t *testing.T, s string) {
			wantIn(t, s, `"type":"Complete"`)
			if strings.Contains(s, "SuccessCriteriaMet") {
				t.Errorf("unexpected SuccessCriteriaMet: %s", s)
			}
		},
	}, {
		name:     "an item without status prevents completion",
		template: job,
		items: []workv1alpha2.AggregatedStatusItem{
			item(t, "m1", complete("2024-01-01T00:00:00Z", "2024-01-01T01:00:00Z", "")),
			item(t, "m2", ""),
		},
		status: "{succeeded: 1}",
	}, {
		name:     "failed members are listed",
		template: job,
		items: []workv1alpha2.AggregatedStatusItem{
			item(t, "m1", "{failed: 1, conditions: [{type: Failed, status: 'True'}]}"),
			item(t, "m2", complete("2024-01-01T00:00:00Z", "2024-01-01T01:00:00Z", "")),
			item(t, "m3", "{failed: 2, conditions: [{type: Failed, status: 'True'}]}"),
		},
		check: func(t *testing.T, s string) {
			wantIn(t, s, `"failed":3`, `"message":"Job executed failed in member clusters m1,m3","reason":"JobFailed","status":"True","type":"Failed"`)
			if strings.Contains(s, `"type":"Complete"`) {
				t.Errorf("unexpected Complete: %s", s)
			}
		},
	}, {
		name:     "a finished template is final",
		template: job + "\nstatus: {conditions: [{type: Failed, status: 'True'}]}",
		items:    []workv1alpha2.AggregatedStatusItem{item(t, "m1", "{active: 4}")},
		same:     true,
	}, {
		name:     "unchanged",
		template: job + "\nstatus: {active: 1}",
		items:    []workv1alpha2.AggregatedStatusItem{item(t, "m1", "{active: 1}")},
		same:     true,
	}})
}

func TestAggregateCronJob(t *testing.T) {
	cron := "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: c}\nspec: {schedule: '* * * * *'}"
	runAggregate(t, []aggregateCase{{
		name:     "active concatenated, latest times",
		template: cron,
		items: []workv1alpha2.AggregatedStatusItem{
			item(t, "m1", "{active: [{name: j1}], lastScheduleTime: '2024-01-01T00:01:00Z', lastSuccessfulTime: '2024-01-01T00:00:30Z'}"),
			item(t, "m2", "{active: [{name: j2}], lastScheduleTime: '2024-01-01T00:02:00Z'}"),
			item(t, "m3", ""),
		},
		status: "{active: [{name: j1}, {name: j2}], lastScheduleTime: '2024-01-01T00:02:00Z', lastSuccessfulTime: '2024-01-01T00:00:30Z'}",
	}, {
		name:     "unchanged",
		template: cron + "\nstatus: {lastScheduleTime: '2024-01-01T00:02:00Z'}",
		items:    []workv1alpha2.AggregatedStatusItem{item(t, "m1", "{lastScheduleTime: '2024-01-01T00:02:00Z'}")},
		same:     true,
	}})
}

func TestAggregatePod(t *testing.T) {
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a, image: x}]}\nstatus: {phase: Running, podIP: 1.2.3.4}"
	running := "{phase: Running, podIP: 9.9.9.9, containerStatuses: [{name: a, ready: true, restartCount: 3, image: x, imageID: img, state: {running: {startedAt: '2024-01-01T00:00:00Z'}}}], initContainerStatuses: [{name: i, ready: false, state: {terminated: {exitCode: 0}}}]}"
	runAggregate(t, []aggregateCase{{
		name:     "a nil list returns the normalized template",
		template: pod,
		items:    nil,
		status:   "{phase: Running, podIP: 1.2.3.4}",
	}, {
		name:     "Pending beats Running; an item without status is Pending",
		template: pod,
		items:    []workv1alpha2.AggregatedStatusItem{item(t, "m1", running), item(t, "m2", "")},
		status: `{phase: Pending,
			containerStatuses: [{name: '', image: '', imageID: '', ready: true, restartCount: 0, state: {running: {startedAt: '2024-01-01T00:00:00Z'}}, lastState: {}}],
			initContainerStatuses: [{name: '', image: '', imageID: '', ready: false, restartCount: 0, state: {terminated: {exitCode: 0, startedAt: null, finishedAt: null}}, lastState: {}}]}`,
	}, {
		name:     "Failed beats everything",
		template: pod,
		items:    []workv1alpha2.AggregatedStatusItem{item(t, "m1", "{phase: Succeeded}"), item(t, "m2", "{phase: Failed}"), item(t, "m3", "{phase: Pending}")},
		check:    func(t *testing.T, s string) { wantIn(t, s, `"phase":"Failed"`) },
	}, {
		name:     "Running beats Succeeded",
		template: pod,
		items:    []workv1alpha2.AggregatedStatusItem{item(t, "m1", "{phase: Succeeded}"), item(t, "m2", "{phase: Running}")},
		status:   "{phase: Running}",
	}, {
		name:     "an empty list gives an empty phase",
		template: pod,
		items:    []workv1alpha2.AggregatedStatusItem{},
		status:   "{}",
	}, {
		name:     "unchanged",
		template: "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nstatus: {phase: Succeeded}",
		items:    []workv1alpha2.AggregatedStatusItem{item(t, "m1", "{phase: Succeeded}")},
		same:     true,
	}})
}

func TestAggregatePersistentVolume(t *testing.T) {
	pv := "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv}\nstatus: {phase: Bound, message: m}"
	runAggregate(t, []aggregateCase{
		{name: "Failed first", template: pv, items: []workv1alpha2.AggregatedStatusItem{item(t, "a", "{phase: Bound}"), item(t, "b", "{phase: Failed}")}, status: "{phase: Failed}"},
		{name: "missing status is Pending", template: pv, items: []workv1alpha2.AggregatedStatusItem{item(t, "a", "{phase: Available}"), item(t, "b", "")}, status: "{phase: Pending}"},
		{name: "Available before Bound", template: pv, items: []workv1alpha2.AggregatedStatusItem{item(t, "a", "{phase: Bound}"), item(t, "b", "{phase: Available}")}, status: "{phase: Available}"},
		{name: "Bound before Released", template: pv, items: []workv1alpha2.AggregatedStatusItem{item(t, "a", "{phase: Released}"), item(t, "b", "{phase: Bound}")}, status: "{phase: Bound}"},
		{name: "Released", template: pv, items: []workv1alpha2.AggregatedStatusItem{item(t, "a", "{phase: Released}")}, status: "{phase: Released}"},
		{name: "unchanged", template: "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv}\nstatus: {phase: Bound}", items: []workv1alpha2.AggregatedStatusItem{item(t, "a", "{phase: Bound}")}, same: true},
	})
}

func TestAggregatePersistentVolumeClaim(t *testing.T) {
	pvc := "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c}\nstatus: {phase: Pending, capacity: {storage: 1Gi}}"
	runAggregate(t, []aggregateCase{
		{name: "all bound", template: pvc, items: []workv1alpha2.AggregatedStatusItem{item(t, "a", "{phase: Bound}"), item(t, "b", "{phase: Bound}")}, status: "{phase: Bound}"},
		{name: "no items is Bound", template: pvc, items: nil, status: "{phase: Bound}"},
		{name: "items without status are skipped", template: pvc, items: []workv1alpha2.AggregatedStatusItem{item(t, "a", "")}, status: "{phase: Bound}"},
		{name: "Lost wins and stops", template: pvc, items: []workv1alpha2.AggregatedStatusItem{item(t, "a", "{phase: Lost}"), item(t, "b", "{phase: Pending}")}, status: "{phase: Lost}"},
		{name: "last non-Bound wins", template: pvc, items: []workv1alpha2.AggregatedStatusItem{item(t, "a", "{phase: Pending}"), item(t, "b", "{phase: Bound}"), item(t, "c", "{phase: Modifying}")}, status: "{phase: Modifying}"},
		{name: "unchanged", template: "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c}\nstatus: {phase: Bound}", items: []workv1alpha2.AggregatedStatusItem{item(t, "a", "{phase: Bound}")}, same: true},
	})
}

func TestAggregatePodDisruptionBudget(t *testing.T) {
	runAggregate(t, []aggregateCase{{
		name:     "sums and prefixes disrupted pods with the cluster",
		template: "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: p}\nstatus: {observedGeneration: 4}",
		items: []workv1alpha2.AggregatedStatusItem{
			item(t, "m1", "{disruptionsAllowed: 1, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3, disruptedPods: {web-0: '2024-01-01T00:00:00Z'}}"),
			item(t, "m2", "{disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 2, expectedPods: 2, disruptedPods: {web-0: '2024-01-01T00:00:01Z'}}"),
		},
		status: "{disruptionsAllowed: 1, currentHealthy: 4, desiredHealthy: 4, expectedPods: 5, disruptedPods: {m1/web-0: '2024-01-01T00:00:00Z', m2/web-0: '2024-01-01T00:00:01Z'}}",
	}, {
		name:     "unchanged",
		template: "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: p}\nstatus: {disruptionsAllowed: 1, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1}",
		items:    []workv1alpha2.AggregatedStatusItem{item(t, "m1", "{disruptionsAllowed: 1, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1}")},
		same:     true,
	}})
}

func TestAggregateHorizontalPodAutoscaler(t *testing.T) {
	runAggregate(t, []aggregateCase{{
		name:     "sums current and desired replicas, replacing the status",
		template: "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: h}\nstatus: {desiredReplicas: 1, currentMetrics: [], lastScaleTime: '2024-01-01T00:00:00Z'}",
		items: []workv1alpha2.AggregatedStatusItem{
			item(t, "m1", "{currentReplicas: 2, desiredReplicas: 3}"),
			item(t, "m2", "{currentReplicas: 1, desiredReplicas: 1}"),
		},
		status: "{currentReplicas: 3, desiredReplicas: 4, currentMetrics: null}",
	}, {
		name:     "unchanged",
		template: "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: h}\nstatus: {currentReplicas: 2, desiredReplicas: 3}",
		items:    []workv1alpha2.AggregatedStatusItem{item(t, "m1", "{currentReplicas: 2, desiredReplicas: 3}")},
		same:     true,
	}})
}

// wantIn checks that s contains every fragment.
func wantIn(t *testing.T, s string, fragments ...string) {
	t.Helper()
	for _, f := range fragments {
		if !strings.Contains(s, f) {
			t.Errorf("%s\ndoes not contain %s", s, f)
		}
	}
}
