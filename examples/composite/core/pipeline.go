package core

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"google.golang.org/protobuf/proto"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ctrlkit/ctrlkit/results"
	resultsv1 "github.com/ctrlkit/ctrlkit/results/proto/v1"
)

// A Request is what a composition function is given.
type Request struct {
	// Composite is the observed composite resource (XR). Read it; do not
	// change it.
	Composite *unstructured.Unstructured

	// Observed are the composed resources that exist, by their name in the
	// composition (see AnnotationResourceName).
	Observed map[string]*unstructured.Unstructured

	// Desired are the composed resources the earlier steps of the pipeline
	// want, by name.
	Desired map[string]*unstructured.Unstructured
}

// A Response is what a composition function returns.
type Response struct {
	// Results tell the user what happened (see package results).
	Results *resultsv1.Response

	// Desired are the composed resources the pipeline wants after this step,
	// by name: the request's Desired with this step's changes. Nil keeps the
	// request's.
	Desired map[string]*unstructured.Unstructured
	// Ready names the desired composed resources this step reports ready,
	// as a Crossplane function sets a desired resource's Ready field:
	// Crossplane makes an XR Ready only once the function has marked every
	// composed resource ready. This core summarizes Ready from the
	// results' conditions instead (docs/design/results.md).
	Ready []string
}

// A Function is one step of a composition pipeline, run in process. An error
// means the function could not run at all; the pipeline turns it into a
// fatal result for the XR alone. Problems the user should see are results.
type Function interface {
	RunFunction(ctx context.Context, req *Request) (*Response, error)
}

// FunctionFunc adapts a function to the Function interface.
type FunctionFunc func(ctx context.Context, req *Request) (*Response, error)

// RunFunction calls f.
func (f FunctionFunc) RunFunction(ctx context.Context, req *Request) (*Response, error) {
	return f(ctx, req)
}

// A Step is a named Function in a Pipeline.
type Step struct {
	Name     string
	Function Function
}

// A Pipeline runs its steps in order, as Crossplane runs a composition's
// functions.
type Pipeline []Step

// Run runs the pipeline for xr and returns the results of every step that
// ran, in order, the desired composed resources, and those of them a step
// marked ready (Response.Ready). It stops after a step that returns a fatal
// result or an error: the results of that step are kept, the later steps do
// not run, and desired and ready are nil (nothing should be composed from a
// failed run).
func (p Pipeline) Run(ctx context.Context, xr *unstructured.Unstructured, observed map[string]*unstructured.Unstructured) (rsp *resultsv1.Response, desired map[string]*unstructured.Unstructured, ready []string) {
	rsp = &resultsv1.Response{}
	desired = map[string]*unstructured.Unstructured{}
	marked := map[string]bool{}
	for _, s := range p {
		req := &Request{Composite: xr.DeepCopy(), Observed: observed, Desired: maps.Clone(desired)}
		out, err := s.Function.RunFunction(ctx, req)
		if err != nil {
			r := results.Fatal(fmt.Errorf("cannot run the function: %w", err)).Build()
			r.Step = s.Name
			rsp.Results = append(rsp.Results, r)
			return rsp, nil, nil
		}
		if out == nil {
			continue
		}
		fatal := false
		for _, r := range out.Results.GetResults() {
			if r.GetStep() == "" {
				r = proto.CloneOf(r)
				r.Step = s.Name // events name the step, as Crossplane's do
			}
			rsp.Results = append(rsp.Results, r)
			fatal = fatal || r.GetSeverity() == resultsv1.Severity_SEVERITY_FATAL
		}
		rsp.Conditions = append(rsp.Conditions, out.Results.GetConditions()...)
		if fatal {
			return rsp, nil, nil
		}
		if out.Desired != nil {
			desired = out.Desired
		}
		for _, name := range out.Ready {
			marked[name] = true
		}
	}
	for name := range desired {
		if marked[name] {
			ready = append(ready, name)
		}
	}
	slices.Sort(ready)
	return rsp, desired, ready
}
