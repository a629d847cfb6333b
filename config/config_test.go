// Package config_test checks the kustomize bases of the example controllers
// (config/<example>): what `kubectl apply -k config/<example>` would apply is
// accepted by a real API server with strict field validation, each
// Deployment meets the restricted Pod Security profile, and each example
// (and the tour) plays its demo as its ServiceAccount with the base's RBAC
// alone (leastpriv_test.go).
//
// The bases use only a kustomization's resources (files below it, and
// folders with a kustomization of their own), so the test reads the same
// objects kustomize would emit without running kustomize.
package config_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

func TestMain(m *testing.M) {
	testenv.Main(m)
}

// bases are the example controllers' kustomize bases.
func bases(t *testing.T) []string {
	t.Helper()
	found, err := filepath.Glob("*/kustomization.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range found {
		names = append(names, filepath.Dir(f))
	}
	if len(names) == 0 {
		t.Fatal("no kustomize base in config/")
	}
	return names
}

// build returns the objects of the kustomization in dir, in kustomize's
// order of resources. It fails on any field of a kustomization but
// resources, which the test would not apply as kustomize does, on a file
// outside dir (kustomize's load restrictor refuses it), and on a manifest
// in a kustomization's folder that it does not list.
func build(dir string) ([]*unstructured.Unstructured, error) {
	k := map[string]any{}
	b, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		return nil, err
	}
	if err := utilyaml.Unmarshal(b, &k); err != nil {
		return nil, fmt.Errorf("cannot parse %s/kustomization.yaml: %w", dir, err)
	}
	for key := range k {
		if key != "apiVersion" && key != "kind" && key != "resources" {
			return nil, fmt.Errorf("%s/kustomization.yaml: field %s: this test reads only resources", dir, key)
		}
	}
	if k["apiVersion"] != "kustomize.config.k8s.io/v1beta1" || k["kind"] != "Kustomization" {
		return nil, fmt.Errorf("%s/kustomization.yaml is no kustomize.config.k8s.io/v1beta1 Kustomization", dir)
	}
	listed := map[string]bool{}
	var objs []*unstructured.Unstructured
	resources, _ := k["resources"].([]any)
	for _, r := range resources {
		name, _ := r.(string)
		p := filepath.Join(dir, name)
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("%s/kustomization.yaml: resource %q: %w", dir, name, err)
		}
		if fi.IsDir() {
			sub, err := build(p)
			if err != nil {
				return nil, err
			}
			objs = append(objs, sub...)
			continue
		}
		if rel, err := filepath.Rel(dir, p); err != nil || strings.HasPrefix(rel, "..") {
			return nil, fmt.Errorf("%s/kustomization.yaml: resource %q is a file outside the kustomization's folder, which kustomize refuses", dir, name)
		}
		listed[filepath.Clean(p)] = true
		fo, err := decode(p)
		if err != nil {
			return nil, err
		}
		objs = append(objs, fo...)
	}
	manifests, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	for _, m := range manifests {
		if filepath.Base(m) != "kustomization.yaml" && !listed[filepath.Clean(m)] {
			return nil, fmt.Errorf("%s/kustomization.yaml does not list %s", dir, filepath.Base(m))
		}
	}
	return objs, nil
}

// decode returns the objects of a YAML stream.
func decode(file string) ([]*unstructured.Unstructured, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var objs []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
			return objs, nil
		} else if err != nil {
			return nil, fmt.Errorf("cannot parse %s: %w", file, err)
		}
		if u.Object == nil {
			continue
		}
		if u.GetKind() == "" || u.GetName() == "" {
			return nil, fmt.Errorf("%s: an object without kind or name", file)
		}
		objs = append(objs, u)
	}
}

// TestBasesRefer checks what no API server checks: every binding's subject
// and role, and the Deployment's ServiceAccount, are in the same base; the
// metrics Service selects the Deployment's pods; the namespace enforces the
// restricted Pod Security profile.
func TestBasesRefer(t *testing.T) {
	for _, base := range bases(t) {
		t.Run(base, func(t *testing.T) {
			objs, err := build(base)
			if err != nil {
				t.Fatal(err)
			}
			has := map[string]bool{}
			for _, o := range objs {
				has[o.GetKind()+" "+o.GetNamespace()+"/"+o.GetName()] = true
			}
			var deployments, services int
			for _, o := range objs {
				switch o.GetKind() {
				case "ClusterRoleBinding", "RoleBinding":
					kind, _, _ := unstructured.NestedString(o.Object, "roleRef", "kind")
					name, _, _ := unstructured.NestedString(o.Object, "roleRef", "name")
					ns := o.GetNamespace()
					if kind == "ClusterRole" {
						ns = ""
					}
					if !has[kind+" "+ns+"/"+name] {
						t.Errorf("%s %s binds %s %s, which the base does not hold", o.GetKind(), o.GetName(), kind, name)
					}
					subjects, _, _ := unstructured.NestedSlice(o.Object, "subjects")
					for _, s := range subjects {
						s, _ := s.(map[string]any)
						if s["kind"] == "ServiceAccount" && !has[fmt.Sprintf("ServiceAccount %s/%s", s["namespace"], s["name"])] {
							t.Errorf("%s %s binds ServiceAccount %s/%s, which the base does not hold", o.GetKind(), o.GetName(), s["namespace"], s["name"])
						}
					}
				case "Deployment":
					deployments++
					sa, _, _ := unstructured.NestedString(o.Object, "spec", "template", "spec", "serviceAccountName")
					if !has["ServiceAccount "+o.GetNamespace()+"/"+sa] {
						t.Errorf("Deployment %s runs as ServiceAccount %q, which the base does not hold", o.GetName(), sa)
					}
					if !has["Namespace /"+o.GetNamespace()] {
						t.Errorf("Deployment %s is in namespace %s, which the base does not hold", o.GetName(), o.GetNamespace())
					}
					for _, n := range objs {
						if n.GetKind() == "Namespace" && n.GetName() == o.GetNamespace() && n.GetLabels()["pod-security.kubernetes.io/enforce"] != "restricted" {
							t.Errorf("namespace %s does not enforce the restricted Pod Security profile: labels %v", n.GetName(), n.GetLabels())
						}
					}
					podLabels, _, _ := unstructured.NestedStringMap(o.Object, "spec", "template", "metadata", "labels")
					for _, s := range objs {
						if s.GetKind() != "Service" {
							continue
						}
						services++
						sel, _, _ := unstructured.NestedStringMap(s.Object, "spec", "selector")
						for k, v := range sel {
							if podLabels[k] != v {
								t.Errorf("Service %s selects %s=%s; the pods of Deployment %s have %v", s.GetName(), k, v, o.GetName(), podLabels)
							}
						}
					}
				}
			}
			if deployments != 1 || services != 1 {
				t.Errorf("want one Deployment and one metrics Service, got %d and %d", deployments, services)
			}
		})
	}
}

// warnings records the API server's warnings of a client.
type warnings struct {
	mu   sync.Mutex
	seen []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = append(w.seen, text)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.seen
	w.seen = nil
	return s
}

// apiClient is a dynamic client of env whose warnings go to w.
func apiClient(t *testing.T, env *testenv.Env, w *warnings) dynamic.Interface {
	t.Helper()
	cfg := rest.CopyConfig(env.Config)
	cfg.WarningHandler = w
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return dc
}

func resourceOf(t *testing.T, env *testenv.Env, u *unstructured.Unstructured) (schema.GroupVersionResource, bool) {
	t.Helper()
	gvk := u.GroupVersionKind()
	m, err := env.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		t.Fatalf("%s %s: %v", gvk, u.GetName(), err)
	}
	return m.Resource, m.Scope.Name() == "namespace"
}

// TestBasesServerDryRun applies every object of each base to the API server
// as kubectl apply --server-side --dry-run=server does, with strict field
// validation: a field the API does not know, a duplicate, or an invalid
// value fails, and so does any warning. The namespaces are created for real
// first, since a dry run into a missing namespace fails.
func TestBasesServerDryRun(t *testing.T) {
	env := testenv.Get(t)
	for _, base := range bases(t) {
		t.Run(base, func(t *testing.T) {
			objs, err := build(base)
			if err != nil {
				t.Fatal(err)
			}
			var w warnings
			dc := apiClient(t, env, &w)
			ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
			defer cancel()
			for _, o := range objs {
				if o.GetKind() != "Namespace" {
					continue
				}
				gvr, _ := resourceOf(t, env, o)
				if _, err := dc.Resource(gvr).Create(ctx, o, metav1.CreateOptions{FieldValidation: "Strict"}); err != nil && !apierrors.IsAlreadyExists(err) {
					t.Fatalf("cannot create namespace %s: %v", o.GetName(), err)
				}
			}
			for _, o := range objs {
				gvr, namespaced := resourceOf(t, env, o)
				if namespaced && o.GetNamespace() == "" {
					t.Errorf("%s %s has no namespace: kubectl would put it into the current one", o.GetKind(), o.GetName())
					continue
				}
				if !namespaced && o.GetNamespace() != "" {
					t.Errorf("%s %s is cluster-scoped but names namespace %s", o.GetKind(), o.GetName(), o.GetNamespace())
				}
				body, err := o.MarshalJSON()
				if err != nil {
					t.Fatal(err)
				}
				ri := dc.Resource(gvr).Namespace(o.GetNamespace())
				force := true
				_, err = ri.Patch(ctx, o.GetName(), types.ApplyPatchType, body, metav1.PatchOptions{
					DryRun: []string{metav1.DryRunAll}, FieldManager: "kubectl", Force: &force, FieldValidation: "Strict",
				})
				if err != nil {
					t.Errorf("server-side dry run of %s %s/%s: %v", o.GetKind(), o.GetNamespace(), o.GetName(), err)
				}
				if got := w.take(); len(got) > 0 {
					t.Errorf("server-side dry run of %s %s/%s: warnings %q", o.GetKind(), o.GetNamespace(), o.GetName(), got)
				}
			}
		})
	}
}

// TestDeploymentsRestricted creates each base's Deployment in a namespace
// labelled pod-security.kubernetes.io/enforce: restricted and wants no
// warning. A Deployment without the profile's settings does draw one, which
// shows that the API server evaluates the profile here.
func TestDeploymentsRestricted(t *testing.T) {
	env := testenv.Get(t)
	var w warnings
	dc := apiClient(t, env, &w)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	ns := env.Namespace(t, "restricted")
	nsObj, err := dc.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Get(ctx, ns, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nsObj.SetLabels(map[string]string{"pod-security.kubernetes.io/enforce": "restricted"})
	if _, err := dc.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Update(ctx, nsObj, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	deployments := dc.Resource(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}).Namespace(ns)
	create := func(d *unstructured.Unstructured) []string {
		t.Helper()
		d = d.DeepCopy()
		d.SetNamespace(ns)
		d.SetResourceVersion("")
		w.take()
		if _, err := deployments.Create(ctx, d, metav1.CreateOptions{FieldValidation: "Strict"}); err != nil {
			t.Fatalf("cannot create Deployment %s in namespace %s: %v", d.GetName(), ns, err)
		}
		return w.take()
	}

	var names []string
	for _, base := range bases(t) {
		objs, err := build(base)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range objs {
			if o.GetKind() != "Deployment" {
				continue
			}
			names = append(names, o.GetName())
			if got := create(o); len(got) > 0 {
				t.Errorf("Deployment %s of config/%s in a restricted namespace: warnings %q", o.GetName(), base, got)
			}
			if o.GetName() != "nop" {
				continue
			}
			// The control: the same Deployment without its security
			// contexts is warned about.
			bare := o.DeepCopy()
			bare.SetName("nop-unrestricted")
			unstructured.RemoveNestedField(bare.Object, "spec", "template", "spec", "securityContext")
			containers, _, _ := unstructured.NestedSlice(bare.Object, "spec", "template", "spec", "containers")
			for _, c := range containers {
				delete(c.(map[string]any), "securityContext")
			}
			if err := unstructured.SetNestedSlice(bare.Object, containers, "spec", "template", "spec", "containers"); err != nil {
				t.Fatal(err)
			}
			got := create(bare)
			if !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, `violate PodSecurity "restricted`) }) {
				t.Errorf("a Deployment without security contexts in a restricted namespace: want a PodSecurity warning, got %q", got)
			}
		}
	}
	sort.Strings(names)
	if want := []string{"composite", "direct", "extref", "healthscope", "nop"}; !slices.Equal(names, want) {
		t.Errorf("Deployments %v, want %v", names, want)
	}
}

// TestDeploymentArgsAreFlags builds each base's example and checks that every
// argument of its Deployment is a flag the binary declares (--help lists
// them), so that a renamed flag fails here rather than in a crash-looping
// pod, and that the Deployment runs the image make images tags for it.
func TestDeploymentArgsAreFlags(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every example")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	dir := t.TempDir()
	for _, base := range bases(t) {
		t.Run(base, func(t *testing.T) {
			objs, err := build(base)
			if err != nil {
				t.Fatal(err)
			}
			bin := filepath.Join(dir, base)
			if out, err := exec.Command(goCmd, "build", "-o", bin, "../examples/"+base).CombinedOutput(); err != nil {
				t.Fatalf("cannot build ../examples/%s: %v\n%s", base, err, out)
			}
			help, _ := exec.Command(bin, "--help").CombinedOutput() // package flag exits 2 after -help
			flags := map[string]bool{}
			for _, line := range strings.Split(string(help), "\n") {
				if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(f[0], "-") {
					flags[strings.TrimLeft(f[0], "-")] = true
				}
			}
			if len(flags) == 0 {
				t.Fatalf("%s --help lists no flags:\n%s", bin, help)
			}
			for _, o := range objs {
				if o.GetKind() != "Deployment" {
					continue
				}
				containers, _, _ := unstructured.NestedSlice(o.Object, "spec", "template", "spec", "containers")
				for _, c := range containers {
					c, _ := c.(map[string]any)
					if want := "ctrlkit/" + base + ":dev"; c["image"] != want {
						t.Errorf("Deployment %s runs image %v, want %s (make images)", o.GetName(), c["image"], want)
					}
					args, _, _ := unstructured.NestedStringSlice(c, "args")
					for _, a := range args {
						name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
						if !strings.HasPrefix(a, "-") || !flags[name] {
							t.Errorf("Deployment %s passes %q, which is no flag of %s: it has %v", o.GetName(), a, base, slices.Sorted(maps.Keys(flags)))
						}
					}
				}
			}
		})
	}
}
