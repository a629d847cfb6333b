// Package function is the composition function of the composite example: the
// fn-claim-conditions design's "Advanced Usage Example". For an XApp it checks
// that the database it names exists and may be used, that its image exists,
// and composes a Deployment of the image authenticated to the database; it
// tells the user how each step went with three conditions, on the XApp and its
// claim:
//
//   - DatabaseReady: True/Available, or False/NotFound or False/Unauthorized
//     (fatal: nothing is composed);
//   - ImageReady: True/Available, or False/NotFound (fatal);
//   - AppReady: True/Available once the Deployment is available, when the
//     function also marks it ready (Response.Ready, what Crossplane reads
//     to make the XApp Ready); False/DeploymentFailing with the
//     Deployment's message when it reports ReplicaFailure=True or
//     Progressing=False (status rules, package results/rules); else
//     False/Creating "Waiting for the deployment to be available.".
//
// An error from the platform (the database catalog or the image registry
// cannot be reached) is an internal error: a fatal result whose detailed
// message stays on the XApp while the claim says "Internal error, the
// platform team has been alerted.".
package function

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ctrlkit/ctrlkit/examples/composite/core"
	"github.com/ctrlkit/ctrlkit/results"
	fnv1 "github.com/ctrlkit/ctrlkit/results/proto/crossplane/v1"
	"github.com/ctrlkit/ctrlkit/results/response"
	"github.com/ctrlkit/ctrlkit/results/rules"
)

// Condition types and reasons the function sets.
const (
	TypeDatabaseReady = "DatabaseReady"
	TypeImageReady    = "ImageReady"
	TypeAppReady      = "AppReady"

	ReasonAvailable     = "Available"
	ReasonNotFound      = "NotFound"
	ReasonUnauthorized  = "Unauthorized"
	ReasonCreating      = "Creating"
	ReasonInternalError = "InternalError"
	// ReasonDeploymentFailing: the Deployment reports ReplicaFailure=True
	// or Progressing=False.
	ReasonDeploymentFailing = "DeploymentFailing"
)

// Messages the user sees.
const (
	MessageImageNotFound = "The image provided does not exist or you are not authorized to use it."
	MessageUnauthorized  = "You are unauthorized to access this resource."
	MessageCreating      = "Waiting for the deployment to be available."
	MessageInternalError = "Internal error, the platform team has been alerted."
	// MessageDeploymentFailing starts the message of a failing Deployment;
	// the Deployment's own message follows.
	MessageDeploymentFailing = "The deployment is failing: "
	messageDatabaseAbsent    = "The database %q does not exist."
)

// ResourceName is the deployment's name in the composition.
const ResourceName = "deployment"

// Errors a Platform returns for a database the user cannot have.
var (
	ErrNotFound     = errors.New("not found")
	ErrUnauthorized = errors.New("unauthorized")
)

// A Database is what the platform knows of an existing database.
type Database struct {
	// Host to connect to.
	Host string
	// SecretName is the Secret, in the claim's namespace, with the
	// credentials.
	SecretName string
}

// A Platform is what the function consults outside the cluster.
type Platform interface {
	// Database returns the database id for a claim in namespace, or an error
	// wrapping ErrNotFound or ErrUnauthorized; any other error is the
	// platform's fault.
	Database(ctx context.Context, namespace, id string) (Database, error)
	// ImageExists reports whether image can be pulled.
	ImageExists(ctx context.Context, image string) (bool, error)
}

// Function is the composition function. It implements core.Function.
type Function struct {
	Platform Platform
}

var _ core.Function = (*Function)(nil)

// RunFunction checks the database and the image and composes the Deployment.
func (f *Function) RunFunction(ctx context.Context, req *core.Request) (*core.Response, error) {
	xr := req.Composite
	id, _, _ := unstructured.NestedString(xr.Object, "spec", "database")
	image, _, _ := unstructured.NestedString(xr.Object, "spec", "image")
	namespace, _, _ := unstructured.NestedString(xr.Object, "spec", "claimRef", "namespace")
	name, _, _ := unstructured.NestedString(xr.Object, "spec", "claimRef", "name")
	if namespace == "" || name == "" {
		namespace, name = "default", xr.GetName()
	}
	// The results are written as with function-sdk-go, in Crossplane's
	// layout, and handed to the pipeline in package results' layout.
	rsp := &fnv1.RunFunctionResponse{}
	out := &core.Response{}
	defer func() { out.Results = results.FromCrossplane(rsp) }()

	db, err := f.Platform.Database(ctx, namespace, id)
	switch {
	case errors.Is(err, ErrNotFound):
		response.Fatal(rsp, userMessage(fmt.Sprintf(messageDatabaseAbsent, id))).ConditionFalse(TypeDatabaseReady, ReasonNotFound).TargetCompositeAndClaim()
		return out, nil
	case errors.Is(err, ErrUnauthorized):
		response.Fatal(rsp, userMessage(MessageUnauthorized)).ConditionFalse(TypeDatabaseReady, ReasonUnauthorized).TargetCompositeAndClaim()
		return out, nil
	case err != nil:
		internalError(rsp, TypeDatabaseReady, fmt.Errorf("cannot look up database %q: %w", id, err))
		return out, nil
	}
	response.ConditionTrue(rsp, TypeDatabaseReady, ReasonAvailable).TargetCompositeAndClaim()

	ok, err := f.Platform.ImageExists(ctx, image)
	switch {
	case err != nil:
		internalError(rsp, TypeImageReady, fmt.Errorf("cannot look up image %q: %w", image, err))
		return out, nil
	case !ok:
		response.Fatal(rsp, userMessage(MessageImageNotFound)).ConditionFalse(TypeImageReady, ReasonNotFound).TargetCompositeAndClaim()
		return out, nil
	}
	response.ConditionTrue(rsp, TypeImageReady, ReasonAvailable).TargetCompositeAndClaim()

	out.Desired = map[string]*unstructured.Unstructured{ResourceName: deployment(namespace, name, image, db)}
	observed := req.Observed[ResourceName]
	switch {
	case available(observed):
		out.Ready = []string{ResourceName}
		response.ConditionTrue(rsp, TypeAppReady, ReasonAvailable).TargetCompositeAndClaim()
	case observed != nil && slices.Contains(deploymentRules.Apply(rsp, rules.Observed{Resources: map[string]map[string]any{ResourceName: observed.Object}}), TypeAppReady):
		// The Deployment says why it fails; the rules told the claim.
	default:
		response.ConditionFalse(rsp, TypeAppReady, ReasonCreating).WithMessage(MessageCreating).TargetCompositeAndClaim()
	}
	return out, nil
}

// deploymentRules turn a failing Deployment's conditions into AppReady=False
// with the Deployment's own message, on the XApp and its claim, and a
// Warning event.
var deploymentRules = func() *rules.Rules {
	str := func(s string) *string { return &s }
	rs, err := rules.Compile([]rules.Hook{{
		Matchers: []rules.Matcher{{
			Type:      rules.AnyResourceMatchesAnyCondition,
			Resources: []rules.ResourceMatcher{{Name: "^" + ResourceName + "$"}},
			Conditions: []rules.ConditionMatcher{
				{Type: "ReplicaFailure", Status: str("True"), Message: str("(?P<Why>.+)")},
				{Type: "Progressing", Status: str("False"), Message: str("(?P<Why>.+)")},
			},
		}},
		SetConditions: []rules.SetCondition{{
			Target:    rules.TargetCompositeAndClaim,
			Condition: rules.Condition{Type: TypeAppReady, Status: "False", Reason: ReasonDeploymentFailing, Message: str(MessageDeploymentFailing + "{{ .Why }}")},
		}},
		CreateEvents: []rules.CreateEvent{{
			Target: rules.TargetCompositeAndClaim,
			Event:  rules.Event{Type: rules.EventTypeWarning, Reason: str(ReasonDeploymentFailing), Message: MessageDeploymentFailing + "{{ .Why }}"},
		}},
	}})
	if err != nil {
		panic(err) // the hooks above are constant
	}
	return rs
}()

// userMessage is a sentence for the user where the results API takes an
// error: it is shown as it is, capitalized and punctuated.
type userMessage string

func (m userMessage) Error() string { return string(m) }

// internalError reports err on the XR (its event and Synced) and a friendly
// message in the condition, on the XR and the claim.
func internalError(rsp *fnv1.RunFunctionResponse, conditionType string, err error) {
	response.Fatal(rsp, err)
	response.ConditionFalse(rsp, conditionType, ReasonInternalError).
		WithMessage(MessageInternalError).
		TargetCompositeAndClaim()
}

// deployment is the desired Deployment.
func deployment(namespace, name, image string, db Database) *unstructured.Unstructured {
	labels := map[string]any{"app.kubernetes.io/name": name}
	d := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1",
		"kind":       "Deployment",
		"metadata":   map[string]any{"namespace": namespace, "name": name},
		"spec": map[string]any{
			"replicas": int64(1),
			"selector": map[string]any{"matchLabels": labels},
			"template": map[string]any{
				"metadata": map[string]any{"labels": labels},
				"spec": map[string]any{
					"containers": []any{map[string]any{
						"name":  "app",
						"image": image,
						"env":   []any{map[string]any{"name": "DATABASE_HOST", "value": db.Host}},
						"envFrom": []any{map[string]any{
							"secretRef": map[string]any{"name": db.SecretName, "optional": true},
						}},
					}},
				},
			},
		},
	}}
	return d
}

// available reports whether a Deployment has an Available=True condition.
func available(d *unstructured.Unstructured) bool {
	if d == nil {
		return false
	}
	conds, _, _ := unstructured.NestedSlice(d.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Available" && m["status"] == "True" {
			return true
		}
	}
	return false
}

// StaticPlatform is a Platform held in memory, for tests and the demo. It is
// safe for concurrent use.
type StaticPlatform struct {
	mu        sync.Mutex
	databases map[string]staticDatabase
	images    []string
}

type staticDatabase struct {
	db         Database
	namespaces []string // allowed to use it; empty: all
	err        error    // the platform's error when looking it up
}

// NewStaticPlatform returns an empty StaticPlatform.
func NewStaticPlatform() *StaticPlatform {
	return &StaticPlatform{databases: map[string]staticDatabase{}}
}

// AddDatabase adds database id, usable from the given namespaces (all when
// none are given).
func (p *StaticPlatform) AddDatabase(id string, db Database, namespaces ...string) *StaticPlatform {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.databases[id] = staticDatabase{db: db, namespaces: namespaces}
	return p
}

// AddImage adds an image to the registry.
func (p *StaticPlatform) AddImage(image string) *StaticPlatform {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.images = append(p.images, image)
	return p
}

// FailDatabase makes looking up database id fail with err, as when the
// platform's catalog cannot be reached; a nil err makes it work again.
func (p *StaticPlatform) FailDatabase(id string, err error) *StaticPlatform {
	p.mu.Lock()
	defer p.mu.Unlock()
	d := p.databases[id]
	d.err = err
	p.databases[id] = d
	return p
}

// Database implements Platform.
func (p *StaticPlatform) Database(_ context.Context, namespace, id string) (Database, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	d, ok := p.databases[id]
	switch {
	case d.err != nil:
		return Database{}, d.err
	case !ok:
		return Database{}, fmt.Errorf("database %q: %w", id, ErrNotFound)
	case len(d.namespaces) > 0 && !slices.Contains(d.namespaces, namespace):
		return Database{}, fmt.Errorf("database %q from namespace %q: %w", id, namespace, ErrUnauthorized)
	}
	return d.db, nil
}

// ImageExists implements Platform.
func (p *StaticPlatform) ImageExists(_ context.Context, image string) (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Contains(p.images, image), nil
}
