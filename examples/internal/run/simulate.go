package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// leaseFresh is how recently kube-controller-manager must have renewed its
// Lease to count as running: several times its renew period (2 s by default).
const leaseFresh = time.Minute

// What ControllerManagerRuns reads, by name: an example that plays
// kube-controller-manager grants it with its demo's role (make generate
// reads these markers for the composite and healthscope examples), since a
// read it may not make counts as absent, and the example would play
// kube-controller-manager beside a real one.
//
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get,namespace=kube-system,resourceNames=kube-controller-manager
// +kubebuilder:rbac:groups="",resources=serviceaccounts,verbs=get,namespace=default,resourceNames=default

// ControllerManagerRuns reports whether the cluster runs kube-controller-
// manager, which rolls Deployments out: its leader election Lease
// (kube-system/kube-controller-manager) was renewed within the last minute,
// or, for one that runs without leader election, the ServiceAccount "default"
// that its service account controller creates in every namespace exists in
// namespace default. A control plane without it (make cluster's, envtest)
// has neither. An error reading either, other than NotFound or Forbidden
// (which count as absent), is returned.
func ControllerManagerRuns(ctx context.Context, c client.Reader) (bool, error) {
	lease := &coordinationv1.Lease{}
	err := c.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "kube-controller-manager"}, lease)
	switch {
	case err == nil:
		if r := lease.Spec.RenewTime; r != nil && time.Since(r.Time) < leaseFresh {
			return true, nil
		}
	case !apierrors.IsNotFound(err) && !apierrors.IsForbidden(err):
		return false, fmt.Errorf("cannot read the Lease kube-system/kube-controller-manager: %w", err)
	}
	sa := &corev1.ServiceAccount{}
	err = c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "default"}, sa)
	switch {
	case err == nil:
		return true, nil
	case apierrors.IsNotFound(err) || apierrors.IsForbidden(err):
		return false, nil
	default:
		return false, fmt.Errorf("cannot read the ServiceAccount default/default: %w", err)
	}
}

// detectTimeout bounds the look for kube-controller-manager.
const detectTimeout = 10 * time.Second

// decideSimulate sets e.Simulate for an example that plays
// kube-controller-manager, and says why it plays it. c reads the cluster; nil
// makes one.
func (ex Example) decideSimulate(ctx context.Context, s *settings, e *Env, c client.Reader) error {
	if !ex.PlaysControllerManager {
		return nil
	}
	switch {
	case s.simulate:
		e.Simulate = true
		fmt.Fprintf(os.Stderr, "%s: playing kube-controller-manager (--simulate)\n", ex.Name)
		return nil
	case e.Cluster.Local:
		e.Simulate = true
		return nil
	}
	if c == nil {
		scheme := runtime.NewScheme()
		if err := clientgoscheme.AddToScheme(scheme); err != nil {
			return err
		}
		var err error
		if c, err = client.New(e.Cluster.Config, client.Options{Scheme: scheme}); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, detectTimeout)
	defer cancel()
	runs, err := ControllerManagerRuns(ctx, c)
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("%w (the API server did not answer within %s)", err, detectTimeout)
	}
	if err != nil {
		return fmt.Errorf("cannot tell whether the cluster runs kube-controller-manager: %w", err)
	}
	if !runs {
		e.Simulate = true
		fmt.Fprintf(os.Stderr, "%s: the cluster runs no kube-controller-manager (no Lease kube-system/kube-controller-manager renewed in the last %s, no ServiceAccount default/default): playing its part, Deployments become available\n", ex.Name, leaseFresh)
	}
	return nil
}
