package conformance

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlkit/ctrlkit/directstatus"
	"github.com/ctrlkit/ctrlkit/examples/composite/core"
	compositecrds "github.com/ctrlkit/ctrlkit/examples/composite/crds"
	compositev1alpha1 "github.com/ctrlkit/ctrlkit/examples/composite/v1alpha1"
	"github.com/ctrlkit/ctrlkit/examples/direct/cloudapi"
	directcontroller "github.com/ctrlkit/ctrlkit/examples/direct/controller"
	directcrds "github.com/ctrlkit/ctrlkit/examples/direct/crds"
	directv1alpha1 "github.com/ctrlkit/ctrlkit/examples/direct/v1alpha1"
	extrefcontroller "github.com/ctrlkit/ctrlkit/examples/extref/controller"
	extrefcrds "github.com/ctrlkit/ctrlkit/examples/extref/crds"
	extrefv1alpha1 "github.com/ctrlkit/ctrlkit/examples/extref/v1alpha1"
	healthcontrollers "github.com/ctrlkit/ctrlkit/examples/healthscope/controllers"
	healthcrds "github.com/ctrlkit/ctrlkit/examples/healthscope/crds"
	healthv1alpha1 "github.com/ctrlkit/ctrlkit/examples/healthscope/v1alpha1"
	"github.com/ctrlkit/ctrlkit/internal/testenv"
	"github.com/ctrlkit/ctrlkit/nop"
	"github.com/ctrlkit/ctrlkit/nop/crds"
	nopv1alpha1 "github.com/ctrlkit/ctrlkit/nop/v1alpha1"
	"github.com/ctrlkit/ctrlkit/results"
	fnv1 "github.com/ctrlkit/ctrlkit/results/proto/crossplane/v1"
	"github.com/ctrlkit/ctrlkit/results/response"
)

func TestMain(m *testing.M) {
	log.SetLogger(logr.Discard())
	testenv.Main(m,
		testenv.CRDs(crds.FS, extrefcrds.FS, healthcrds.FS, compositecrds.FS, directcrds.FS),
		testenv.WithScheme(nopv1alpha1.AddToScheme, extrefv1alpha1.AddToScheme, healthv1alpha1.AddToScheme, compositev1alpha1.AddToScheme, directv1alpha1.AddToScheme),
	)
}

// startControllers runs every kind's controllers until the returned
// function is called.
func startControllers(t *testing.T, env *testenv.Env) (stop func()) {
	t.Helper()
	mgr, err := manager.New(env.Config, env.ManagerOptions())
	if err != nil {
		t.Fatal(err)
	}
	if err := nop.Setup(mgr, nop.Options{MaxConcurrentReconciles: 4}); err != nil {
		t.Fatal(err)
	}
	if err := extrefcontroller.Setup(mgr, extrefcontroller.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := healthcontrollers.Setup(mgr, healthcontrollers.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := core.Setup(mgr, core.Options{Pipeline: core.Pipeline{{Name: "health", Function: core.FunctionFunc(compose)}}}); err != nil {
		t.Fatal(err)
	}
	datasets := &directcontroller.Reconciler{
		Client: mgr.GetClient(),
		Cloud:  &cloudapi.Client{BaseURL: cloud(t).URL(), Project: "health"},
		Status: directstatus.NewWriter(mgr.GetClient(), directstatus.ReadFrom(mgr.GetAPIReader())),
	}
	if err := datasets.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	return testenv.StartManager(t, mgr)
}

const nopReady = `spec:
  forProvider:
    conditionAfter:
    - {conditionType: Ready, conditionStatus: "True", time: 0s}
`

var nopKind = kind{
	script: "ctrlkit.lua",
	ready:  nopReady,
	working: `spec:
  forProvider:
    conditionAfter:
    - {conditionType: Ready, conditionStatus: "True", time: 1h}
`,
	notReady: `spec:
  forProvider:
    conditionAfter:
    - {conditionType: Ready, conditionStatus: "False", time: 0s}
`,
	edit: `{spec: {forProvider: {patchReceiverField: edited}}}`,
	// A schedule whose status would be too large to store.
	invalid:    "spec: {forProvider: {conditionAfter: [" + hugeSchedule() + "]}}",
	breakPatch: "{spec: {forProvider: {conditionAfter: [" + hugeSchedule() + "]}}}",
}

// hugeSchedule is a schedule of 70 conditions with 8,000-byte messages: a
// status of about 560 KiB, more than nop.MaxStatusBytes.
func hugeSchedule() string {
	entries := make([]string, 70)
	for i := range entries {
		entries[i] = fmt.Sprintf(`{conditionType: T%02d, conditionStatus: "True", time: 0s, conditionMessage: %s}`, i, strings.Repeat("x", 8000))
	}
	return strings.Join(entries, ", ")
}

var kinds = append([]kind{
	vpcKind,
	subnetKind,
	healthScopeKind,
	applicationKind,
	xappKind,
	appKind,
	datasetKind,
}, nopKinds...)

var nopKinds = []kind{
	func() kind {
		k := nopKind
		k.name, k.apiVersion, k.namespaced = "NopResource", "nop.ctrlkit.dev/v1alpha1", true
		return k
	}(),
	func() kind {
		k := nopKind
		k.name, k.apiVersion = "ClusterNopResource", "nop.ctrlkit.dev/v1alpha1"
		return k
	}(),
}

// The extref example's kinds: a VPC, which is Ready at once, and a Subnet,
// which reads the VPC.
var (
	vpcKind = kind{
		name: "VPC", apiVersion: "example.extref.ctrlkit.dev/v1alpha1", script: "ctrlkit.lua",
		ready: `spec: {forProvider: {cidrBlock: 10.1.0.0/16}}`,
		edit:  `{spec: {forProvider: {cidrBlock: 10.2.0.0/16}}}`,
	}
	subnetKind = kind{
		name: "Subnet", apiVersion: "example.extref.ctrlkit.dev/v1alpha1", script: "ctrlkit.lua",
		deps: `apiVersion: example.extref.ctrlkit.dev/v1alpha1
kind: VPC
metadata: {name: health-vpc}
spec: {forProvider: {cidrBlock: 10.3.0.0/16}}
`,
		ready: subnetOf("health-vpc"),
		// The VPC it reads does not exist: the controller waits for it.
		working: subnetOf("no-such-vpc"),
		edit:    `{spec: {forProvider: {region: eu-west-1}}}`,
		// A read the example's source policy denies.
		invalid: `spec:
  forProvider: {region: us-east-1}
  externalValues:
  - fromObject: {version: v1, resource: secrets, name: other, namespace: default, fieldPath: data.x}
    toFieldPath: spec.cidrBlock
`,
		// A region of "" leaves the Subnet without a value it needs.
		breakPatch: `{spec: {forProvider: {region: ""}}}`,
	}
)

func subnetOf(vpc string) string {
	return `spec:
  forProvider: {region: us-east-1}
  externalValues:
  - fromObject: {group: example.extref.ctrlkit.dev, version: v1alpha1, resource: vpcs, name: ` + vpc + `, fieldPath: spec.forProvider.cidrBlock}
    toFieldPath: spec.cidrBlock
  - fromObject: {group: example.extref.ctrlkit.dev, version: v1alpha1, resource: vpcs, name: ` + vpc + `, fieldPath: status.atProvider.vpcId}
    toFieldPath: spec.forProvider.vpcId
`
}

// The healthscope example's kinds. A workload with no replicas is healthy
// without a kube-controller-manager; one with a replica never is.
var (
	healthScopeKind = kind{
		name: "HealthScope", apiVersion: "healthscope.example.ctrlkit.dev/v1alpha1", namespaced: true, script: "ctrlkit.lua",
		deps:  statefulSet("zero", 0) + "---\n" + statefulSet("zero-2", 0) + "---\n" + statefulSet("one", 1),
		ready: `spec: {workloadRefs: [{apiVersion: apps/v1, kind: StatefulSet, name: zero}]}`,
		// No workloads: the scope's health is unknown until it has some.
		working:  `spec: {}`,
		notReady: `spec: {workloadRefs: [{apiVersion: apps/v1, kind: StatefulSet, name: one}]}`,
		edit:     `{spec: {workloadRefs: [{apiVersion: apps/v1, kind: StatefulSet, name: zero}, {apiVersion: apps/v1, kind: StatefulSet, name: zero-2}]}}`,
	}
	applicationKind = kind{
		name: "Application", apiVersion: "healthscope.example.ctrlkit.dev/v1alpha1", namespaced: true, script: "ctrlkit.lua",
		ready: "spec: {components: [" + component("$NAME", "") + "]}",
		// A scope that does not exist (yet): the controller retries.
		working: "spec: {components: [" + component("$NAME", "no-such-scope") + "]}",
		edit:    "{spec: {components: [" + component("$NAME", "") + ", " + component("$NAME-2", "") + "]}}",
		// A workload the API server refuses (a StatefulSet needs a selector).
		invalid:    "spec: {components: [" + badComponent("$NAME") + "]}",
		breakPatch: "{spec: {components: [" + component("$NAME", "") + ", " + badComponent("$NAME-bad") + "]}}",
	}
)

func statefulSet(name string, replicas int) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: StatefulSet
metadata: {name: %s}
spec:
  replicas: %d
  serviceName: %s
  selector: {matchLabels: {app: %s}}
  template:
    metadata: {labels: {app: %s}}
    spec: {containers: [{name: c, image: "registry.k8s.io/pause:3.10"}]}
`, name, replicas, name, name, name)
}

// component is an Application component whose workload is a StatefulSet with
// no replicas, in scope when scope is not empty.
func component(name, scope string) string {
	c := fmt.Sprintf(`{name: %s, workload: {apiVersion: apps/v1, kind: StatefulSet, metadata: {name: %s}, spec: {replicas: 0, serviceName: %s, selector: {matchLabels: {app: %s}}, template: {metadata: {labels: {app: %s}}, spec: {containers: [{name: c, image: "registry.k8s.io/pause:3.10"}]}}}}}`, name, name, name, name, name)
	if scope != "" {
		c = strings.TrimSuffix(c, "}") + fmt.Sprintf(`, scopes: [{scopeRef: {apiVersion: healthscope.example.ctrlkit.dev/v1alpha1, kind: HealthScope, name: %s}}]}`, scope)
	}
	return c
}

func badComponent(name string) string {
	return fmt.Sprintf(`{name: %s, workload: {apiVersion: apps/v1, kind: StatefulSet, metadata: {name: %s}, spec: {replicas: 0}}}`, name, name)
}

// The composite example's kinds, composed by compose: its image decides what
// the function says.
var (
	xappKind = kind{
		name: "XApp", apiVersion: "example.ctrlkit.dev/v1alpha1", script: "ctrlkit.lua",
		ready:      `spec: {database: db, image: ready}`,
		working:    `spec: {database: db, image: pending}`,
		notReady:   `spec: {database: db, image: creating}`,
		edit:       `{spec: {image: ready-2}}`,
		invalid:    `spec: {database: db, image: invalid}`,
		breakPatch: `{spec: {image: invalid}}`,
	}
	appKind = func() kind {
		k := xappKind
		k.name, k.namespaced = "App", true
		return k
	}()
)

// compose is a composition function whose answer depends on the XApp's
// image: "ready…" is available, "creating" is not yet, "pending" leaves it
// unknown, and "invalid" is refused with a fatal result.
func compose(_ context.Context, req *core.Request) (*core.Response, error) {
	image, _, _ := unstructured.NestedString(req.Composite.Object, "spec", "image")
	rsp := &fnv1.RunFunctionResponse{}
	switch {
	case strings.HasPrefix(image, "ready"):
		response.ConditionTrue(rsp, "AppReady", "Available").TargetCompositeAndClaim()
	case image == "creating":
		response.ConditionFalse(rsp, "AppReady", "Creating").WithMessage("The application is being created.").TargetCompositeAndClaim()
	case image == "pending":
		response.ConditionUnknown(rsp, "AppReady", "Pending").WithMessage("The platform has not answered yet.").TargetCompositeAndClaim()
	default:
		response.Fatal(rsp, fmt.Errorf("image %q is not a valid reference", image))
		response.ConditionFalse(rsp, "AppReady", "InvalidImage").TargetCompositeAndClaim()
	}
	return &core.Response{Results: results.FromCrossplane(rsp)}, nil
}

// The direct example's Dataset, on a fake cloud shared by both runs of the
// controllers. The cloud refuses a table expiration under an hour.
var datasetKind = kind{
	name: "Dataset", apiVersion: "examples.ctrlkit.dev/v1alpha1", namespaced: true, script: "ctrlkit.lua",
	ready:      `spec: {description: d, location: US}`,
	edit:       `{spec: {description: d2}}`,
	invalid:    `spec: {location: US, defaultTableExpirationMs: 1000}`,
	breakPatch: `{spec: {defaultTableExpirationMs: 1000}}`,
}

var theCloud struct {
	once sync.Once
	s    *cloudapi.Server
	err  error
}

func cloud(t *testing.T) *cloudapi.Server {
	theCloud.once.Do(func() { theCloud.s, theCloud.err = cloudapi.NewServer(0) })
	if theCloud.err != nil {
		t.Fatal(theCloud.err)
	}
	return theCloud.s
}
