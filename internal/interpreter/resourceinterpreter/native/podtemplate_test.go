package native

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	configv1alpha1 "github.com/propel-mc/propel/pkg/apis/config/v1alpha1"
	workv1alpha2 "github.com/propel-mc/propel/pkg/apis/work/v1alpha2"
)

// rl builds a ResourceList from name/quantity pairs.
func rl(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

// quantities renders a ResourceList as name -> canonical string.
func quantities(l corev1.ResourceList) map[string]string {
	if l == nil {
		return nil
	}
	out := map[string]string{}
	for name, q := range l {
		out[string(name)] = q.String()
	}
	return out
}

func container(name string, requests, limits corev1.ResourceList) corev1.Container {
	return corev1.Container{Name: name, Resources: corev1.ResourceRequirements{Requests: requests, Limits: limits}}
}

func TestAccuratePodRequirementsResources(t *testing.T) {
	tests := []struct {
		name string
		spec corev1.PodSpec
		want map[string]string
	}{{
		name: "no containers",
		spec: corev1.PodSpec{},
		want: nil,
	}, {
		name: "containers are summed",
		spec: corev1.PodSpec{Containers: []corev1.Container{
			container("a", rl("cpu", "100m", "memory", "64Mi"), nil),
			container("b", rl("cpu", "200m", "memory", "64Mi"), nil),
		}},
		want: map[string]string{"cpu": "300m", "memory": "128Mi"},
	}, {
		name: "limits stand in for missing requests only",
		spec: corev1.PodSpec{Containers: []corev1.Container{
			container("a", rl("cpu", "100m"), rl("cpu", "2", "memory", "1Gi")),
		}},
		want: map[string]string{"cpu": "100m", "memory": "1Gi"},
	}, {
		name: "init containers take the per-resource maximum",
		spec: corev1.PodSpec{
			Containers: []corev1.Container{
				container("a", rl("cpu", "100m", "memory", "64Mi"), nil),
				container("b", rl("cpu", "200m", "memory", "64Mi"), nil),
			},
			InitContainers: []corev1.Container{
				container("i1", rl("cpu", "1"), rl("memory", "32Mi")),
				container("i2", rl("cpu", "500m", "ephemeral-storage", "1Gi"), nil),
			},
		},
		want: map[string]string{"cpu": "1", "memory": "128Mi", "ephemeral-storage": "1Gi"},
	}, {
		name: "overhead is added after the init maximum",
		spec: corev1.PodSpec{
			Containers:     []corev1.Container{container("a", rl("cpu", "100m"), nil)},
			InitContainers: []corev1.Container{container("i", rl("cpu", "1"), nil)},
			Overhead:       rl("cpu", "250m", "memory", "120Mi"),
		},
		want: map[string]string{"cpu": "1250m", "memory": "120Mi"},
	}, {
		name: "scalar resources tracked, unprefixed unknown names ignored",
		spec: corev1.PodSpec{Containers: []corev1.Container{
			container("a", rl("nvidia.com/gpu", "2", "hugepages-2Mi", "4Mi", "pods", "1",
				"foo", "3", "requests.example.com/x", "1", "attachable-volumes-aws-ebs", "1",
				"kubernetes.io/batch-cpu", "5"), nil),
			container("b", rl("nvidia.com/gpu", "1"), nil),
		}, InitContainers: []corev1.Container{
			container("i1", rl("nvidia.com/gpu", "4", "hugepages-2Mi", "2Mi"), nil),
			container("i2", rl("example.com/fpga", "1", "foo", "9"), nil),
		}},
		want: map[string]string{"nvidia.com/gpu": "4", "example.com/fpga": "1", "hugepages-2Mi": "4Mi", "pods": "1",
			"attachable-volumes-aws-ebs": "1", "kubernetes.io/batch-cpu": "5"},
	}, {
		name: "non-cpu values round up to whole units, cpu to milli-units",
		spec: corev1.PodSpec{Containers: []corev1.Container{
			container("a", rl("cpu", "0.1m", "memory", "100m"), nil),
		}},
		want: map[string]string{"cpu": "1m", "memory": "1"},
	}, {
		name: "zero requests give no list",
		spec: corev1.PodSpec{Containers: []corev1.Container{container("a", rl("cpu", "0"), nil)}},
		want: nil,
	}, {
		name: "restartable sidecar init containers get no special treatment",
		spec: corev1.PodSpec{
			Containers: []corev1.Container{container("a", rl("cpu", "100m"), nil)},
			InitContainers: []corev1.Container{func() corev1.Container {
				c := container("sidecar", rl("cpu", "50m"), nil)
				always := corev1.ContainerRestartPolicyAlways
				c.RestartPolicy = &always
				return c
			}()},
		},
		want: map[string]string{"cpu": "100m"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AccuratePodRequirements(&corev1.PodTemplateSpec{Spec: tt.spec})
			if tt.want == nil {
				if got != nil {
					t.Fatalf("got %+v, want nil", got)
				}
				return
			}
			if got == nil {
				t.Fatalf("got nil, want %v", tt.want)
			}
			if g := quantities(got.ResourceRequest); !reflect.DeepEqual(g, tt.want) {
				t.Fatalf("resourceRequest = %v, want %v", g, tt.want)
			}
			if got.NodeClaim != nil || got.Namespace != "" || got.PriorityClassName != "" {
				t.Fatalf("unexpected fields in %+v", got)
			}
		})
	}
}

func TestAccuratePodRequirementsNodeClaim(t *testing.T) {
	tolerations := []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists}}
	required := &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
		MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a"}}},
	}}}
	tests := []struct {
		name string
		spec corev1.PodSpec
		want *workv1alpha2.NodeClaim
	}{{
		name: "empty nodeSelector map still claims",
		spec: corev1.PodSpec{NodeSelector: map[string]string{}},
		want: &workv1alpha2.NodeClaim{NodeSelector: map[string]string{}},
	}, {
		name: "tolerations only",
		spec: corev1.PodSpec{Tolerations: tolerations},
		want: &workv1alpha2.NodeClaim{Tolerations: tolerations},
	}, {
		name: "empty tolerations do not claim",
		spec: corev1.PodSpec{Tolerations: []corev1.Toleration{}},
		want: nil,
	}, {
		name: "required node affinity only; preferred ignored",
		spec: corev1.PodSpec{
			PriorityClassName: "high",
			Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution:  required,
				PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{Weight: 1}},
			}},
		},
		want: &workv1alpha2.NodeClaim{HardNodeAffinity: required},
	}, {
		name: "affinity without required terms does not claim",
		spec: corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{}}},
		want: nil,
	}, {
		name: "all three",
		spec: corev1.PodSpec{
			NodeSelector: map[string]string{"disk": "ssd"},
			Tolerations:  tolerations,
			Affinity:     &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: required}},
		},
		want: &workv1alpha2.NodeClaim{NodeSelector: map[string]string{"disk": "ssd"}, Tolerations: tolerations, HardNodeAffinity: required},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := AccuratePodRequirements(&corev1.PodTemplateSpec{Spec: tt.spec})
			if tt.want == nil {
				if got != nil {
					t.Fatalf("got %+v, want nil", got)
				}
				return
			}
			if got == nil || !reflect.DeepEqual(got.NodeClaim, tt.want) {
				t.Fatalf("nodeClaim = %+v, want %+v", got, tt.want)
			}
			if got.ResourceRequest != nil || got.PriorityClassName != "" {
				t.Fatalf("unexpected fields in %+v", got)
			}
		})
	}
	if AccuratePodRequirements(nil) != nil {
		t.Fatal("nil template must give nil")
	}
}

func ref(kind, ns, name string) configv1alpha1.DependentObjectReference {
	return configv1alpha1.DependentObjectReference{APIVersion: "v1", Kind: kind, Namespace: ns, Name: name}
}

func TestPodDependencies(t *testing.T) {
	cmKey := func(name string) *corev1.EnvVarSource {
		return &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: name}}}
	}
	secretKey := func(name string) *corev1.EnvVarSource {
		return &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: name}}}
	}
	local := func(name string) *corev1.LocalObjectReference { return &corev1.LocalObjectReference{Name: name} }
	spec := corev1.PodSpec{
		ServiceAccountName: "runner",
		ImagePullSecrets:   []corev1.LocalObjectReference{{Name: "registry"}, {Name: ""}},
		InitContainers: []corev1.Container{{Name: "init",
			EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: *local("init-cm")}}},
		}},
		Containers: []corev1.Container{{Name: "app",
			EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: *local("env-secret")}}},
			Env: []corev1.EnvVar{
				{Name: "A", ValueFrom: cmKey("app-cm")},
				{Name: "B", ValueFrom: secretKey("key-secret")},
				{Name: "C", ValueFrom: cmKey("app-cm")}, // duplicate
				{Name: "D", Value: "plain"},
			},
		}},
		EphemeralContainers: []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
			Name: "debug", Env: []corev1.EnvVar{{Name: "E", ValueFrom: cmKey("debug-cm")}},
		}}},
		Volumes: []corev1.Volume{
			{Name: "v1", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: *local("vol-cm")}}},
			{Name: "v2", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "vol-secret"}}},
			{Name: "v3", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: *local("proj-cm")}},
				{Secret: &corev1.SecretProjection{LocalObjectReference: *local("proj-secret")}},
				{DownwardAPI: &corev1.DownwardAPIProjection{}},
				{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}},
			}}}},
			{Name: "v4", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}},
			{Name: "v5", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: ""}}},
			{Name: "v6", VolumeSource: corev1.VolumeSource{AzureFile: &corev1.AzureFileVolumeSource{SecretName: "azure"}}},
			{Name: "v7", VolumeSource: corev1.VolumeSource{CephFS: &corev1.CephFSVolumeSource{SecretRef: local("ceph")}}},
			{Name: "v8", VolumeSource: corev1.VolumeSource{Cinder: &corev1.CinderVolumeSource{SecretRef: local("cinder")}}},
			{Name: "v9", VolumeSource: corev1.VolumeSource{FlexVolume: &corev1.FlexVolumeSource{SecretRef: local("flex")}}},
			{Name: "v10", VolumeSource: corev1.VolumeSource{RBD: &corev1.RBDVolumeSource{SecretRef: local("rbd")}}},
			{Name: "v11", VolumeSource: corev1.VolumeSource{ScaleIO: &corev1.ScaleIOVolumeSource{SecretRef: local("scaleio")}}},
			{Name: "v12", VolumeSource: corev1.VolumeSource{ISCSI: &corev1.ISCSIVolumeSource{SecretRef: local("iscsi")}}},
			{Name: "v13", VolumeSource: corev1.VolumeSource{StorageOS: &corev1.StorageOSVolumeSource{SecretRef: local("storageos")}}},
			{Name: "v14", VolumeSource: corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{NodePublishSecretRef: local("csi")}}},
			{Name: "v15", VolumeSource: corev1.VolumeSource{CephFS: &corev1.CephFSVolumeSource{}}},
		},
	}
	ns := "apps"
	want := []configv1alpha1.DependentObjectReference{
		ref("ConfigMap", ns, "app-cm"), ref("ConfigMap", ns, "debug-cm"), ref("ConfigMap", ns, "init-cm"),
		ref("ConfigMap", ns, "proj-cm"), ref("ConfigMap", ns, "vol-cm"),
		ref("Secret", ns, "azure"), ref("Secret", ns, "ceph"), ref("Secret", ns, "cinder"), ref("Secret", ns, "csi"),
		ref("Secret", ns, "env-secret"), ref("Secret", ns, "flex"), ref("Secret", ns, "iscsi"), ref("Secret", ns, "key-secret"),
		ref("Secret", ns, "proj-secret"), ref("Secret", ns, "rbd"), ref("Secret", ns, "registry"), ref("Secret", ns, "scaleio"),
		ref("Secret", ns, "storageos"), ref("Secret", ns, "vol-secret"),
		ref("ServiceAccount", ns, "runner"),
		ref("PersistentVolumeClaim", ns, "data"),
	}
	got := PodDependencies(&corev1.PodTemplateSpec{Spec: spec}, ns)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("PodDependencies:\n got %v\nwant %v", got, want)
	}

	for _, sa := range []string{"", "default"} {
		if got := PodDependencies(&corev1.PodTemplateSpec{Spec: corev1.PodSpec{ServiceAccountName: sa}}, ""); got != nil {
			t.Fatalf("serviceAccountName %q: got %v, want nil", sa, got)
		}
	}
	// The deprecated serviceAccount field is ignored; an empty namespace stays empty.
	got = PodDependencies(&corev1.PodTemplateSpec{Spec: corev1.PodSpec{DeprecatedServiceAccount: "old",
		Containers: []corev1.Container{{Name: "c", Env: []corev1.EnvVar{{Name: "x", ValueFrom: cmKey("cm")}}}}}}, "")
	if want := []configv1alpha1.DependentObjectReference{ref("ConfigMap", "", "cm")}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if PodDependencies(nil, "ns") != nil {
		t.Fatal("nil template must give nil")
	}
}
