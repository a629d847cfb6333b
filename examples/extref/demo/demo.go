// Package demo walks the extref example through its story: it applies
// example.yaml (a VPC, settings and secrets in crossplane-system, and a
// Subnet that refers to them), prints the Subnet once the controllers made
// it ready, then changes the region in the ConfigMap and prints the Subnet
// again once its Always references followed.
package demo

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/examples/extref/v1alpha1"
	"github.com/ctrlkit/ctrlkit/extref"
)

// Manifests are the example's objects, in the order they are applied.
//
//go:embed example.yaml
var Manifests []byte

// Objects decodes Manifests.
func Objects() ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	d := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(Manifests), 4096)
	for {
		u := &unstructured.Unstructured{}
		if err := d.Decode(&u.Object); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("cannot decode the example manifests: %w", err)
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
}

// The demo's permissions: it creates what example.yaml holds (a Namespace,
// a ConfigMap, two Secrets, a VPC, Subnets), changes the ConfigMap and reads
// the Subnet it narrates.
//
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=create
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;create;update
// +kubebuilder:rbac:groups="",resources=secrets,verbs=create
// +kubebuilder:rbac:groups=example.extref.ctrlkit.dev,resources=vpcs;subnets,verbs=get;create
//
// The example removes what it created (run.Example.Objects): it lists and
// deletes them, and patches those kept with --keep-running to release their
// finalizers.
//
// +kubebuilder:rbac:groups=example.extref.ctrlkit.dev,resources=vpcs;subnets,verbs=list;delete;patch
// +kubebuilder:rbac:groups="",resources=configmaps;secrets,verbs=list;delete;patch

// Run applies the example and narrates what the controllers do with it. It
// creates the objects that are absent and leaves those that exist as they
// are; it changes the ConfigMap's region only when it created the ConfigMap,
// so that a restart never undoes a user's edit.
func Run(ctx context.Context, c client.Client, out io.Writer) error {
	objs, err := Objects()
	if err != nil {
		return err
	}
	// Set-up creates what is absent and leaves what exists, an earlier
	// run's or a user's, as it is.
	createdSettings := false
	for _, o := range objs {
		switch err := c.Create(ctx, o); {
		case apierrors.IsAlreadyExists(err):
			fmt.Fprintf(out, "%s %s exists already: left as it is\n", o.GetKind(), o.GetName())
		case err != nil:
			return fmt.Errorf("cannot create %s %s: %w", o.GetKind(), o.GetName(), err)
		default:
			fmt.Fprintf(out, "created %s %s\n", o.GetKind(), o.GetName())
			createdSettings = createdSettings || o.GetKind() == "ConfigMap" && o.GetName() == "common-settings"
		}
	}

	s, err := waitFor(ctx, c, func(s *v1alpha1.Subnet) bool { return conditions.IsTrue(s.Status.Conditions, conditions.TypeReady) })
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "\nThe Subnet resolved its external values and is ready:")
	describe(out, s)

	if !createdSettings {
		// An earlier run's ConfigMap, which a user may have edited as
		// KeepRunning suggests: the demo does not undo that edit.
		fmt.Fprintln(out, "\nConfigMap crossplane-system/common-settings was there before this run: the demo does not change its region.")
		return nil
	}
	fmt.Fprintln(out, "\nChanging the region in ConfigMap crossplane-system/common-settings to eu-west-1 ...")
	cm := &unstructured.Unstructured{}
	cm.SetAPIVersion("v1")
	cm.SetKind("ConfigMap")
	if err := c.Get(ctx, client.ObjectKey{Namespace: "crossplane-system", Name: "common-settings"}, cm); err != nil {
		return err
	}
	if err := unstructured.SetNestedField(cm.Object, "eu-west-1", "data", "region"); err != nil {
		return err
	}
	if err := c.Update(ctx, cm); err != nil {
		return err
	}
	changed := time.Now()
	s, err = waitFor(ctx, c, func(s *v1alpha1.Subnet) bool {
		return s.Spec.ForProvider.Region == "eu-west-1" && conditions.IsTrue(s.Status.Conditions, conditions.TypeReady) &&
			s.Status.ObservedGeneration == s.Generation
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "The Always references followed within %s:\n", time.Since(changed).Round(time.Millisecond))
	describe(out, s)
	return nil
}

func waitFor(ctx context.Context, c client.Client, done func(*v1alpha1.Subnet) bool) (*v1alpha1.Subnet, error) {
	s := &v1alpha1.Subnet{}
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		if err := c.Get(ctx, client.ObjectKey{Name: "main-subnet"}, s); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		return done(s), nil
	})
	if err != nil {
		return nil, fmt.Errorf("waiting for Subnet main-subnet (last seen %+v): %w", s.Status.Conditions, err)
	}
	return s, nil
}

func describe(out io.Writer, s *v1alpha1.Subnet) {
	p := s.Spec.ForProvider
	fmt.Fprintf(out, "  spec.cidrBlock                    %s\n", s.Spec.CIDRBlock)
	fmt.Fprintf(out, "  spec.forProvider.region           %s\n", p.Region)
	fmt.Fprintf(out, "  spec.forProvider.availabilityZone %s\n", p.AvailabilityZone)
	fmt.Fprintf(out, "  spec.forProvider.vpcId            %s\n", p.VPCID)
	fmt.Fprintf(out, "  spec.forProvider.directoryArn     %s\n", p.DirectoryARN)
	fmt.Fprintf(out, "  status.atProvider.subnetId        %s\n", s.Status.AtProvider.SubnetID)
	fmt.Fprintf(out, "  status.atProvider.credentialsReceived %t (the password, and nothing derived from it, is not on the object)\n", s.Status.AtProvider.CredentialsReceived)
	for _, t := range []string{extref.TypeReferencesResolved, conditions.TypeReady} {
		if c := conditions.Get(s.Status.Conditions, t); c != nil {
			fmt.Fprintf(out, "  %-18s %s %s: %s\n", t, c.Status, c.Reason, c.Message)
		}
	}
}
