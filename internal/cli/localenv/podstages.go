package localenv

import (
	"os"
	"path/filepath"
)

// Member pods: kwok plays a pod's lifecycle through Stages. Its default
// stages make every pod Running and Ready whatever its image, so a spec
// that makes an application unhealthy by pointing it at an image that
// cannot be pulled (Karmada's failover specs replace the registry with
// "fake") would see it stay healthy. kwokPodStages replace the defaults:
// a container whose image is under UnpullableImagePrefix waits as a
// kubelet's would (ErrImagePull, then ImagePullBackOff) and its pod stays
// Pending and not Ready; every other pod runs and is Ready as before, a
// Job's pod completes, and a deleted pod goes away.

// UnpullableImagePrefix marks the images a member cannot pull: those of
// the registry "fake", as in Karmada's e2e specs ("fake/nginx:1.19.0").
const UnpullableImagePrefix = "fake/"

// Container waiting reasons of an image that cannot be pulled, as the
// kubelet reports them.
const (
	ReasonErrImagePull     = "ErrImagePull"
	ReasonImagePullBackOff = "ImagePullBackOff"
)

// unpullableQuery is true for a pod with a container whose image is
// unpullable; the pod stages select on it. (Init containers are not
// looked at: Karmada's specs change the application's containers.)
const unpullableQuery = `[.spec.containers[].image | startswith("` + UnpullableImagePrefix + `")] | any`

// kwokPodStages are the pod stages given to every member's kwok. The
// selectors are jq queries; the templates are Go templates with sprig's
// functions (hasPrefix, toJson) and kwok's own (Now, Quote, NodeIPWith,
// PodIPWith). A pod whose containers run gets its pod IP in one step; the
// selectors "no pod IP yet" keep each of those stages from running twice.
const kwokPodStages = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-ready
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - jq: {key: .metadata.deletionTimestamp, operator: DoesNotExist}
    - jq: {key: .status.podIP, operator: DoesNotExist}
    - jq: {key: '` + unpullableQuery + `', operator: NotIn, values: ["true"]}
  next:
    patches:
    - subresource: status
      root: status
      template: |
        {{ $now := Now }}
        phase: Running
        startTime: {{ $now | Quote }}
        hostIP: {{ NodeIPWith .spec.nodeName | Quote }}
        podIP: {{ PodIPWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) | Quote }}
        conditions:
        - {type: Initialized, status: "True", lastTransitionTime: {{ $now | Quote }}}
        - {type: ContainersReady, status: "True", lastTransitionTime: {{ $now | Quote }}}
        - {type: Ready, status: "True", lastTransitionTime: {{ $now | Quote }}}
        {{ range .spec.readinessGates }}
        - {type: {{ .conditionType | Quote }}, status: "True", lastTransitionTime: {{ $now | Quote }}}
        {{ end }}
        containerStatuses:
        {{ range .spec.containers }}
        - name: {{ .name | Quote }}
          image: {{ .image | Quote }}
          ready: true
          started: true
          restartCount: 0
          state: {running: {startedAt: {{ $now | Quote }}}}
        {{ end }}
        initContainerStatuses:
        {{ range .spec.initContainers }}
        - name: {{ .name | Quote }}
          image: {{ .image | Quote }}
          ready: true
          restartCount: 0
          {{ if eq .restartPolicy "Always" }}
          started: true
          state: {running: {startedAt: {{ $now | Quote }}}}
          {{ else }}
          state: {terminated: {exitCode: 0, reason: Completed, startedAt: {{ $now | Quote }}, finishedAt: {{ $now | Quote }}}}
          {{ end }}
        {{ end }}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-image-pull-failed
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - jq: {key: .metadata.deletionTimestamp, operator: DoesNotExist}
    - jq: {key: .status.podIP, operator: DoesNotExist}
    - jq: {key: '` + unpullableQuery + `', operator: In, values: ["true"]}
  next:
    patches:
    - subresource: status
      root: status
      template: |
        {{ $now := Now }}
        phase: Pending
        startTime: {{ $now | Quote }}
        hostIP: {{ NodeIPWith .spec.nodeName | Quote }}
        podIP: {{ PodIPWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) | Quote }}
        conditions:
        - {type: Initialized, status: "True", lastTransitionTime: {{ $now | Quote }}}
        - {type: ContainersReady, status: "False", reason: ContainersNotReady, lastTransitionTime: {{ $now | Quote }}}
        - {type: Ready, status: "False", reason: ContainersNotReady, lastTransitionTime: {{ $now | Quote }}}
        containerStatuses:
        {{ range .spec.containers }}
        - name: {{ .name | Quote }}
          image: {{ .image | Quote }}
          restartCount: 0
          {{ if .image | hasPrefix "` + UnpullableImagePrefix + `" }}
          ready: false
          started: false
          state: {waiting: {reason: ` + ReasonErrImagePull + `, message: {{ printf "failed to pull image %q: its registry cannot be reached" .image | Quote }}}}
          {{ else }}
          ready: true
          started: true
          state: {running: {startedAt: {{ $now | Quote }}}}
          {{ end }}
        {{ end }}
        initContainerStatuses:
        {{ range .spec.initContainers }}
        - name: {{ .name | Quote }}
          image: {{ .image | Quote }}
          ready: true
          restartCount: 0
          state: {terminated: {exitCode: 0, reason: Completed, startedAt: {{ $now | Quote }}, finishedAt: {{ $now | Quote }}}}
        {{ end }}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-image-pull-backoff
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - jq: {key: .metadata.deletionTimestamp, operator: DoesNotExist}
    - jq: {key: '.status.containerStatuses[].state.waiting.reason', operator: In, values: ["` + ReasonErrImagePull + `"]}
  delay: {durationMilliseconds: 1000}
  next:
    patches:
    - subresource: status
      root: status
      template: |
        containerStatuses:
        {{ range .status.containerStatuses }}
        {{ if and .state.waiting (eq .state.waiting.reason "` + ReasonErrImagePull + `") }}
        - name: {{ .name | Quote }}
          image: {{ .image | Quote }}
          ready: false
          started: false
          restartCount: 0
          state: {waiting: {reason: ` + ReasonImagePullBackOff + `, message: {{ printf "Back-off pulling image %q" .image | Quote }}}}
        {{ else }}
        - {{ toJson . }}
        {{ end }}
        {{ end }}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-complete
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - jq: {key: .metadata.deletionTimestamp, operator: DoesNotExist}
    - jq: {key: .status.phase, operator: In, values: [Running]}
    - jq: {key: '.metadata.ownerReferences[].kind', operator: In, values: [Job]}
  next:
    patches:
    - subresource: status
      root: status
      template: |
        {{ $now := Now }}
        phase: Succeeded
        containerStatuses:
        {{ range .spec.containers }}
        - name: {{ .name | Quote }}
          image: {{ .image | Quote }}
          ready: false
          started: false
          restartCount: 0
          state: {terminated: {exitCode: 0, reason: Completed, startedAt: {{ $now | Quote }}, finishedAt: {{ $now | Quote }}}}
        {{ end }}
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-delete
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - jq: {key: .metadata.deletionTimestamp, operator: Exists}
  next:
    finalizers: {empty: true}
    delete: true
`

// writeKwokPodStages writes kwokPodStages for the member's kwok and
// returns its argument.
func (m *Member) writeKwokPodStages(dir string) (string, error) {
	path := filepath.Join(dir, m.Options.Name+"-kwok-pod-stages.yaml")
	if err := os.WriteFile(path, []byte(kwokPodStages), 0o600); err != nil {
		return "", err
	}
	return "--config=" + path, nil
}
