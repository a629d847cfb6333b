// Package controller holds the extref example's controllers: a VPC
// controller that "creates" VPCs and publishes their IDs, and a Subnet
// controller that resolves a Subnet's external values with package extref
// before it "creates" the subnet, the way a Crossplane provider's managed
// reconciler would embed the resolver.
package controller

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/examples/extref/v1alpha1"
	"github.com/ctrlkit/ctrlkit/examples/internal/conflict"
	"github.com/ctrlkit/ctrlkit/extref"
)

// Policy is the example provider's source policy: Subnets may read VPCs,
// the common-settings ConfigMap and two Secrets in crossplane-system, and
// nothing else (they are cluster-scoped, so the default allows nothing).
var Policy = extref.SourcePolicy{Allow: []extref.SourceRule{
	{Name: "vpcs", Group: v1alpha1.GroupVersion.Group, Resource: "vpcs"},
	{Name: "common settings", Resource: "configmaps", Namespaces: []string{"crossplane-system"}, Names: []string{"common-settings"}},
	{Name: "accounts and credentials", Resource: "secrets", Namespaces: []string{"crossplane-system"}, Names: []string{"accounts", "db-credentials"}},
}}

// Options configure the controllers.
type Options struct {
	// Policy limits what Subnets may read; the zero value means Policy.
	Policy *extref.SourcePolicy
	// Clock stamps condition transitions; nil means the real clock.
	Clock clock.PassiveClock
	// Unreadable, when set, is the one whose WatchErrorHandler is the
	// manager's cache's (cache.Options.DefaultWatchErrorHandler): then a
	// Subnet that names a kind the controller may not list and watch says
	// so as soon as the cache's first list of it fails, rather than after
	// the read timeout (10 s), as "the cache has not synced".
	Unreadable *extref.UnreadableKinds
}

// The controllers' permissions: VPCs and their status; Subnets, which the
// Subnet controller updates with the resolved values, and their status; the
// Events of the Subnet controller. The kinds Subnets read (their sources)
// are not here: an operator grants them per source policy template, a
// ClusterRole each, labelled for aggregation into the role the controller is
// bound to (config/extref/rbac/sources). Each needs list and watch
// cluster-wide, since the manager's cache watches a kind in every namespace.
//
// +kubebuilder:rbac:groups=example.extref.ctrlkit.dev,resources=vpcs,verbs=get;list;watch
// +kubebuilder:rbac:groups=example.extref.ctrlkit.dev,resources=vpcs/status,verbs=update
// +kubebuilder:rbac:groups=example.extref.ctrlkit.dev,resources=subnets,verbs=get;list;watch;update
// +kubebuilder:rbac:groups=example.extref.ctrlkit.dev,resources=subnets/status,verbs=update
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Setup adds the VPC and Subnet controllers to mgr.
func Setup(mgr manager.Manager, o Options) error {
	policy := Policy
	if o.Policy != nil {
		policy = *o.Policy
	}
	setter := conditions.NewSetter(conditions.WithClock(o.Clock))
	vpcs := &vpcReconciler{client: mgr.GetClient(), setter: setter}
	if err := builder.ControllerManagedBy(mgr).Named("vpc").For(&v1alpha1.VPC{}).Complete(vpcs); err != nil {
		return err
	}
	// The resolver reads through the manager's cache, and the watcher adds
	// a handler to the cache's informer of each kind Subnets read.
	w := extref.NewWatcher(mgr.GetCache())
	ropts := []extref.ResolverOption{extref.WithWatcher(w)}
	if o.Unreadable != nil {
		ropts = append(ropts, extref.WithUnreadableKinds(o.Unreadable))
	}
	subnets := &subnetReconciler{
		client:   mgr.GetClient(),
		resolver: extref.NewResolver(mgr.GetCache(), mgr.GetRESTMapper(), policy, ropts...),
		watcher:  w,
		recorder: mgr.GetEventRecorder("subnet"),
		setter:   setter,
	}
	return builder.ControllerManagedBy(mgr).Named("subnet").For(&v1alpha1.Subnet{}).WatchesRawSource(w).Complete(subnets)
}

// vpcReconciler "creates" a VPC: it publishes an ID derived from its name
// and CIDR block, as a cloud would assign one.
type vpcReconciler struct {
	client client.Client
	setter conditions.Setter
}

func (r *vpcReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	vpc := &v1alpha1.VPC{}
	if err := r.client.Get(ctx, req.NamespacedName, vpc); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	before := vpc.Status.DeepCopy()
	vpc.Status.AtProvider.VPCID = "vpc-" + digest(vpc.Name, vpc.Spec.ForProvider.CIDRBlock)[:12]
	vpc.Status.ObservedGeneration = vpc.Generation
	r.setter.Set(&vpc.Status.Conditions, metav1.Condition{
		Type: conditions.TypeReady, Status: metav1.ConditionTrue, Reason: conditions.ReasonAvailable,
		Message: "VPC " + vpc.Status.AtProvider.VPCID + " exists", ObservedGeneration: vpc.Generation,
	})
	if equality.Semantic.DeepEqual(before, &vpc.Status) {
		return reconcile.Result{}, nil
	}
	return reconcile.Result{}, conflict.Ignore(r.client.Status().Update(ctx, vpc))
}

// subnetReconciler resolves a Subnet's external values, writes them when
// they changed, and "creates" the subnet once it has what it needs.
type subnetReconciler struct {
	client   client.Client
	resolver *extref.Resolver
	watcher  *extref.Watcher
	recorder events.EventRecorder
	setter   conditions.Setter
}

func (r *subnetReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	s := &v1alpha1.Subnet{}
	if err := r.client.Get(ctx, req.NamespacedName, s); err != nil {
		if apierrors.IsNotFound(err) {
			r.watcher.Forget(req.NamespacedName)
		}
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	return reconcile.Result{}, conflict.Ignore(r.reconcile(ctx, s))
}

func (r *subnetReconciler) reconcile(ctx context.Context, s *v1alpha1.Subnet) error {
	if s.DeletionTimestamp != nil {
		return nil
	}
	// Resolve first, and write the spec only when a value changed.
	out, resolveErr := r.resolver.Resolve(ctx, s)
	resolved := extref.Condition(out, resolveErr, s.Generation)
	if resolveErr == nil && out.Changed {
		switch err := r.client.Update(ctx, s); {
		case extref.WriteRejected(err):
			// The API server rejected the resolved values (they do not
			// fit the schema): retrying would be rejected again, so
			// report it and wait for a spec or source change.
			resolveErr = err
			resolved = extref.RejectedCondition(out, err, s.Generation)
		case err != nil:
			return writeError(out, err, s.Generation)
		}
	}

	before := s.Status.DeepCopy()
	s.Status.ObservedGeneration = s.Generation
	resolvedChanged := r.setter.Set(&s.Status.Conditions, resolved)
	ready, progress := r.observe(s, out, resolveErr)
	r.setter.Set(&s.Status.Conditions, ready)
	r.setter.SetProgress(&s.Status.Conditions, s.Generation, progress, ready.Reason, ready.Message)
	if equality.Semantic.DeepEqual(before, &s.Status) {
		return nil
	}
	if err := r.client.Status().Update(ctx, s); err != nil {
		return writeError(out, err, s.Generation)
	}
	if resolveErr != nil && resolvedChanged && r.recorder != nil {
		r.recorder.Eventf(s, nil, "Warning", resolved.Reason, "ResolveExternalValues", "%s", eventNote(resolved.Message))
	}
	return nil
}

// writeError is the error of a write of a Subnet that holds resolved
// values, for the manager to log and retry: an admission webhook's or
// policy's denial may quote those values, which may come from a Secret, so
// the API server's message is replaced by what RejectedCondition says of
// it. A conflict is kept, for conflict.Ignore.
func writeError(out extref.Outcome, err error, generation int64) error {
	var status apierrors.APIStatus
	if !errors.As(err, &status) || apierrors.IsConflict(err) {
		return err
	}
	return errors.New("cannot write the Subnet: " + extref.RejectedCondition(out, err, generation).Message)
}

// eventNote shortens a message to the 1 KiB an event's note may hold: the
// API server refuses a longer one, and the event would be lost.
func eventNote(msg string) string {
	if len(msg) <= 1024 {
		return msg
	}
	return strings.ToValidUTF8(msg[:1021], "") + "..."
}

// observe "creates" the subnet when its values are known, and returns its
// Ready condition and how far the controller got: working while a source it
// reads is missing (it may appear), stalled when only a spec change can help.
func (r *subnetReconciler) observe(s *v1alpha1.Subnet, out extref.Outcome, resolveErr error) (metav1.Condition, conditions.Progress) {
	ready := metav1.Condition{Type: conditions.TypeReady, Status: metav1.ConditionFalse, Reason: "Waiting", ObservedGeneration: s.Generation}
	p := s.Spec.ForProvider
	switch {
	case resolveErr != nil && waiting(resolveErr):
		ready.Message = "waiting for external values: " + extref.Condition(out, resolveErr, s.Generation).Message
		return ready, conditions.Working
	case resolveErr != nil:
		resolved := extref.Condition(out, resolveErr, s.Generation)
		if extref.WriteRejected(resolveErr) {
			resolved = extref.RejectedCondition(out, resolveErr, s.Generation)
		}
		ready.Reason, ready.Message = resolved.Reason, resolved.Message
		return ready, conditions.Stalled
	case s.Spec.CIDRBlock == "" || p.Region == "" || p.VPCID == "":
		ready.Reason = ReasonInvalidSpec
		ready.Message = "cidrBlock, forProvider.region and forProvider.vpcId are required"
		return ready, conditions.Stalled
	}
	s.Status.AtProvider.SubnetID = "subnet-" + digest(p.VPCID, s.Spec.CIDRBlock, p.Region)[:12]
	// Only that the password is there: it, and anything derived from it,
	// stays off the object.
	pw, _ := out.Values["dbPassword"].(string)
	s.Status.AtProvider.CredentialsReceived = pw != ""
	ready.Status, ready.Reason = metav1.ConditionTrue, conditions.ReasonAvailable
	ready.Message = fmt.Sprintf("subnet %s exists in %s", s.Status.AtProvider.SubnetID, p.VPCID)
	return ready, conditions.Done
}

// ReasonInvalidSpec: the Subnet lacks a value it needs, and only a spec
// change can give it.
const ReasonInvalidSpec = "InvalidSpec"

// waiting reports whether the Subnet may still resolve without a change of
// its own: false when a reference is invalid, a read is denied, a value
// cannot be transformed or written, or the API server rejected the values;
// true otherwise (a source, a field of it or its kind does not exist yet, or
// a transient error).
func waiting(err error) bool {
	for _, permanent := range []error{extref.ErrInvalid, extref.ErrDenied, extref.ErrTransform, extref.ErrTarget} {
		if errors.Is(err, permanent) {
			return false
		}
	}
	return !extref.WriteRejected(err)
}

func digest(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}
