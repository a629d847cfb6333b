package crossplane

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// With every package runtime External, a provider's revision waits for what
// Crossplane's Deployment runtime would otherwise give it: before it
// installs the package's objects, the name of a TLS server Secret (its
// certificate is the CA bundle of the provider's webhooks, if it has any),
// and, for the provider to be Healthy, RuntimeHealthy. The runtime that runs
// the provider (here, the suite) provides both.

// SetProviderTLS creates the TLS server Secret <provider>-tls-server,
// a certificate signed by Crossplane's CA, and names it in the status of
// ProviderRevision revision.
func (x *Crossplane) SetProviderTLS(ctx context.Context, provider, revision string) error {
	secret := provider + "-tls-server"
	if err := x.issueServerCertificate(ctx, filepath.Join(x.dir, "providers", provider), secret); err != nil {
		return err
	}
	return x.updateRevisionStatus(ctx, revision, func(rev *unstructured.Unstructured) error {
		return unstructured.SetNestedField(rev.Object, secret, "status", "tlsServerSecretName")
	})
}

// SetProviderRuntimeHealthy sets RuntimeHealthy=True on ProviderRevision
// revision, as Crossplane's Deployment runtime does once the provider's
// Deployment is available.
func (x *Crossplane) SetProviderRuntimeHealthy(ctx context.Context, revision string) error {
	return x.updateRevisionStatus(ctx, revision, func(rev *unstructured.Unstructured) error {
		conds, _, _ := unstructured.NestedSlice(rev.Object, "status", "conditions")
		out := []any{map[string]any{
			"type": "RuntimeHealthy", "status": "True", "reason": "HealthyPackageRevision",
			"lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
		}}
		for _, c := range conds {
			if m, ok := c.(map[string]any); ok && m["type"] != "RuntimeHealthy" {
				out = append(out, m)
			}
		}
		return unstructured.SetNestedSlice(rev.Object, out, "status", "conditions")
	})
}

// updateRevisionStatus changes the status of ProviderRevision name with
// change, on top of the latest status the package manager wrote.
func (x *Crossplane) updateRevisionStatus(ctx context.Context, name string, change func(*unstructured.Unstructured) error) error {
	rev := &unstructured.Unstructured{}
	rev.SetAPIVersion("pkg.crossplane.io/v1")
	rev.SetKind("ProviderRevision")
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := x.client.Get(ctx, client.ObjectKey{Name: name}, rev); err != nil {
			return err
		}
		if err := change(rev); err != nil {
			return err
		}
		return x.client.Status().Update(ctx, rev)
	})
	if err != nil {
		return fmt.Errorf("cannot update the status of ProviderRevision %s: %w", name, err)
	}
	return nil
}
