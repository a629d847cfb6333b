package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/examples/composite/core"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
	"github.com/ctrlkit/ctrlkit/results"
	resultsv1 "github.com/ctrlkit/ctrlkit/results/proto/v1"
)

// What only the platform team may read: it must never reach a claim.
const (
	detailFatal   = "cannot read secret vault/db-creds: x509: certificate signed by unknown authority"
	detailNoMatch = "cannot select Composition: no compatible Compositions found"
	claimMessage  = "The database is being repaired; the platform team has been alerted."
)

// failing is a composition function whose answer depends on the XApp's
// image: "fatal-friendly" is a fatal result with a claim message,
// "fatal-internal" one for the XR alone, "compose-error" a Deployment the
// API server refuses, anything else an available application.
func failing(_ context.Context, req *core.Request) (*core.Response, error) {
	image, _, _ := unstructured.NestedString(req.Composite.Object, "spec", "image")
	ok := results.Normal("").ConditionTrue("AppReady", "Available").TargetCompositeAndClaim().Build()
	switch image {
	case "fatal-friendly":
		return &core.Response{Results: &resultsv1.Response{Results: []*resultsv1.Result{
			results.Fatal(errors.New(detailFatal)).TargetCompositeAndClaim().WithClaimMessage(claimMessage).Build(),
		}}}, nil
	case "fatal-internal":
		return &core.Response{Results: &resultsv1.Response{Results: []*resultsv1.Result{results.Fatal(errors.New(detailFatal)).Build()}}}, nil
	case "compose-error":
		d := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"namespace": "claims", "name": "Not_A_Valid_Name"},
			"spec":     map[string]any{},
		}}
		return &core.Response{Results: &resultsv1.Response{Results: []*resultsv1.Result{ok}}, Desired: map[string]*unstructured.Unstructured{"app": d}}, nil
	}
	return &core.Response{Results: &resultsv1.Response{Results: []*resultsv1.Result{ok}}}, nil
}

// writeCounter counts the writes a client makes that the API server
// accepts. (An XApp whose composed resource is refused tries to create it
// on every reconcile: that is its failure, and changes nothing.)
type writeCounter struct {
	client.Client
	n *atomic.Int64
}

func (w writeCounter) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	return w.count(w.Client.Create(ctx, obj, opts...))
}

func (w writeCounter) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	return w.count(w.Client.Update(ctx, obj, opts...))
}

func (w writeCounter) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	return w.count(w.Client.Patch(ctx, obj, patch, opts...))
}

func (w writeCounter) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	return w.count(w.Client.Delete(ctx, obj, opts...))
}

// count counts a write the API server accepted.
func (w writeCounter) count(err error) error {
	if err == nil {
		w.n.Add(1)
	}
	return err
}

func (w writeCounter) Status() client.SubResourceWriter {
	return statusCounter{w.Client.Status(), w.n}
}

type statusCounter struct {
	client.SubResourceWriter
	n *atomic.Int64
}

func (s statusCounter) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	err := s.SubResourceWriter.Update(ctx, obj, opts...)
	if err == nil {
		s.n.Add(1)
	}
	return err
}

// A claimRow is what one scenario showed on its claim.
type claimRow struct {
	scenario, when                  string
	status, reason, message, health string
	v                               verdict
}

// TestClaimFailures runs an App claim through each way its XApp can fail to
// sync, on the real API server, with the composite example's controllers
// reconciling one at a time: no matching Composition (Crossplane core's
// Synced, which the example core, with one pipeline for every XApp, cannot
// produce, written as Crossplane writes it), a fatal result with and
// without a claim message, resources the API server refuses, and then
// recovery. For each it records what the claim shows, after which
// reconcile, and what kstatus, Flux, Argo CD and kubectl wait say: failed
// within one claim reconcile of the XApp's failure, healthy once it
// recovers. The claim never shows the XApp's message, and a settled claim
// and XApp take no write. docs/health/README.md shows the table.
func TestClaimFailures(t *testing.T) {
	env := testenv.Get(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const ns = "claims"
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	writes := &atomic.Int64{}
	c := writeCounter{env.Client, writes}
	o := core.Options{Pipeline: core.Pipeline{{Name: "app", Function: core.FunctionFunc(failing)}}}
	claims := core.NewClaimReconciler(c, o)
	xrs := core.NewCompositeReconciler(c, nil, o)

	var rows []claimRow
	for _, sc := range []struct {
		name, image string
		// noMatch: Crossplane's composite reconciler, which finds no
		// Composition, writes the XApp's status instead of the example's.
		noMatch bool
		// message is what CompositeSynced on the claim must say; empty for
		// the generic sentence.
		message string
	}{
		{name: "no matching Composition", image: "ready", noMatch: true},
		{name: "fatal result without a claim message", image: "fatal-internal"},
		{name: "fatal result with a claim message", image: "fatal-friendly", message: claimMessage},
		{name: "compose error (composed resource refused)", image: "compose-error"},
	} {
		name := strings.ToLower(strings.NewReplacer(" ", "-", "(", "", ")", "").Replace(sc.name))
		if len(name) > 40 {
			name = name[:40]
		}
		name = strings.TrimRight(name, "-")
		claim := &unstructured.Unstructured{}
		claim.SetAPIVersion("example.ctrlkit.dev/v1alpha1")
		claim.SetKind("App")
		claim.SetNamespace(ns)
		claim.SetName(name)
		claim.Object["spec"] = map[string]any{"database": "db", "image": sc.image}
		if err := env.Client.Create(ctx, claim); err != nil {
			t.Fatal(err)
		}
		key := client.ObjectKeyFromObject(claim)
		reconcileClaim := func() {
			t.Helper()
			if _, err := claims.Reconcile(ctx, reconcile.Request{NamespacedName: key}); err != nil {
				t.Fatalf("%s: claim reconcile: %v", sc.name, err)
			}
		}
		xrKey := func() client.ObjectKey {
			t.Helper()
			if err := env.Client.Get(ctx, key, claim); err != nil {
				t.Fatal(err)
			}
			return client.ObjectKey{Name: core.CompositeName(claim)}
		}
		reconcileXR := func() {
			t.Helper()
			// A compose error is reported in Synced, not returned.
			if _, err := xrs.Reconcile(ctx, reconcile.Request{NamespacedName: xrKey()}); err != nil {
				t.Fatalf("%s: XApp reconcile: %v", sc.name, err)
			}
		}
		observe := func(when string, s stage) claimRow {
			t.Helper()
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(claim.GroupVersionKind())
			if err := env.Client.Get(ctx, key, u); err != nil {
				t.Fatal(err)
			}
			if b, _ := json.Marshal(u.Object["status"]); strings.Contains(string(b), "x509") || strings.Contains(string(b), "no compatible Compositions") {
				t.Errorf("%s, %s: the claim shows the XApp's message: %s", sc.name, when, b)
			}
			v, err := judge(u, "ctrlkit.lua", s.flux)
			if err != nil {
				t.Fatal(err)
			}
			conds, _ := conditions.FromUnstructured(u)
			row := claimRow{scenario: sc.name, when: when, v: v, status: "none"}
			if cs := conditions.Get(conds, conditions.TypeCompositeSynced); cs != nil {
				row.status, row.reason, row.message = string(cs.Status), cs.Reason, cs.Message
			}
			if h := conditions.Get(conds, conditions.TypeHealthy); h != nil {
				row.health = string(h.Status) + " " + h.Reason
			}
			if v != s.want {
				t.Errorf("%s, %s: tools say %s, want %s; status: %s", sc.name, when, v, s.want, statusYAML(u))
			}
			return row
		}

		// Claim reconcile 1 creates the XApp.
		reconcileClaim()
		// The XApp fails to sync in its first reconcile.
		if sc.noMatch {
			xr := &unstructured.Unstructured{}
			xr.SetGroupVersionKind(claim.GroupVersionKind().GroupVersion().WithKind("XApp"))
			if err := env.Client.Get(ctx, xrKey(), xr); err != nil {
				t.Fatal(err)
			}
			if _, err := conditions.SetUnstructured(xr, metav1.Condition{
				Type: conditions.TypeSynced, Status: metav1.ConditionFalse, Reason: "ReconcileError", Message: detailNoMatch, ObservedGeneration: xr.GetGeneration(),
			}); err != nil {
				t.Fatal(err)
			}
			if err := env.Client.Status().Update(ctx, xr); err != nil {
				t.Fatal(err)
			}
		} else {
			reconcileXR()
			// The example's XApp reconcile writes CompositeSynced on the
			// claim already; Ready and Stalled are the claim's to write.
			rows = append(rows, observe("the XApp's reconcile", stage{flux: fluxInProgress, want: inProgress}))
		}
		// The claim reconcile that follows shows it as failed.
		reconcileClaim()
		row := observe("the next claim reconcile", stage{flux: fluxFull, want: failed})
		want := sc.message
		if want == "" {
			want = fmt.Sprintf("The composite resource could not be synced. The platform team can look up XApp %s (Synced False, ReconcileError, generation 1).", xrKey().Name)
		}
		if row.status != "False" || row.reason != "ReconcileError" || row.message != want {
			t.Errorf("%s: claim CompositeSynced %s %s %q, want False ReconcileError %q", sc.name, row.status, row.reason, row.message, want)
		}
		rows = append(rows, row)

		// Settled: another reconcile of each writes nothing.
		before := writes.Load()
		if !sc.noMatch {
			reconcileXR()
		}
		reconcileClaim()
		if n := writes.Load() - before; n != 0 {
			t.Errorf("%s: settled reconciles wrote %d time(s), want none", sc.name, n)
		}

		// Recovery: the claim asks for what works (or, with no matching
		// Composition, one now matches: the example core composes it).
		patch(t, env.Client, claim, `{spec: {image: ready}}`)
		reconcileClaim()
		reconcileXR()
		reconcileClaim()
		row = observe("recovered: the next claim reconcile", stage{flux: fluxFull, want: current})
		if row.status != "True" || row.message != "" {
			t.Errorf("%s, recovered: claim CompositeSynced %s %s %q, want True without a message", sc.name, row.status, row.reason, row.message)
		}
		rows = append(rows, row)
		before = writes.Load()
		reconcileXR()
		reconcileClaim()
		if n := writes.Load() - before; n != 0 {
			t.Errorf("%s, recovered: settled reconciles wrote %d time(s), want none", sc.name, n)
		}
	}

	var b strings.Builder
	b.WriteString("| XApp | claim, after | CompositeSynced | its message | Healthy | kstatus | Flux check | Argo CD | kubectl wait --for=condition=Ready |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		msg := r.message
		switch {
		case msg == "":
		case msg == claimMessage:
			msg = "the function's claim message"
		default:
			msg = "generic, naming the XApp, reason and generation"
		}
		fmt.Fprintf(&b, "| %s | %s | %s %s | %s | %s | %s | %s | %s | %s |\n",
			r.scenario, r.when, r.status, r.reason, msg, r.health, r.v.KStatus, r.v.Flux, r.v.Argo, r.v.Wait)
	}
	syncTable(t, "../docs/health/README.md", "claim failures", b.String())
}
