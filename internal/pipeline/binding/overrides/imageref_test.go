package overrides

import (
	"strings"
	"testing"

	policyv1alpha1 "github.com/propel-mc/propel/pkg/apis/policy/v1alpha1"
)

const digest = "sha256:3aad9d48b6a8d1f0e1c7f8a8e3ff9e7f5b5c2f0d2ba1b2c3d4e5f60718293a4b"

func TestParseImage(t *testing.T) {
	cases := []struct {
		image                   string
		host, repo, tag, digest string
		wantErr                 string
	}{
		{image: "nginx", repo: "nginx"},
		{image: "nginx:1.25", repo: "nginx", tag: "1.25"},
		{image: "library/nginx", repo: "library/nginx"},
		{image: "docker.io/library/nginx:latest", host: "docker.io", repo: "library/nginx", tag: "latest"},
		{image: "localhost/nginx", host: "localhost", repo: "nginx"},
		{image: "localhost:5000/a/b:v1", host: "localhost:5000", repo: "a/b", tag: "v1"},
		{image: "registry:5000/nginx", host: "registry:5000", repo: "nginx"},
		{image: "[::1]:5000/nginx", host: "[::1]:5000", repo: "nginx"},
		{image: "nginx@" + digest, repo: "nginx", digest: digest},
		{image: "k8s.gcr.io/pause:3.9@" + digest, host: "k8s.gcr.io", repo: "pause", tag: "3.9", digest: digest},
		{image: "", wantErr: "at least one component"},
		{image: "Nginx", wantErr: "must be lowercase"},
		{image: "nginx:", wantErr: "invalid reference format"},
		{image: "nginx@sha256:abc", wantErr: "invalid reference format"},
		{image: "nginx@md5:" + strings.Repeat("a", 32), wantErr: "unsupported digest algorithm"},
		{image: "nginx@sha256:" + strings.Repeat("a", 40), wantErr: "invalid checksum digest length"},
		{image: "nginx@sha256:" + strings.Repeat("A", 64), wantErr: "invalid checksum digest format"},
		{image: strings.Repeat("a", 256), wantErr: "not be more than 255"},
	}
	for _, c := range cases {
		ref, err := parseImage(c.image)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("parseImage(%q) error = %v, want %q", c.image, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseImage(%q): %v", c.image, err)
			continue
		}
		if ref.hostname != c.host || ref.repository != c.repo || ref.tag != c.tag || ref.digest != c.digest {
			t.Errorf("parseImage(%q) = %+v, want host %q repo %q tag %q digest %q", c.image, *ref, c.host, c.repo, c.tag, c.digest)
		}
	}
}

func TestOverrideImage(t *testing.T) {
	cases := []struct {
		image     string
		component policyv1alpha1.ImageComponent
		op        policyv1alpha1.OverriderOperator
		value     string
		want      string
	}{
		{"nginx:1.0", policyv1alpha1.Registry, "add", "registry.k8s.io", "registry.k8s.io/nginx:1.0"},
		{"docker.io/nginx:1.0", policyv1alpha1.Registry, "add", "-cn", "docker.io-cn/nginx:1.0"},
		{"docker.io/nginx:1.0", policyv1alpha1.Registry, "replace", "quay.io", "quay.io/nginx:1.0"},
		{"docker.io/nginx:1.0", policyv1alpha1.Registry, "remove", "", "nginx:1.0"},
		{"docker.io/library/nginx", policyv1alpha1.Repository, "add", "-mirror", "docker.io/library/nginx-mirror"},
		{"docker.io/library/nginx", policyv1alpha1.Repository, "replace", "team/web", "docker.io/team/web"},
		{"docker.io/library/nginx:1", policyv1alpha1.Repository, "remove", "", "docker.io/:1"},
		{"nginx:1.0", policyv1alpha1.Tag, "add", "-alpine", "nginx:1.0-alpine"},
		{"nginx", policyv1alpha1.Tag, "add", "v2", "nginx:v2"},
		{"nginx:1.0", policyv1alpha1.Tag, "replace", "2.0", "nginx:2.0"},
		{"nginx:1.0", policyv1alpha1.Tag, "replace", digest, "nginx@" + digest},
		{"nginx@" + digest, policyv1alpha1.Tag, "replace", "v3", "nginx:v3"},
		{"nginx:1.0", policyv1alpha1.Tag, "replace", "bad tag!", "nginx:1.0"},
		{"nginx:1.0", policyv1alpha1.Tag, "replace", "", "nginx:1.0"},
		{"nginx:1.0", policyv1alpha1.Tag, "remove", "", "nginx"},
		{"nginx@" + digest, policyv1alpha1.Tag, "remove", "", "nginx"},
		// With both, the tag wins when serialising and is removed first.
		{"nginx:1.0@" + digest, policyv1alpha1.Registry, "replace", "r.io", "r.io/nginx:1.0"},
		{"nginx:1.0@" + digest, policyv1alpha1.Tag, "remove", "", "nginx@" + digest},
	}
	for _, c := range cases {
		got, err := overrideImage(c.image, &policyv1alpha1.ImageOverrider{Component: c.component, Operator: c.op, Value: c.value})
		if err != nil || got != c.want {
			t.Errorf("%s %s %q on %q = %q, %v; want %q", c.component, c.op, c.value, c.image, got, err, c.want)
		}
	}
	if _, err := overrideImage("nginx", &policyv1alpha1.ImageOverrider{Component: "Name", Operator: "add"}); err == nil {
		t.Error("unknown component accepted")
	}
}
