// Package demo walks the healthscope example through the design's scenario:
// it applies example.yaml (definitions, a HealthScope and an Application
// whose workloads join it), prints the scope's health each time it changes,
// and, on a local control plane, plays the part of kube-controller-manager,
// which is not running there: it creates the Deployment's ReplicaSet and
// marks replicas ready through the status subresource.
package demo

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/examples/healthscope/v1alpha1"
)

// Manifest is example.yaml.
//
//go:embed example.yaml
var Manifest []byte

// Names in the manifest.
const (
	ScopeName       = "example-health-scope"
	ApplicationName = "example-app"
)

// Objects returns the objects of the manifest.
func Objects() ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(Manifest), 4096)
	for {
		u := &unstructured.Unstructured{}
		err := dec.Decode(&u.Object)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("cannot read example.yaml: %w", err)
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
}

// Apply creates the manifest's objects: the cluster-scoped definitions are
// created or have their spec replaced, and the others are created in
// namespace unless they exist.
func Apply(ctx context.Context, c client.Client, namespace string) error {
	return apply(ctx, c, namespace, true)
}

// ApplyDefinitions applies the manifest's definitions only.
func ApplyDefinitions(ctx context.Context, c client.Client) error {
	return apply(ctx, c, "", false)
}

func apply(ctx context.Context, c client.Client, namespace string, all bool) error {
	objs, err := Objects()
	if err != nil {
		return err
	}
	for _, u := range objs {
		if k := u.GetKind(); k == "ScopeDefinition" || k == "WorkloadDefinition" {
			if err := applyDefinition(ctx, c, u); err != nil {
				return err
			}
			continue
		}
		if !all {
			continue
		}
		u.SetNamespace(namespace)
		if err := c.Create(ctx, u); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("cannot create %s %s: %w", u.GetKind(), u.GetName(), err)
		}
	}
	return nil
}

func applyDefinition(ctx context.Context, c client.Client, def *unstructured.Unstructured) error {
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(def.GroupVersionKind())
	err := c.Get(ctx, client.ObjectKeyFromObject(def), cur)
	switch {
	case apierrors.IsNotFound(err):
		err = c.Create(ctx, def)
	case err == nil:
		cur.Object["spec"] = def.Object["spec"]
		err = c.Update(ctx, cur)
	}
	if err != nil {
		return fmt.Errorf("cannot apply %s %s: %w", def.GetKind(), def.GetName(), err)
	}
	return nil
}

// Options configure Run.
type Options struct {
	// Namespace of the scope and the application. Default: "default".
	Namespace string

	// Simulate plays kube-controller-manager, for a local control plane
	// that has none.
	Simulate bool

	// PollInterval is how often the scope is read for printing. Default:
	// 200ms.
	PollInterval time.Duration
}

// The demo's permissions: it applies example.yaml (definitions, a
// HealthScope, an Application) and reads the scope; where no
// kube-controller-manager runs, it creates the Deployment's ReplicaSet and
// patches the replicas ready into the status of the ReplicaSet and the
// StatefulSet.
//
// +kubebuilder:rbac:groups=healthscope.example.ctrlkit.dev,resources=workloaddefinitions;scopedefinitions,verbs=get;create;update
// +kubebuilder:rbac:groups=healthscope.example.ctrlkit.dev,resources=healthscopes,verbs=get;create
// +kubebuilder:rbac:groups=healthscope.example.ctrlkit.dev,resources=applications,verbs=create
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get
// +kubebuilder:rbac:groups=apps,resources=replicasets,verbs=create
// +kubebuilder:rbac:groups=apps,resources=replicasets/status;statefulsets/status,verbs=patch
//
// The example removes what it created (run.Example.Objects): it lists and
// deletes them, and patches those kept with --keep-running to release their
// finalizers.
//
// +kubebuilder:rbac:groups=healthscope.example.ctrlkit.dev,resources=applications;healthscopes;scopedefinitions;workloaddefinitions,verbs=list;delete;patch
// +kubebuilder:rbac:groups=apps,resources=deployments;statefulsets;replicasets,verbs=list;delete;patch

// Run applies the manifest and prints the HealthScope's health as it
// changes, until the scope is Healthy.
func Run(ctx context.Context, c client.Client, out io.Writer, o Options) error {
	if o.Namespace == "" {
		o.Namespace = "default"
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 200 * time.Millisecond
	}
	if err := Apply(ctx, c, o.Namespace); err != nil {
		return err
	}
	fmt.Fprintf(out, "Applied example.yaml: HealthScope %s and Application %s in namespace %s.\n\n", ScopeName, ApplicationName, o.Namespace)
	w := &watcher{c: c, out: out, o: o}

	if !o.Simulate {
		return w.until(ctx, "the scope is healthy", func(hs *v1alpha1.HealthScope) bool {
			return hs.Status.ScopeHealthCondition.HealthStatus == v1alpha1.StatusHealthy
		})
	}
	steps := []struct {
		say  string
		do   func(ctx context.Context) error
		done func(hs *v1alpha1.HealthScope) bool
	}{
		{
			say:  "The Application controller puts both workloads into the scope.",
			done: func(hs *v1alpha1.HealthScope) bool { return len(hs.Status.HealthConditions) == 2 },
		},
		{
			say:  "kube-controller-manager (played by the demo) creates the Deployment's ReplicaSet, with no replica ready.",
			do:   w.createReplicaSet,
			done: diagnosed("web", "ReplicaSet web-1 has 0/2 replicas ready"),
		},
		{
			say:  "One replica of web becomes ready.",
			do:   w.setReady("apps/v1", "ReplicaSet", "web-1", 2, 1),
			done: diagnosed("web", "ReplicaSet web-1 has 1/2 replicas ready"),
		},
		{
			say:  "Both replicas of web become ready.",
			do:   w.setReady("apps/v1", "ReplicaSet", "web-1", 2, 2),
			done: health("web", v1alpha1.StatusHealthy),
		},
		{
			say: "The StatefulSet's replica becomes ready.",
			do:  w.setReady("apps/v1", "StatefulSet", "db", 1, 1),
			done: func(hs *v1alpha1.HealthScope) bool {
				return hs.Status.ScopeHealthCondition.HealthStatus == v1alpha1.StatusHealthy
			},
		},
	}
	for _, s := range steps {
		fmt.Fprintf(out, "%s\n", s.say)
		if s.do != nil {
			if err := s.do(ctx); err != nil {
				return err
			}
		}
		if err := w.until(ctx, s.say, s.done); err != nil {
			return err
		}
	}
	return nil
}

func diagnosed(workload, diagnosis string) func(*v1alpha1.HealthScope) bool {
	return func(hs *v1alpha1.HealthScope) bool {
		for _, w := range hs.Status.HealthConditions {
			if w.TargetWorkload.Name == workload && w.Diagnosis == diagnosis {
				return true
			}
		}
		return false
	}
}

func health(workload string, s v1alpha1.HealthStatus) func(*v1alpha1.HealthScope) bool {
	return func(hs *v1alpha1.HealthScope) bool {
		for _, w := range hs.Status.HealthConditions {
			if w.TargetWorkload.Name == workload && w.HealthStatus == s {
				return true
			}
		}
		return false
	}
}

type watcher struct {
	c    client.Client
	out  io.Writer
	o    Options
	last string
}

// until reads the scope until done holds, printing its health each time
// it changes.
func (w *watcher) until(ctx context.Context, what string, done func(*v1alpha1.HealthScope) bool) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for {
		hs := &v1alpha1.HealthScope{}
		err := w.c.Get(ctx, client.ObjectKey{Namespace: w.o.Namespace, Name: ScopeName}, hs)
		if err == nil {
			if s := summary(hs); s != w.last {
				fmt.Fprint(w.out, s)
				w.last = s
			}
			if done(hs) {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting until %s: %w; last seen:\n%s", what, ctx.Err(), w.last)
		case <-time.After(w.o.PollInterval):
		}
	}
}

// summary renders a HealthScope's status for the terminal.
func summary(hs *v1alpha1.HealthScope) string {
	var b strings.Builder
	sum := hs.Status.ScopeHealthCondition
	if sum.HealthStatus == "" {
		return ""
	}
	fmt.Fprintf(&b, "  HealthScope %s: %s, %d of %d workloads healthy\n", hs.Name, sum.HealthStatus, sum.HealthyWorkloads, sum.Total)
	for _, w := range hs.Status.HealthConditions {
		fmt.Fprintf(&b, "    %-11s %s %s", w.HealthStatus, w.TargetWorkload.Kind, w.TargetWorkload.Name)
		if w.Diagnosis != "" {
			fmt.Fprintf(&b, ": %s", w.Diagnosis)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// createReplicaSet does what the Deployment controller would: a ReplicaSet
// controlled by the Deployment web.
func (w *watcher) createReplicaSet(ctx context.Context) error {
	d := &unstructured.Unstructured{}
	d.SetGroupVersionKind(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	if err := w.c.Get(ctx, client.ObjectKey{Namespace: w.o.Namespace, Name: "web"}, d); err != nil {
		return fmt.Errorf("cannot get Deployment web: %w", err)
	}
	rs := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1",
		"kind":       "ReplicaSet",
		"spec": map[string]any{
			"replicas": int64(2),
			"selector": d.Object["spec"].(map[string]any)["selector"],
			"template": d.Object["spec"].(map[string]any)["template"],
		},
	}}
	rs.SetNamespace(w.o.Namespace)
	rs.SetName("web-1")
	rs.SetOwnerReferences([]metav1.OwnerReference{{
		APIVersion: "apps/v1", Kind: "Deployment", Name: d.GetName(), UID: d.GetUID(),
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
	}})
	if err := w.c.Create(ctx, rs); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("cannot create ReplicaSet web-1: %w", err)
	}
	return nil
}

// setReady sets status.replicas and status.readyReplicas through the status
// subresource, as the ReplicaSet or StatefulSet controller would.
func (w *watcher) setReady(apiVersion, kind, name string, replicas, ready int64) func(context.Context) error {
	return func(ctx context.Context) error {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion(apiVersion)
		u.SetKind(kind)
		u.SetNamespace(w.o.Namespace)
		u.SetName(name)
		patch := fmt.Sprintf(`{"status":{"replicas":%d,"readyReplicas":%d,"availableReplicas":%d}}`, replicas, ready, ready)
		if err := w.c.Status().Patch(ctx, u, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
			return fmt.Errorf("cannot set the ready replicas of %s %s: %w", kind, name, err)
		}
		return nil
	}
}
