package extref

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

var (
	leaseKind     = schema.GroupVersionKind{Group: "coordination.k8s.io", Version: "v1", Kind: "Lease"}
	coreEventKind = schema.GroupVersionKind{Version: "v1", Kind: "Event"}
	eventKind     = schema.GroupVersionKind{Group: "events.k8s.io", Version: "v1", Kind: "Event"}
)

// coreGroupCases name a source with and without its group. An empty group
// is the core group: leases without a group are unknown, although
// coordination.k8s.io serves them, and events without a group are the core
// group's, although events.k8s.io serves them too.
var coreGroupCases = map[string]struct {
	reason  string
	source  string
	want    string // the value written, when unknown is false
	unknown bool
}{
	"LeasesWithoutGroup": {
		reason:  "An empty group is the core group, which has no leases.",
		source:  `{version: v1, resource: leases, name: l, fieldPath: spec.holderIdentity}`,
		unknown: true,
	},
	"LeasesWithGroup": {
		reason: "Leases are coordination.k8s.io's.",
		source: `{group: coordination.k8s.io, version: v1, resource: leases, name: l, fieldPath: spec.holderIdentity}`,
		want:   "holder",
	},
	"EventsWithoutGroup": {
		reason: "An empty group names the core group's events, not events.k8s.io's as well.",
		source: `{version: v1, resource: events, name: e, fieldPath: reason}`,
		want:   "Tested",
	},
	"ConfigMapsWithoutGroup": {
		reason: "A core resource is found with an empty group.",
		source: `{version: v1, resource: configmaps, name: c, fieldPath: data.x}`,
		want:   "from-configmap",
	},
}

// resolveCoreGroupCases resolves each of coreGroupCases into a Widget of
// namespace ns with a new Resolver of reader and mapper.
func resolveCoreGroupCases(t *testing.T, ns string, reader client.Reader, mapper meta.RESTMapper) {
	for name, tc := range coreGroupCases {
		t.Run(name, func(t *testing.T) {
			w := widget(t, ns, "w", "externalValues:\n- fromObject: "+tc.source+"\n  toFieldPath: spec.forProvider.region")
			_, err := NewResolver(reader, mapper, SourcePolicy{}).Resolve(context.Background(), w)
			if tc.unknown {
				if !errors.Is(err, ErrUnknownResource) {
					t.Errorf("%s\nResolve(...): want an error wrapping ErrUnknownResource, got %v", tc.reason, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s\nResolve(...): %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, str(t, w, "spec", "forProvider", "region")); diff != "" {
				t.Errorf("%s\nspec.forProvider.region: -want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}

func TestResolveEmptyGroupIsCore(t *testing.T) {
	mapper := testMapper()
	mapper.Add(leaseKind, meta.RESTScopeNamespace)
	mapper.Add(coreEventKind, meta.RESTScopeNamespace)
	mapper.Add(eventKind, meta.RESTScopeNamespace)
	reader := newReader(
		object(leaseKind, "team-a", "l", map[string]any{"spec": map[string]any{"holderIdentity": "holder"}}),
		object(coreEventKind, "team-a", "e", map[string]any{"reason": "Tested"}),
		object(eventKind, "team-a", "e", map[string]any{"reason": "WrongGroup"}),
		configMap("team-a", "c", map[string]any{"x": "from-configmap"}),
	)
	resolveCoreGroupCases(t, "team-a", reader, mapper)
}

// TestAPIServerEmptyGroupIsCore resolves the same sources against the real
// API server, through controller-runtime's mapper, which serves leases and
// events in groups other than the core group.
func TestAPIServerEmptyGroupIsCore(t *testing.T) {
	env := testenv.Get(t)
	ctx := t.Context()
	ns := env.Namespace(t, "core-group")
	for _, o := range []*unstructured.Unstructured{
		object(leaseKind, ns, "l", map[string]any{"spec": map[string]any{"holderIdentity": "holder"}}),
		object(coreEventKind, ns, "e", map[string]any{"reason": "Tested", "involvedObject": map[string]any{"kind": "ConfigMap", "namespace": ns, "name": "c"}}),
		configMap(ns, "c", map[string]any{"x": "from-configmap"}),
	} {
		require.NoError(t, env.Client.Create(ctx, o))
	}
	httpClient, err := rest.HTTPClientFor(env.Config)
	require.NoError(t, err)
	mapper, err := apiutil.NewDynamicRESTMapper(env.Config, httpClient)
	require.NoError(t, err)
	resolveCoreGroupCases(t, ns, env.Client, mapper)
}
