package core

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ctrlkit/ctrlkit/results"
	resultsv1 "github.com/ctrlkit/ctrlkit/results/proto/v1"
)

func TestPipelineRun(t *testing.T) {
	obj := func(name string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{}}
		u.SetName(name)
		return u
	}
	step := func(name string, rs []*resultsv1.Result, desired map[string]*unstructured.Unstructured, err error, ready ...string) Step {
		return Step{Name: name, Function: FunctionFunc(func(_ context.Context, req *Request) (*Response, error) {
			if err != nil {
				return nil, err
			}
			d := req.Desired
			for k, v := range desired {
				d[k] = v
			}
			return &Response{Results: &resultsv1.Response{Results: rs}, Desired: d, Ready: ready}, nil
		})}
	}
	normal := results.Normal("one").Build()
	fatal := results.Fatal(errors.New("boom")).Build()
	inStep := func(r *resultsv1.Result, name string) *resultsv1.Result {
		r = proto.CloneOf(r)
		r.Step = name
		return r
	}
	cases := map[string]struct {
		reason      string
		p           Pipeline
		wantResults []*resultsv1.Result
		wantDesired []string
		wantReady   []string
	}{
		"Accumulates": {
			reason:      "Results are concatenated in step order, each naming its step; desired resources accumulate, and so do the ready marks of those still desired.",
			p:           Pipeline{step("a", []*resultsv1.Result{normal}, map[string]*unstructured.Unstructured{"x": obj("x")}, nil, "x", "gone"), step("b", []*resultsv1.Result{normal}, map[string]*unstructured.Unstructured{"y": obj("y")}, nil)},
			wantResults: []*resultsv1.Result{inStep(normal, "a"), inStep(normal, "b")},
			wantDesired: []string{"x", "y"},
			wantReady:   []string{"x"},
		},
		"FatalStops": {
			reason:      "A fatal result ends the pipeline; nothing is desired.",
			p:           Pipeline{step("a", []*resultsv1.Result{fatal, normal}, nil, nil), step("b", []*resultsv1.Result{normal}, nil, nil)},
			wantResults: []*resultsv1.Result{inStep(fatal, "a"), inStep(normal, "a")},
		},
		"ErrorIsFatal": {
			reason: "A step that cannot run becomes a fatal result for the XR alone.",
			p:      Pipeline{step("a", []*resultsv1.Result{normal}, nil, nil), step("broken", nil, nil, errors.New("out of memory"))},
			wantResults: []*resultsv1.Result{inStep(normal, "a"),
				inStep(results.Fatal(errors.New(`cannot run the function: out of memory`)).Build(), "broken")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			rsp, desired, ready := tc.p.Run(t.Context(), obj("xr"), nil)
			if diff := cmp.Diff(tc.wantResults, rsp.GetResults(), protocmp.Transform()); diff != "" {
				t.Errorf("%s\nresults: -want, +got:\n%s", tc.reason, diff)
			}
			var got []string
			for k := range desired {
				got = append(got, k)
			}
			if diff := cmp.Diff(tc.wantDesired, got, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("%s\ndesired: -want, +got:\n%s", tc.reason, diff)
			}
			if diff := cmp.Diff(tc.wantReady, ready); diff != "" {
				t.Errorf("%s\nready: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
