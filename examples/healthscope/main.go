// Command healthscope runs the scope/workload interaction of the OAM design
// (package scopes): an Application controller that places its workloads into
// the scopes it names without knowing their schemas, and a HealthScope
// controller that judges those workloads, of any kind, by the resources they
// create (package controllers). It then walks the design's example through
// (package demo), printing the scope's health as it changes, and stops
// (--keep-running: runs on until interrupted). On a cluster without
// kube-controller-manager it plays its part (--simulate: on any cluster).
//
//	go run ./examples/healthscope [--kubeconfig FILE] [--crds DIR] [--keep-running] [--simulate] [--namespace NS] [--watch-kinds KINDS]
//
// Without --kubeconfig (or KUBECONFIG) it starts a local control plane and
// prints how to point kubectl at it (kubectl get healthscopes,applications -o
// yaml). It installs the example's CRDs built into the binary, or those in
// --crds DIR.
//
// --watch-kinds lists, comma-separated as Kind.group (Deployment.apps,
// Service for the core group), the kinds of workloads and child resources
// a HealthScope may hold: only those are read and watched, each through a
// cluster-wide informer that stops a minute after no scope holds its kind.
// The default is Deployment.apps,StatefulSet.apps,DaemonSet.apps,ReplicaSet.apps.
//
// It creates the WorkloadDefinition deployments.apps and the ScopeDefinition
// of HealthScopes (cluster-scoped), and the HealthScope example-health-scope
// and the Application example-app in --namespace (default), whose controller
// creates the Deployment web and the StatefulSet db; without
// kube-controller-manager the demo creates web's ReplicaSet. Each is labelled
// app.kubernetes.io/created-by=ctrlkit-healthscope: a run deletes those an
// earlier run left before its script and, unless --keep-running, its own at
// the end, the Application first while its controller runs and removes its
// finalizer (package examples/internal/owned).
//
// Like every example it has the flags of a kubebuilder-scaffolded provider
// (metrics, health probes, leader election, concurrency, zap logging; see
// package examples/internal/run and --help), and prints which API server it
// uses, and why, before it changes anything.
package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlkit/ctrlkit/examples/healthscope/controllers"
	"github.com/ctrlkit/ctrlkit/examples/healthscope/crds"
	"github.com/ctrlkit/ctrlkit/examples/healthscope/demo"
	"github.com/ctrlkit/ctrlkit/examples/healthscope/v1alpha1"
	"github.com/ctrlkit/ctrlkit/examples/internal/owned"
	"github.com/ctrlkit/ctrlkit/examples/internal/run"
)

func main() {
	namespace := flag.String("namespace", "default", "namespace of the demo's HealthScope and Application")
	watchKinds := flag.String("watch-kinds", kindList(controllers.DefaultWatchKinds), "comma-separated kinds (Kind.group) of the workloads and child resources a HealthScope may hold; only these are read and watched")
	run.Main(run.Example{
		Name:        "healthscope",
		CRDs:        []fs.FS{crds.FS},
		AddToScheme: v1alpha1.AddToScheme,
		// The Application first: its workloads go with it.
		Objects: owned.Set{By: owned.CreatedBy("healthscope"), Kinds: []schema.GroupVersionKind{
			v1alpha1.GroupVersion.WithKind("Application"), v1alpha1.GroupVersion.WithKind("HealthScope"),
			v1alpha1.GroupVersion.WithKind("ScopeDefinition"), v1alpha1.GroupVersion.WithKind("WorkloadDefinition"),
			{Group: "apps", Version: "v1", Kind: "Deployment"}, {Group: "apps", Version: "v1", Kind: "StatefulSet"},
			{Group: "apps", Version: "v1", Kind: "ReplicaSet"},
		}},
		Setup: func(mgr manager.Manager) error {
			kinds, err := parseKinds(*watchKinds)
			if err != nil {
				return err
			}
			return controllers.Setup(mgr, controllers.Options{WatchKinds: kinds})
		},
		Run: func(ctx context.Context, e run.Env) error {
			return demo.Run(ctx, e.Client, os.Stdout, demo.Options{Namespace: *namespace, Simulate: e.Simulate})
		},
		PlaysControllerManager: true,
		KeepRunning:            "\nThe scope is Healthy. Press Ctrl-C to stop; meanwhile try kubectl get healthscopes,applications -o yaml.",
	})
}

// kindList writes kinds as --watch-kinds takes them.
func kindList(kinds []schema.GroupKind) string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.String()
	}
	return strings.Join(names, ",")
}

// parseKinds reads --watch-kinds; none is an empty list, which allows no
// kind. Each entry is Kind or Kind.group: a kind of letters and digits
// starting with a letter, and a group that is a DNS subdomain.
func parseKinds(s string) ([]schema.GroupKind, error) {
	kinds := []schema.GroupKind{}
	for i, k := range strings.Split(s, ",") {
		if k = strings.TrimSpace(k); k == "" {
			continue
		}
		gk := schema.ParseGroupKind(k)
		if !validKind(gk.Kind) {
			return nil, fmt.Errorf("--watch-kinds: entry %d: the kind must be letters and digits, starting with a letter (Kind or Kind.group)", i+1)
		}
		if gk.Group != "" && len(validation.IsDNS1123Subdomain(gk.Group)) > 0 {
			return nil, fmt.Errorf("--watch-kinds: entry %d: the group must be a DNS subdomain (Kind or Kind.group)", i+1)
		}
		kinds = append(kinds, gk)
	}
	return kinds, nil
}

// validKind reports whether s is a kind's name: letters and digits,
// starting with a letter, at most 63 characters.
func validKind(s string) bool {
	if s == "" || len(s) > 63 {
		return false
	}
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
