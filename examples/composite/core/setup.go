package core

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/examples/composite/v1alpha1"
)

// Options configure the controllers.
type Options struct {
	// Pipeline composes every XApp.
	Pipeline Pipeline

	// ComposedKinds are the kinds of composed resources the pipeline may
	// want, so that the XR controller can find and watch them. Default:
	// apps/v1 Deployment.
	ComposedKinds []schema.GroupVersionKind

	// PollInterval is how often an XApp is composed again to notice changes
	// outside the cluster. Default: one minute.
	PollInterval time.Duration

	// Clock stamps lastTransitionTime. Default: the real clock.
	Clock clock.PassiveClock
}

func (o Options) withDefaults() Options {
	if o.ComposedKinds == nil {
		o.ComposedKinds = []schema.GroupVersionKind{DeploymentKind}
	}
	if o.PollInterval <= 0 {
		o.PollInterval = time.Minute
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	return o
}

// EventRecorderName is the reporting controller of the events of the XR
// controller.
const EventRecorderName = "composite-example"

// The controllers' permissions: claims (App), which the claim controller
// updates (finalizer, resource reference) with their status; composites
// (XApp), which it creates, updates and deletes, with their status; the
// composed kinds (Options.ComposedKinds, by default Deployments), which the
// XR controller owns, creates, patches and deletes; the Events it records.
// Composing another kind takes a rule of its own.
//
// +kubebuilder:rbac:groups=example.ctrlkit.dev,resources=apps,verbs=get;list;watch;update
// +kubebuilder:rbac:groups=example.ctrlkit.dev,resources=apps/status,verbs=update
// +kubebuilder:rbac:groups=example.ctrlkit.dev,resources=apps/finalizers,verbs=update
// +kubebuilder:rbac:groups=example.ctrlkit.dev,resources=xapps,verbs=get;list;watch;create;update;delete
// +kubebuilder:rbac:groups=example.ctrlkit.dev,resources=xapps/status,verbs=update
// +kubebuilder:rbac:groups=example.ctrlkit.dev,resources=xapps/finalizers,verbs=update
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Setup adds the claim and XR controllers to mgr.
func Setup(mgr manager.Manager, o Options) error {
	o = o.withDefaults()
	claims := NewClaimReconciler(mgr.GetClient(), o)
	err := builder.ControllerManagedBy(mgr).
		Named("app-claim").
		For(newObject(v1alpha1.AppKind)).
		Watches(newObject(v1alpha1.XAppKind), handler.EnqueueRequestsFromMapFunc(claimOfComposite)).
		Complete(claims)
	if err != nil {
		return err
	}

	xrs := NewCompositeReconciler(mgr.GetClient(), mgr.GetEventRecorder(EventRecorderName), o)
	b := builder.ControllerManagedBy(mgr).
		Named("xapp").
		For(newObject(v1alpha1.XAppKind))
	for _, gvk := range o.ComposedKinds {
		b = b.Owns(newObject(gvk))
	}
	return b.Complete(xrs)
}

// claimOfComposite maps an XApp to the claim it serves, by its
// spec.claimRef.
func claimOfComposite(_ context.Context, o client.Object) []reconcile.Request {
	u, ok := o.(*unstructured.Unstructured)
	if !ok {
		return nil
	}
	ns, _, _ := unstructured.NestedString(u.Object, "spec", "claimRef", "namespace")
	name, _, _ := unstructured.NestedString(u.Object, "spec", "claimRef", "name")
	if name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}}
}
