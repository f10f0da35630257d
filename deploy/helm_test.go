package deploy

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/daemon"
)

// manifest is the part of a rendered Kubernetes object the test reads.
type manifest struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Data map[string]string `yaml:"data"`
	Spec struct {
		Template struct {
			Spec struct {
				NodeSelector map[string]string `yaml:"nodeSelector"`
				Containers   []struct {
					Args           []string `yaml:"args"`
					LivenessProbe  probe    `yaml:"livenessProbe"`
					ReadinessProbe probe    `yaml:"readinessProbe"`
					Resources      struct {
						Limits map[string]any `yaml:"limits"`
					} `yaml:"resources"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
						SubPath   string `yaml:"subPath"`
					} `yaml:"volumeMounts"`
					Env []struct {
						Name  string `yaml:"name"`
						Value string `yaml:"value"`
					} `yaml:"env"`
				} `yaml:"containers"`
				Volumes []struct {
					Name                  string    `yaml:"name"`
					EmptyDir              *struct{} `yaml:"emptyDir"`
					PersistentVolumeClaim *struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type probe struct {
	HTTPGet struct {
		Path string `yaml:"path"`
	} `yaml:"httpGet"`
}

// helmTemplate renders the chart with the given extra arguments.
func helmTemplate(t *testing.T, helm string, args ...string) map[string]manifest {
	t.Helper()
	cmd := exec.Command(helm, append([]string{"template", "mw", "helm/motifwatch"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helm template %v: %v\n%s", args, err, stderr.String())
	}
	objs := map[string]manifest{}
	dec := yaml.NewDecoder(bytes.NewReader(out))
	for {
		var m manifest
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("helm template %v: output is not YAML: %v", args, err)
		}
		if m.Kind != "" {
			objs[m.Kind+"/"+m.Metadata.Name] = m
		}
	}
	return objs
}

// TestHelmChartRenders renders the chart with its default and its GPU
// values (helm on PATH; .ci/run installs it from helm.sh/helm/v3) and
// checks that the manifests carry a configuration the daemon accepts,
// query files mounted for hot reload, the health probes, and the GPU
// resources and node selector.
func TestHelmChartRenders(t *testing.T) {
	helm, err := exec.LookPath("helm")
	if err != nil {
		t.Skip("no helm binary on PATH (go install helm.sh/helm/v3/cmd/helm@v3.22.0); skipping the chart rendering test")
	}
	for _, tc := range []struct {
		name string
		args []string
		gpu  bool
	}{
		{"default", nil, false},
		{"gpu", []string{"-f", "helm/motifwatch/ci/gpu-values.yaml"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := helmTemplate(t, helm, tc.args...)
			cm, ok := objs["ConfigMap/mw-motifwatch-config"]
			qm, ok2 := objs["ConfigMap/mw-motifwatch-queries"]
			dep, ok3 := objs["Deployment/mw-motifwatch"]
			_, ok4 := objs["Service/mw-motifwatch"]
			if !ok || !ok2 || !ok3 || !ok4 {
				t.Fatalf("rendered objects %v; want the config and queries ConfigMaps, the Deployment and the Service", keys(objs))
			}
			_, sm := objs["ServiceMonitor/mw-motifwatch"]
			if sm != tc.gpu { // the GPU values also turn the ServiceMonitor on
				t.Errorf("ServiceMonitor rendered = %v; want %v", sm, tc.gpu)
			}

			// The daemon accepts the rendered configuration with the
			// rendered query files, at the paths the pod mounts them.
			dir := t.TempDir()
			for name, body := range qm.Data {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cfgYAML := strings.ReplaceAll(cm.Data["config.yaml"], "/etc/motifwatch/queries/", dir+"/")
			cfg, err := config.Parse([]byte(cfgYAML), "rendered config.yaml")
			if err != nil {
				t.Fatalf("the daemon rejects the rendered config: %v\n%s", err, cm.Data["config.yaml"])
			}
			if !tc.gpu { // the GPU values name Secrets and CA files that exist only in a cluster
				if _, _, err := daemon.Check(cfg); err != nil {
					t.Errorf("rendered config: %v", err)
				}
			}
			if cfg.Metrics.Listen != "0.0.0.0:9464" {
				t.Errorf("metrics.listen = %q; want 0.0.0.0:9464", cfg.Metrics.Listen)
			}
			// values.config.metrics passes through beside the listen
			// address the chart sets (it used to replace the section).
			if !strings.Contains(cm.Data["config.yaml"], "max_connections: 256") || cfg.Metrics.MaxConnections != 256 || cfg.Metrics.IdleTimeout != time.Minute {
				t.Errorf("metrics = %+v; want values.yaml's max_connections and idle_timeout\n%s", cfg.Metrics, cm.Data["config.yaml"])
			}

			spec := dep.Spec.Template.Spec
			if len(spec.Containers) != 1 {
				t.Fatalf("%d containers; want 1", len(spec.Containers))
			}
			c := spec.Containers[0]
			if got := strings.Join(c.Args, " "); got != "run --config /etc/motifwatch/config/config.yaml" {
				t.Errorf("args = %q", got)
			}
			if c.LivenessProbe.HTTPGet.Path != "/healthz" || c.ReadinessProbe.HTTPGet.Path != "/readyz" {
				t.Errorf("probes: liveness %q, readiness %q; want /healthz, /readyz", c.LivenessProbe.HTTPGet.Path, c.ReadinessProbe.HTTPGet.Path)
			}
			if c.Resources.Limits["memory"] == nil {
				t.Errorf("no memory limit: %v", c.Resources.Limits)
			}
			mounted := false
			for _, m := range c.VolumeMounts {
				if m.Name == "queries" {
					mounted = m.MountPath == "/etc/motifwatch/queries" && m.SubPath == ""
				}
			}
			if !mounted {
				t.Errorf("query ConfigMap not mounted as a directory at /etc/motifwatch/queries (a subPath mount never updates): %+v", c.VolumeMounts)
			}
			gpus, hasGPU := c.Resources.Limits["nvidia.com/gpu"]
			if hasGPU != tc.gpu || (tc.gpu && gpus != 1) {
				t.Errorf("limits nvidia.com/gpu = %v (set %v); want set %v", gpus, hasGPU, tc.gpu)
			}
			if _, sel := spec.NodeSelector["nvidia.com/gpu.present"]; sel != tc.gpu {
				t.Errorf("nodeSelector = %v; GPU selector wanted: %v", spec.NodeSelector, tc.gpu)
			}
			// On GPU nodes the driver's kernel cache is on a writable
			// volume (the root filesystem is read-only), named by
			// CUDA_CACHE_PATH.
			cachePath := ""
			for _, e := range c.Env {
				if e.Name == "CUDA_CACHE_PATH" {
					cachePath = e.Value
				}
			}
			cacheMounted := false
			for _, m := range c.VolumeMounts {
				if m.Name == "cuda-jit-cache" {
					cacheMounted = m.MountPath == cachePath && cachePath != ""
				}
			}
			if cacheMounted != tc.gpu {
				t.Errorf("CUDA kernel cache: env CUDA_CACHE_PATH = %q, mounts %+v; want a volume there: %v", cachePath, c.VolumeMounts, tc.gpu)
			}
			for _, v := range spec.Volumes {
				if v.Name == "cuda-jit-cache" && v.EmptyDir == nil {
					t.Errorf("cuda-jit-cache volume is not an emptyDir by default: %+v", v)
				}
			}
		})
	}
}

// TestHelmChartJITCacheClaim: gpu.jitCache.existingClaim puts the kernel
// cache on that PersistentVolumeClaim, so new pods start with it.
func TestHelmChartJITCacheClaim(t *testing.T) {
	helm, err := exec.LookPath("helm")
	if err != nil {
		t.Skip("no helm binary on PATH (go install helm.sh/helm/v3/cmd/helm@v3.22.0); skipping the chart rendering test")
	}
	objs := helmTemplate(t, helm, "-f", "helm/motifwatch/ci/gpu-values.yaml", "--set", "gpu.jitCache.existingClaim=mw-cuda-cache")
	for _, v := range objs["Deployment/mw-motifwatch"].Spec.Template.Spec.Volumes {
		if v.Name == "cuda-jit-cache" {
			if v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != "mw-cuda-cache" || v.EmptyDir != nil {
				t.Fatalf("cuda-jit-cache volume %+v; want the claim mw-cuda-cache", v)
			}
			return
		}
	}
	t.Fatal("no cuda-jit-cache volume rendered with gpu.enabled")
}

func keys(m map[string]manifest) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}
