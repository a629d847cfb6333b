package tour

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	compositev1alpha1 "github.com/ctrlkit/ctrlkit/examples/composite/v1alpha1"
	directv1alpha1 "github.com/ctrlkit/ctrlkit/examples/direct/v1alpha1"
	extrefv1alpha1 "github.com/ctrlkit/ctrlkit/examples/extref/v1alpha1"
	healthv1alpha1 "github.com/ctrlkit/ctrlkit/examples/healthscope/v1alpha1"
	"github.com/ctrlkit/ctrlkit/examples/internal/owned"
	nopv1alpha1 "github.com/ctrlkit/ctrlkit/nop/v1alpha1"
)

// Every object the tour creates, by itself or through its controllers,
// carries the label LabelCreatedBy=CreatedBy, so that the tour can find it
// again and delete it.
const (
	LabelCreatedBy = owned.LabelCreatedBy
	CreatedBy      = "ctrlkit-tour"
)

// ownedKinds are the kinds of the objects the tour creates, in the order in
// which clean deletes them: first those whose finalizers clean up after them
// (a claim deletes its XApp, an Application its workloads), then the rest.
// Namespaces are labelled but never deleted: without kube-controller-manager
// a deleted namespace never goes away, and nothing could be created in it.
var ownedKinds = []schema.GroupVersionKind{
	compositev1alpha1.AppKind,
	healthv1alpha1.GroupVersion.WithKind("Application"),
	directv1alpha1.GroupVersion.WithKind("Dataset"),
	compositev1alpha1.XAppKind,
	nopv1alpha1.GroupVersion.WithKind(nopv1alpha1.NopResourceKind),
	healthv1alpha1.GroupVersion.WithKind("HealthScope"),
	healthv1alpha1.GroupVersion.WithKind("ScopeDefinition"),
	healthv1alpha1.GroupVersion.WithKind("WorkloadDefinition"),
	extrefv1alpha1.GroupVersion.WithKind("Subnet"),
	extrefv1alpha1.GroupVersion.WithKind("VPC"),
	{Group: "apps", Version: "v1", Kind: "Deployment"},
	{Group: "apps", Version: "v1", Kind: "StatefulSet"},
	{Group: "apps", Version: "v1", Kind: "ReplicaSet"},
	{Version: "v1", Kind: "ConfigMap"},
	{Version: "v1", Kind: "Secret"},
}

// objects are the tour's objects: those of ownedKinds labelled as the tour's.
var objects = owned.Set{By: CreatedBy, Kinds: ownedKinds}
