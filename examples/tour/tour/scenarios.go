package tour

import (
	"context"
	"errors"
	"fmt"
	"strings"

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/examples/composite/core"
	compositedemo "github.com/ctrlkit/ctrlkit/examples/composite/demo"
	"github.com/ctrlkit/ctrlkit/examples/composite/function"
	compositev1alpha1 "github.com/ctrlkit/ctrlkit/examples/composite/v1alpha1"
	directdemo "github.com/ctrlkit/ctrlkit/examples/direct/demo"
	extrefdemo "github.com/ctrlkit/ctrlkit/examples/extref/demo"
	extrefv1alpha1 "github.com/ctrlkit/ctrlkit/examples/extref/v1alpha1"
	healthdemo "github.com/ctrlkit/ctrlkit/examples/healthscope/demo"
	healthv1alpha1 "github.com/ctrlkit/ctrlkit/examples/healthscope/v1alpha1"
	nopv1alpha1 "github.com/ctrlkit/ctrlkit/nop/v1alpha1"
	"github.com/ctrlkit/ctrlkit/results"
	resultsv1 "github.com/ctrlkit/ctrlkit/results/proto/v1"
)

// LabelComposition on an XApp picks the tour's composition of three
// NopResources instead of the composite example's function.
const LabelComposition = "tour.ctrlkit.dev/composition"

// Namespace holds the tour's namespaced objects, apart from the examples',
// which use "default", so that the tour and the examples share a cluster.
// The tour creates it and leaves it: without kube-controller-manager a
// deleted namespace never goes away.
const Namespace = "ctrlkit-tour"

// The nop scenario's objects.
const (
	nopXR       = "tour-nops"
	nopCount    = 3
	typeNops    = "NopsReady"
	claimName   = "shop"
	brokenClaim = "billing"
	// nopCoolField is the nop XApp's spec.image, which the composition
	// patches into each NopResource's patchReceiverField.
	nopCoolField = "cool-value"
)

// dispatch runs the tour's NopResource composition for XApps labelled
// LabelComposition=nops and the composite example's function for the others.
type dispatch struct{ app core.Function }

func (d dispatch) RunFunction(ctx context.Context, req *core.Request) (*core.Response, error) {
	if req.Composite.GetLabels()[LabelComposition] == "nops" {
		return composeNops(req), nil
	}
	return d.app.RunFunction(ctx, req)
}

// composeNops composes three NopResources that become Ready after 3 s, and
// reports NopsReady (so Ready) once all three are. It patches the XR's
// spec.image into each one's spec.forProvider.patchReceiverField, as a
// Crossplane FromCompositeFieldPath patch does (the provider-nop design's
// patchReceiverField scenario).
func composeNops(req *core.Request) *core.Response {
	desired := map[string]*unstructured.Unstructured{}
	cool, _, _ := unstructured.NestedString(req.Composite.Object, "spec", "image")
	ready := 0
	for i := range nopCount {
		name := fmt.Sprintf("nop-%d", i)
		desired[name] = &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": nopv1alpha1.GroupVersion.String(),
			"kind":       nopv1alpha1.NopResourceKind,
			"metadata":   map[string]any{"namespace": Namespace, "name": fmt.Sprintf("%s-%d", req.Composite.GetName(), i)},
			"spec": map[string]any{"forProvider": map[string]any{"conditionAfter": []any{
				map[string]any{"time": "0s", "conditionType": "Ready", "conditionStatus": "False"},
				map[string]any{"time": "3s", "conditionType": "Ready", "conditionStatus": "True"},
			}, "patchReceiverField": cool}},
		}}
		if o := req.Observed[name]; o != nil {
			if cs, err := conditions.FromUnstructured(o); err == nil && conditions.IsTrue(cs, conditions.TypeReady) {
				ready++
			}
		}
	}
	rsp := &resultsv1.Response{}
	if ready == nopCount {
		rsp.Results = append(rsp.Results, results.Normal("").ConditionTrue(typeNops, "Available").TargetComposite().Build())
	} else {
		rsp.Results = append(rsp.Results, results.Normalf("%d of %d NopResources are Ready.", ready, nopCount).ConditionFalse(typeNops, "Creating").TargetComposite().Build())
	}
	return &core.Response{Results: rsp, Desired: desired}
}

// playNop: an XApp composed of three NopResources.
func playNop(ctx context.Context, e *env) (string, error) {
	xr := &compositev1alpha1.XApp{
		ObjectMeta: metav1.ObjectMeta{Name: nopXR, Labels: map[string]string{LabelComposition: "nops"}},
		Spec:       compositev1alpha1.XAppSpec{AppParameters: compositev1alpha1.AppParameters{Database: "none", Image: nopCoolField}},
	}
	if err := e.c.Create(ctx, xr); err != nil && !kerrors.IsAlreadyExists(err) {
		return "", fmt.Errorf("cannot create XApp %s: %w", nopXR, err)
	}
	var xrReady Transition
	err := poll(ctx, "XApp "+nopXR+" Ready", func(context.Context) (bool, error) {
		var i int
		xrReady, i = find(e.timeline.History("XApp", nopXR), 0, conditions.TypeReady, metav1.ConditionTrue, "")
		return i >= 0, nil
	})
	if err != nil {
		return "", err
	}
	var last Transition
	var ages []string
	for i := range nopCount {
		name := fmt.Sprintf("%s/%s-%d", Namespace, nopXR, i)
		t, idx := find(e.timeline.History("NopResource", name), 0, conditions.TypeReady, metav1.ConditionTrue, "")
		if idx < 0 {
			return "", fmt.Errorf("NopResource %s was never seen Ready", name)
		}
		n := &nopv1alpha1.NopResource{}
		if err := e.c.Get(ctx, client.ObjectKey{Namespace: Namespace, Name: fmt.Sprintf("%s-%d", nopXR, i)}, n); err != nil {
			return "", err
		}
		ages = append(ages, fmt.Sprintf("%.1fs", t.Seen.Sub(n.CreationTimestamp.Time).Seconds()))
		if got := n.Status.AtProvider.PatchReceiverField; got != nopCoolField {
			return "", fmt.Errorf("NopResource %s: status.atProvider.patchReceiverField is %q, want the XApp's spec.image %q", name, got, nopCoolField)
		}
		if t.Seen.After(last.Seen) {
			last = t
		}
	}
	observed := fmt.Sprintf("NopResources Ready at ages %s, the XApp's spec.image patched into their patchReceiverField; XApp Ready %dms after the last", strings.Join(ages, ", "), xrReady.Seen.Sub(last.Seen).Milliseconds())
	if xrReady.Seen.Before(last.Seen) {
		return observed, errors.New("the XApp was Ready before all its NopResources")
	}
	return observed, nil
}

// playClaim: the composite example's demo (Image Not Found, Progressing,
// Success), then a claim whose database lookup fails inside the platform.
func playClaim(ctx context.Context, e *env) (string, error) {
	if err := compositedemo.Run(ctx, e.c, e.transcript, compositedemo.Options{Namespace: Namespace, Name: claimName, SimulateRollout: e.simulate}); err != nil {
		return "", err
	}
	h := e.timeline.History("App", Namespace+"/"+claimName)
	_, i := find(h, 0, function.TypeImageReady, metav1.ConditionFalse, function.ReasonNotFound)
	_, j := find(h, i, function.TypeAppReady, metav1.ConditionFalse, function.ReasonCreating)
	_, k := find(h, j, conditions.TypeReady, metav1.ConditionTrue, "")
	if i < 0 || j < 0 || k < 0 {
		return "", fmt.Errorf("the claim's transitions were not NotFound, Creating, Ready in order (%d, %d, %d)", i, j, k)
	}
	observed := "claim NotFound -> Creating -> Ready;"

	e.platform.AddDatabase(brokenClaim, function.Database{Host: "billing.db.internal"}).
		FailDatabase(brokenClaim, errors.New("the database catalog at catalog.internal:443 is unreachable"))
	app := &compositev1alpha1.App{
		ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: brokenClaim},
		Spec:       compositev1alpha1.AppSpec{AppParameters: compositev1alpha1.AppParameters{Database: brokenClaim, Image: compositedemo.ImageGood}},
	}
	if err := e.c.Create(ctx, app); err != nil && !kerrors.IsAlreadyExists(err) {
		return observed, fmt.Errorf("cannot create App %s: %w", brokenClaim, err)
	}
	var onClaim, onXR Transition
	err := poll(ctx, "the internal error on the claim and the XApp", func(context.Context) (bool, error) {
		var a, b int
		onClaim, a = find(e.timeline.History("App", Namespace+"/"+brokenClaim), 0, function.TypeDatabaseReady, metav1.ConditionFalse, function.ReasonInternalError)
		claim := &compositev1alpha1.App{}
		if err := e.c.Get(ctx, client.ObjectKeyFromObject(app), claim); err != nil {
			return false, client.IgnoreNotFound(err)
		}
		onXR, b = find(e.timeline.History("XApp", core.CompositeName(claim)), 0, conditions.TypeSynced, metav1.ConditionFalse, "")
		return a >= 0 && b >= 0, nil
	})
	if err != nil {
		return observed, err
	}
	observed += fmt.Sprintf(" internal error: XR Synced says %q, claim DatabaseReady says %q", onXR.Condition.Message, onClaim.Condition.Message)
	if onClaim.Condition.Message != function.MessageInternalError || !strings.Contains(onXR.Condition.Message, "unreachable") {
		return observed, errors.New("the internal error's messages are not detailed on the XR and friendly on the claim")
	}
	return observed, nil
}

// playScope: the healthscope example's demo.
func playScope(ctx context.Context, e *env) (string, error) {
	if err := healthdemo.Run(ctx, e.c, e.transcript, healthdemo.Options{Namespace: Namespace, Simulate: e.simulate}); err != nil {
		return "", err
	}
	s := &healthv1alpha1.HealthScope{}
	if err := e.c.Get(ctx, client.ObjectKey{Namespace: Namespace, Name: healthdemo.ScopeName}, s); err != nil {
		return "", err
	}
	var names []string
	for _, r := range s.Spec.WorkloadRefs {
		names = append(names, r.Kind+"/"+r.Name)
	}
	h := s.Status.ScopeHealthCondition
	observed := fmt.Sprintf("spec.workloadRefs: %s; %s, %d/%d healthy", strings.Join(names, ", "), h.HealthStatus, h.HealthyWorkloads, h.Total)
	if len(names) != 2 || h.HealthStatus != healthv1alpha1.StatusHealthy || h.HealthyWorkloads != 2 {
		return observed, errors.New("the scope does not hold two healthy workloads")
	}
	return observed, nil
}

// playExtref: the extref example's demo.
func playExtref(ctx context.Context, e *env) (string, error) {
	if err := extrefdemo.Run(ctx, e.c, e.transcript); err != nil {
		return "", err
	}
	s := &extrefv1alpha1.Subnet{}
	if err := e.c.Get(ctx, client.ObjectKey{Name: "main-subnet"}, s); err != nil {
		return "", err
	}
	v := &extrefv1alpha1.VPC{}
	if err := e.c.Get(ctx, client.ObjectKey{Name: "main-vpc"}, v); err != nil {
		return "", err
	}
	observed := fmt.Sprintf("cidrBlock %s (VPC %s), region %s after the ConfigMap change", s.Spec.CIDRBlock, v.Spec.ForProvider.CIDRBlock, s.Spec.ForProvider.Region)
	if s.Spec.CIDRBlock == "" || s.Spec.CIDRBlock != v.Spec.ForProvider.CIDRBlock || s.Spec.ForProvider.Region != "eu-west-1" {
		return observed, errors.New("the Subnet did not take the VPC's CIDR and the new region")
	}
	return observed, nil
}

// playDirect: the direct example's demo.
func playDirect(ctx context.Context, e *env) (string, error) {
	if err := directdemo.Run(ctx, directdemo.Options{Namespace: Namespace, Client: e.c, Cloud: e.cloud, Out: e.transcript}); err != nil {
		return "", err
	}
	h := e.timeline.History("Dataset", Namespace+"/orders")
	up, i := find(h, 0, conditions.TypeReady, metav1.ConditionFalse, "Updating")
	_, j := find(h, i, conditions.TypeReady, metav1.ConditionTrue, "UpToDate")
	fail, k := find(h, 0, conditions.TypeReady, metav1.ConditionFalse, "UpdateFailure")
	if i < 0 || j < 0 || k < 0 {
		return "", fmt.Errorf("the Dataset's Ready was not Updating, UpToDate and UpdateFailure (%d, %d, %d)", i, j, k)
	}
	observed := fmt.Sprintf("Updating %q -> UpToDate; UpdateFailure %q", up.Condition.Message, oneLine(fail.Condition.Message))
	if !strings.Contains(up.Condition.Message, "first field path") {
		return observed, errors.New("the Updating reason's message does not name the first field path")
	}
	return observed, nil
}
