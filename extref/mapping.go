package extref

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// maxMappings bounds the mapping, miss, target and synced-kind caches,
// which drop the answers used least recently.
const maxMappings = 1024

// A mapping is what the RESTMapper says of a resource a source names: its
// kind, scope and canonical name, or why it cannot map it.
type mapping struct {
	gvk schema.GroupVersionKind
	// apiVersion and kind are gvk's, made once as the values of the
	// object that a read fills.
	apiVersion, kind any
	namespaced       bool
	// resource is the canonical (plural, lower-case) resource the mapper
	// maps the one written to: "secrets" for "secret", "Secrets" or
	// "SECRET". The policy, the access review, the watch and messages use
	// it, so that a spelling cannot pass for another resource.
	resource schema.GroupResource
	err      error
}

// mapping maps a resource to its kind and scope, refreshing a resettable
// mapper once when it knows no such resource.
func (rs *resolution) mapping(gvr schema.GroupVersionResource) mapping {
	if m, ok := rs.mappings.get(gvr); ok {
		return m
	}
	m := rs.r.mapResource(gvr)
	rs.mappings.add(gvr, m)
	return m
}

// forget drops a cached mapping.
func (r *Resolver) forget(gvr schema.GroupVersionResource) {
	r.mappings.remove(gvr)
}

func (r *Resolver) lookup(gvr schema.GroupVersionResource) mapping {
	gvk, err := r.kindFor(gvr)
	if meta.IsNoMatchError(err) {
		if rm, ok := r.mapper.(meta.ResettableRESTMapper); ok {
			rm.Reset()
			gvk, err = r.kindFor(gvr)
		}
	}
	if err != nil {
		return mapping{err: mappingError(gvr, err)}
	}
	rm, err := r.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return mapping{err: mappingError(gvr, err)}
	}
	resource := rm.Resource.GroupResource()
	if resource.Resource == "" {
		return mapping{err: fmt.Errorf("cannot map resource %s: the RESTMapper gives no resource for %s", gvr.GroupResource(), gvk)}
	}
	return mapping{gvk: gvk, apiVersion: gvk.GroupVersion().String(), kind: gvk.Kind, namespaced: rm.Scope.Name() == meta.RESTScopeNameNamespace, resource: resource}
}

// kindFor maps a resource to its kind. An empty group is the core group,
// as in the API and in Kubernetes' conventions, whereas a RESTMapper takes
// it for any group (leases would be coordination.k8s.io's).
func (r *Resolver) kindFor(gvr schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	if gvr.Group != "" {
		return r.mapper.KindFor(gvr)
	}
	gvks, err := r.mapper.KindsFor(gvr)
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	for _, gvk := range gvks {
		if gvk.Group == "" {
			return gvk, nil
		}
	}
	return schema.GroupVersionKind{}, &meta.NoResourceMatchError{PartialResource: gvr}
}

func mappingError(gvr schema.GroupVersionResource, err error) error {
	var amb *meta.AmbiguousResourceError
	if meta.IsNoMatchError(err) || errors.As(err, &amb) {
		return fmt.Errorf("%w %s: %w", ErrUnknownResource, gvr.GroupResource(), err)
	}
	return fmt.Errorf("cannot map resource %s: %w", gvr.GroupResource(), err)
}

// A referencer names any resource it likes, and asking the RESTMapper about
// a resource it has not mapped may cost discovery requests: for a group it
// does not know, controller-runtime's mapper reads the whole of discovery,
// under a lock every client of the manager shares. So the lookups that miss
// the mapping cache are limited, for all referencers of a Resolver together,
// and an answer that a resource is unknown is kept and reused.
const (
	// lookupRate and lookupBurst bound the mapper lookups per second.
	lookupRate  = 2
	lookupBurst = 20

	// missFresh is how long an unknown resource's answer is reused without
	// asking the mapper again. Past it, the mapper is asked again only
	// while more than half of the lookup budget is left, so that
	// re-asking about resources that stay unknown cannot take the whole
	// budget from resources never looked up.
	missFresh = time.Second
)

// errLookupsLimited is why a resource was not mapped: too many lookups came
// at once. It is transient: the reconciler retries with backoff.
var errLookupsLimited = errors.New("too many lookups of resources not yet mapped at once; retrying")

// A miss is the mapper's answer that a resource is unknown, and when it was
// given.
type miss struct {
	mapping mapping
	at      time.Time
}

// take takes a token from lim at now if more than reserve tokens are left.
func take(lim *rate.Limiter, now time.Time, reserve float64) bool {
	return lim.TokensAt(now) >= reserve+1 && lim.AllowN(now, 1)
}

// mapResource maps gvr from the cache, or asks the mapper within the lookup
// budget.
func (r *Resolver) mapResource(gvr schema.GroupVersionResource) mapping {
	if m, ok := r.mappings.get(gvr); ok {
		return m
	}
	now := r.clock.Now()
	last, missed := r.misses.get(gvr)
	switch {
	case missed && now.Sub(last.at) < missFresh:
		return last.mapping
	case missed && !take(r.lookups, now, lookupBurst/2):
		return last.mapping
	case !missed && !take(r.lookups, now, 0):
		return mapping{err: mappingError(gvr, errLookupsLimited)}
	}
	m := r.lookup(gvr)
	switch {
	case m.err == nil:
		r.mappings.put(gvr, m)
		if missed {
			r.misses.remove(gvr)
		}
	case errors.Is(m.err, ErrUnknownResource):
		r.misses.put(gvr, miss{mapping: m, at: now})
	}
	return m
}

// locate maps src's resource to its kind and completes src: the resource's
// canonical group and name, and the namespace, defaulted to the
// referencer's for a namespaced resource and refused for a cluster-scoped
// one. It reports whether src is a Secret. A resource not yet mapped has its
// CRD watched, if the policy could allow the read: a CRD is named
// <plural>.<group>, in lower case.
func (rs *resolution) locate(src *Source) (m mapping, secret bool, err error) {
	gvr := schema.GroupVersionResource{Group: src.Group, Version: src.Version, Resource: src.Resource}
	m = rs.mapping(gvr)
	if m.err != nil {
		gr := schema.GroupResource{Group: strings.ToLower(gvr.Group), Resource: strings.ToLower(gvr.Resource)}
		if rs.r.policy.couldAllow(rs.namespace, gr.Group, gr.Resource) {
			rs.watch(watchKey{crd: gr})
		}
		return m, false, m.err
	}
	src.Group, src.Resource = m.resource.Group, m.resource.Resource
	secret = m.resource == secretsResource
	if m.namespaced {
		if src.Namespace == "" {
			if rs.namespace == "" {
				return m, secret, fmt.Errorf("%w: %s is namespaced and the referencer is cluster-scoped, so namespace is required", ErrInvalid, m.resource)
			}
			src.Namespace = rs.namespace
		}
	} else if src.Namespace != "" {
		return m, secret, fmt.Errorf("%w: %s is cluster-scoped, so namespace must be empty", ErrInvalid, m.resource)
	}
	return m, secret, nil
}
