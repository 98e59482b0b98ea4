package localenv

import (
	_ "embed"
	"os"
	"path/filepath"
	"strings"
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

// podStagesTemplate holds the pod stages given to every member's kwok. The
// selectors are jq queries; the templates are Go templates with sprig's
// functions (hasPrefix, toJson) and kwok's own (Now, Quote, NodeIPWith,
// PodIPWith). A pod whose containers run gets its pod IP in one step; the
// selectors "no pod IP yet" keep each of those stages from running twice.
//
//go:embed podstages.yaml
var podStagesTemplate string

// kwokPodStages are podStagesTemplate with the constants above filled in.
var kwokPodStages = strings.NewReplacer(
	"${UNPULLABLE_QUERY}", unpullableQuery,
	"${UNPULLABLE_PREFIX}", UnpullableImagePrefix,
	"${ERR_IMAGE_PULL}", ReasonErrImagePull,
	"${IMAGE_PULL_BACKOFF}", ReasonImagePullBackOff,
).Replace(podStagesTemplate)

// writeKwokPodStages writes kwokPodStages for the member's kwok and
// returns its argument.
func (m *Member) writeKwokPodStages(dir string) (string, error) {
	path := filepath.Join(dir, m.Options.Name+"-kwok-pod-stages.yaml")
	if err := os.WriteFile(path, []byte(kwokPodStages), 0o600); err != nil {
		return "", err
	}
	return "--config=" + path, nil
}
