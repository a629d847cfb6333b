package crossplane

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/crossplane/function-sdk-go"
	fnv1 "github.com/crossplane/function-sdk-go/proto/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ServeFunction serves fn, with function-sdk-go, as the composition function
// name: over gRPC with mTLS, its server certificate signed by Crossplane's
// CA (which also signed the client certificate Crossplane presents). It
// creates the function's active FunctionRevision, paused so that the package
// manager leaves it alone, with the status Crossplane's runtime would give
// it: the endpoint, the TLS server secret, the composition capability and
// healthy conditions. The server runs until the process ends.
func (x *Crossplane) ServeFunction(ctx context.Context, name string, fn fnv1.FunctionRunnerServiceServer) error {
	dir := filepath.Join(x.dir, "functions", name)
	secret := name + "-tls-server"
	if err := x.issueServerCertificate(ctx, dir, secret); err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	served := make(chan error, 1)
	go func() {
		served <- function.Serve(fn,
			function.Listen("tcp", addr),
			function.MTLSCertificates(dir),
			function.WithMetricsServer(""))
	}()
	for {
		if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			_ = conn.Close()
			break
		}
		select {
		case err := <-served:
			return fmt.Errorf("cannot serve function %s: %w", name, err)
		case <-ctx.Done():
			return fmt.Errorf("cannot serve function %s: %w", name, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}

	rev := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "pkg.crossplane.io/v1",
		"kind":       "FunctionRevision",
		"metadata": map[string]any{
			"name":        name + "-e2e",
			"labels":      map[string]any{"pkg.crossplane.io/package": name},
			"annotations": map[string]any{"crossplane.io/paused": "true"},
		},
		"spec": map[string]any{
			"desiredState":                "Active",
			"image":                       "e2e.ctrlkit.dev/" + name + ":v0.0.0",
			"revision":                    int64(1),
			"tlsServerSecretName":         secret,
			"ignoreCrossplaneConstraints": true,
			"skipDependencyResolution":    true,
		},
	}}
	if err := x.client.Create(ctx, rev); err != nil {
		return fmt.Errorf("cannot create FunctionRevision %s: %w", rev.GetName(), err)
	}
	now := time.Now().UTC().Format(time.RFC3339)
	cond := func(t, reason string) map[string]any {
		return map[string]any{"type": t, "status": "True", "reason": reason, "lastTransitionTime": now}
	}
	// The package manager writes the revision's status too (it is paused):
	// ours goes on top of its latest.
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := x.client.Get(ctx, client.ObjectKeyFromObject(rev), rev); err != nil {
			return err
		}
		conds, _, _ := unstructured.NestedSlice(rev.Object, "status", "conditions")
		mine := []any{
			cond("Installed", "ActivePackageRevision"),
			cond("RevisionHealthy", "HealthyPackageRevision"),
			cond("RuntimeHealthy", "HealthyPackageRevision"),
		}
		for _, c := range conds {
			if m, ok := c.(map[string]any); ok && m["type"] != "Installed" && m["type"] != "RevisionHealthy" && m["type"] != "RuntimeHealthy" {
				mine = append(mine, m)
			}
		}
		status := map[string]any{
			"endpoint":            addr,
			"tlsServerSecretName": secret,
			"capabilities":        []any{"composition"},
			"conditions":          mine,
		}
		if err := unstructured.SetNestedField(rev.Object, status, "status"); err != nil {
			return err
		}
		return x.client.Status().Update(ctx, rev)
	})
	if err != nil {
		return fmt.Errorf("cannot set the status of FunctionRevision %s: %w", rev.GetName(), err)
	}
	return nil
}

// issueServerCertificate writes tls.crt, tls.key and ca.crt into dir, a
// certificate for 127.0.0.1 signed by Crossplane's CA, and stores them in
// the Secret named secret.
func (x *Crossplane) issueServerCertificate(ctx context.Context, dir, secret string) error {
	ca := &corev1.Secret{}
	if err := x.client.Get(ctx, client.ObjectKey{Namespace: Namespace, Name: CASecret}, ca); err != nil {
		return fmt.Errorf("cannot read secret %s/%s: %w", Namespace, CASecret, err)
	}
	caCert, caKey, err := parseCA(ca.Data[corev1.TLSCertKey], ca.Data[corev1.TLSPrivateKeyKey])
	if err != nil {
		return fmt.Errorf("cannot use secret %s/%s: %w", Namespace, CASecret, err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: secret},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    time.Now().Add(-time.Minute),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		return fmt.Errorf("cannot sign a function certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	data := map[string][]byte{
		corev1.TLSCertKey:       pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		corev1.TLSPrivateKeyKey: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
		secretKeyCA:             ca.Data[corev1.TLSCertKey],
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	for k, v := range data {
		if err := os.WriteFile(filepath.Join(dir, k), v, 0o600); err != nil {
			return err
		}
	}
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: secret}, Type: corev1.SecretTypeTLS, Data: data}
	if err := x.client.Create(ctx, s); err != nil {
		return fmt.Errorf("cannot create secret %s/%s: %w", Namespace, secret, err)
	}
	return nil
}

// parseCA parses a PEM certificate and its private key (PKCS#1, PKCS#8 or
// EC).
func parseCA(certPEM, keyPEM []byte) (*x509.Certificate, any, error) {
	cb, _ := pem.Decode(certPEM)
	kb, _ := pem.Decode(keyPEM)
	if cb == nil || kb == nil {
		return nil, nil, errors.New("no PEM certificate or key")
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot parse the CA certificate: %w", err)
	}
	if k, err := x509.ParsePKCS1PrivateKey(kb.Bytes); err == nil {
		return cert, k, nil
	}
	if k, err := x509.ParsePKCS8PrivateKey(kb.Bytes); err == nil {
		return cert, k, nil
	}
	if k, err := x509.ParseECPrivateKey(kb.Bytes); err == nil {
		return cert, k, nil
	}
	return nil, nil, errors.New("cannot parse the CA key")
}
