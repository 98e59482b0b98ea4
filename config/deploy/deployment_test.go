// Package deploy holds the host-cluster manifests of config/deploy; this
// test checks them against what Karmada's installers create.
package deploy

import (
	"os"
	"path"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

// TestDeploymentMountsInstallerKubeconfig: the Deployment reads the
// kubeconfig Secret karmadactl init and Karmada's plain manifests create
// for karmada-controller-manager (name, key, mount path), at the path its
// --kubeconfig names, and elects on Karmada's Lease namespace.
func TestDeploymentMountsInstallerKubeconfig(t *testing.T) {
	data, err := os.ReadFile("deployment.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d := &appsv1.Deployment{}
	if err := yaml.UnmarshalStrict(data, d); err != nil {
		t.Fatalf("deployment.yaml: %v", err)
	}
	spec := d.Spec.Template.Spec
	if len(spec.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(spec.Containers))
	}
	c := spec.Containers[0]
	args := map[string]string{}
	for _, a := range c.Args {
		k, v, _ := strings.Cut(a, "=")
		args[k] = v
	}
	if args["--leader-elect-resource-namespace"] != "karmada-system" || args["--leader-elect"] != "true" {
		t.Errorf("leader election %q in %q, want true in karmada-system", args["--leader-elect"], args["--leader-elect-resource-namespace"])
	}
	kubeconfig := args["--kubeconfig"]
	found := false
	for _, m := range c.VolumeMounts {
		if m.MountPath != path.Dir(kubeconfig) {
			continue
		}
		for _, v := range spec.Volumes {
			if v.Name != m.Name || v.Secret == nil {
				continue
			}
			found = true
			if v.Secret.SecretName != "karmada-controller-manager-config" || len(v.Secret.Items) != 0 || path.Base(kubeconfig) != "karmada.config" {
				t.Errorf("--kubeconfig=%s from Secret %s (items %v), want key karmada.config of karmada-controller-manager-config",
					kubeconfig, v.Secret.SecretName, v.Secret.Items)
			}
		}
	}
	if !found {
		t.Errorf("--kubeconfig=%s is not in a mounted Secret", kubeconfig)
	}
}
