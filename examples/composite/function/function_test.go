package function_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/testing/protocmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ctrlkit/ctrlkit/examples/composite/core"
	"github.com/ctrlkit/ctrlkit/examples/composite/function"
	"github.com/ctrlkit/ctrlkit/results"
	fnv1 "github.com/ctrlkit/ctrlkit/results/proto/crossplane/v1"
	"github.com/ctrlkit/ctrlkit/results/response"
)

func xapp(database, image string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.ctrlkit.dev/v1alpha1",
		"kind":       "XApp",
		"metadata":   map[string]any{"name": "team-a-shop"},
		"spec": map[string]any{
			"database": database, "image": image,
			"claimRef": map[string]any{"namespace": "team-a", "name": "shop"},
		},
	}}
}

func availableDeployment() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"status": map[string]any{"conditions": []any{map[string]any{"type": "Available", "status": "True"}}},
	}}
}

func TestRunFunction(t *testing.T) {
	errDown := errors.New("dial tcp 10.0.0.7:5432: connect: connection refused")
	platform := function.NewStaticPlatform().
		AddDatabase("orders", function.Database{Host: "orders.db", SecretName: "orders-db"}).
		AddDatabase("payroll", function.Database{Host: "payroll.db"}, "finance").
		FailDatabase("ledger", errDown).
		AddImage("nginx:1.27")
	// want builds the expected response in Crossplane's layout, as the
	// function writes it.
	want := func(add ...func(rsp *fnv1.RunFunctionResponse)) *fnv1.RunFunctionResponse {
		rsp := &fnv1.RunFunctionResponse{}
		for _, a := range add {
			a(rsp)
		}
		return rsp
	}
	dbTrue := func(rsp *fnv1.RunFunctionResponse) {
		response.ConditionTrue(rsp, "DatabaseReady", "Available").TargetCompositeAndClaim()
	}
	imageTrue := func(rsp *fnv1.RunFunctionResponse) {
		response.ConditionTrue(rsp, "ImageReady", "Available").TargetCompositeAndClaim()
	}
	fatal := func(msg, typ, reason string) func(rsp *fnv1.RunFunctionResponse) {
		return func(rsp *fnv1.RunFunctionResponse) {
			response.Fatal(rsp, errors.New(msg)).ConditionFalse(typ, reason).TargetCompositeAndClaim()
		}
	}

	cases := map[string]struct {
		reason      string
		xr          *unstructured.Unstructured
		observed    map[string]*unstructured.Unstructured
		want        *fnv1.RunFunctionResponse
		wantDesired bool
		wantReady   bool // the deployment is marked ready
	}{
		"ImageNotFound": {
			reason: "The seed's Image Not Found: the database is fine, the image is not; fatal, nothing desired.",
			xr:     xapp("orders", "nginx:nope"),
			want:   want(dbTrue, fatal(function.MessageImageNotFound, "ImageReady", "NotFound")),
		},
		"Progressing": {
			reason: "The seed's Progressing: the deployment is desired and not yet available.",
			xr:     xapp("orders", "nginx:1.27"),
			want: want(dbTrue, imageTrue, func(rsp *fnv1.RunFunctionResponse) {
				response.ConditionFalse(rsp, "AppReady", "Creating").WithMessage(function.MessageCreating).TargetCompositeAndClaim()
			}),
			wantDesired: true,
		},
		"Success": {
			reason:   "The seed's Success: the observed deployment is available.",
			xr:       xapp("orders", "nginx:1.27"),
			observed: map[string]*unstructured.Unstructured{function.ResourceName: availableDeployment()},
			want: want(dbTrue, imageTrue, func(rsp *fnv1.RunFunctionResponse) {
				response.ConditionTrue(rsp, "AppReady", "Available").TargetCompositeAndClaim()
			}),
			wantDesired: true,
			wantReady:   true,
		},
		"DeploymentFailing": {
			reason: "A Deployment that reports a failure: the status rules put its message on AppReady, for the claim, with a Warning event.",
			xr:     xapp("orders", "nginx:1.27"),
			observed: map[string]*unstructured.Unstructured{function.ResourceName: {Object: map[string]any{
				"status": map[string]any{"conditions": []any{
					map[string]any{"type": "Available", "status": "False", "reason": "MinimumReplicasUnavailable"},
					map[string]any{"type": "ReplicaFailure", "status": "True", "reason": "FailedCreate", "message": `pods "shop-1" is forbidden: exceeded quota`},
				}},
			}}},
			want: want(dbTrue, imageTrue, func(rsp *fnv1.RunFunctionResponse) {
				msg := function.MessageDeploymentFailing + `pods "shop-1" is forbidden: exceeded quota`
				response.ConditionFalse(rsp, "AppReady", "DeploymentFailing").WithMessage(msg).TargetCompositeAndClaim()
				response.Warning(rsp, errors.New(msg)).WithReason("DeploymentFailing").TargetCompositeAndClaim()
			}),
			wantDesired: true,
		},
		"DatabaseNotFound": {
			reason: "An unknown database is the user's mistake: fatal NotFound.",
			xr:     xapp("nope", "nginx:1.27"),
			want:   want(fatal(`The database "nope" does not exist.`, "DatabaseReady", "NotFound")),
		},
		"Unauthorized": {
			reason: "The seed's builder example: a database this namespace may not use.",
			xr:     xapp("payroll", "nginx:1.27"),
			want:   want(fatal(function.MessageUnauthorized, "DatabaseReady", "Unauthorized")),
		},
		"InternalError": {
			reason: "A platform failure: the detail in the fatal result, for the XR; a friendly message in the condition, for the claim.",
			xr:     xapp("ledger", "nginx:1.27"),
			want: want(func(rsp *fnv1.RunFunctionResponse) {
				response.Fatal(rsp, errors.New(`cannot look up database "ledger": `+errDown.Error()))
				response.ConditionFalse(rsp, "DatabaseReady", "InternalError").WithMessage(function.MessageInternalError).TargetCompositeAndClaim()
			}),
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := &function.Function{Platform: platform}
			rsp, err := f.RunFunction(t.Context(), &core.Request{Composite: tc.xr, Observed: tc.observed})
			require.NoError(t, err)
			if diff := cmp.Diff(tc.want, results.ToCrossplane(rsp.Results), protocmp.Transform()); diff != "" {
				t.Errorf("%s\nresponse: -want, +got:\n%s", tc.reason, diff)
			}
			wantReady := []string(nil)
			if tc.wantReady {
				wantReady = []string{function.ResourceName}
			}
			if diff := cmp.Diff(wantReady, rsp.Ready); diff != "" {
				t.Errorf("%s\nresources marked ready (Crossplane's desired Ready): -want, +got:\n%s", tc.reason, diff)
			}
			d := rsp.Desired[function.ResourceName]
			if (d != nil) != tc.wantDesired {
				t.Fatalf("%s\ndesired deployment: want %t, got %v", tc.reason, tc.wantDesired, d)
			}
			if d == nil {
				return
			}
			if d.GetNamespace() != "team-a" || d.GetName() != "shop" {
				t.Errorf("%s\ndesired deployment %s/%s: want team-a/shop", tc.reason, d.GetNamespace(), d.GetName())
			}
			containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
			want := []any{map[string]any{
				"name": "app", "image": "nginx:1.27",
				"env":     []any{map[string]any{"name": "DATABASE_HOST", "value": "orders.db"}},
				"envFrom": []any{map[string]any{"secretRef": map[string]any{"name": "orders-db", "optional": true}}},
			}}
			if diff := cmp.Diff(want, containers); diff != "" {
				t.Errorf("%s\ncontainers: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
