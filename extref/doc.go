// Package extref resolves generic references to other objects' fields: each
// entry of a referencer's spec.externalValues names objects (by name, a
// field of the referencer, or labels) and a field of theirs, and the
// resolver copies, transforms or merges the value into a field of the
// referencer, or hands it to the controller (makeAvailableAs). It implements
// Crossplane's Generic Resource References design; the types are in
// extref/v1alpha1.
//
// A controller for a kind with references (here a namespaced Widget):
//
//	w := extref.NewWatcher(mgr.GetCache())
//	r := &WidgetReconciler{Client: mgr.GetClient(),
//		resolver: extref.NewResolver(mgr.GetCache(), mgr.GetRESTMapper(), extref.SourcePolicy{}, extref.WithWatcher(w))}
//	return builder.ControllerManagedBy(mgr).For(&v1alpha1.Widget{}).WatchesRawSource(w).Complete(r)
//
// and resolves them in Reconcile:
//
//	out, err := r.resolver.Resolve(ctx, widget)
//	if err == nil && out.Changed {
//		return ctrl.Result{}, r.Update(ctx, widget) // only when a value changed
//	}
//	conditions.Set(&widget.Status.Conditions, extref.Condition(out, err, widget.Generation))
//	return ctrl.Result{}, r.Status().Update(ctx, widget)
//
// SetupReconciler does all of this for a kind whose controller does nothing
// else, as unstructured content (a composite resource, for example).
//
// # Resolution
//
// IfNotPresent (the default) fills an empty target, Always every time, and
// policy.toFieldPath merges into it (Crossplane's merge policies); dependsOn
// only waits for an object. A settled referencer takes no write. A failing
// Required value writes nothing and its error wraps a sentinel
// (ErrSourceNotFound, ErrDenied, ErrInvalid, ...); a failing Optional one is
// listed in Outcome.Skipped. Targets lie under spec or are one label or
// annotation, clear of DefaultProtectedFields. No byte of a Secret's or
// makeAvailableAs value appears in an error, condition, event or log.
//
// # Source policy
//
// A namespaced referencer may read namespaced sources in its own namespace,
// except Secrets; a cluster-scoped one nothing. A SourcePolicy widens that,
// an AccessReview checks each read (a selection's list) with a
// SubjectAccessReview, and a selector counts only what the policy allows.
//
// # Watches and status
//
// The Watcher enqueues referencers when their sources change, appear, or
// their CRD is installed. Condition reports ReferencesResolved. Limits:
//
//   - spec: at most 256 external values, each with at most 32 sources or variables, 16 transforms, Map transforms of 256 entries, field paths of 1024 bytes, and a source's group, resource and name of 253 bytes, version and namespace of 63 (ErrInvalid), whatever the referencer's schema allows.
//   - selectors: a source chosen by labels (selector) reads at most 256 objects after the policy, whatever maxMatch says (ErrAmbiguous), with at most 16 matchLabels and 16 matchExpressions of 64 values each (ErrInvalid).
//   - output: no transform, format or template gives more than MaxOutputSize bytes; a call, or a render's function results and output, take at most twice that.
//   - regexps: a String transform's regexp, or a Match transform's (at most 64 patterns), has at most 1024 bytes and compiles to at most 2000 instructions (ErrInvalid); it matches a value of at most 4 Mi ÷ its instructions bytes (ErrTransform).
//   - values: what one Resolve writes and hands over takes at most 4 MiB as JSON, counting the nulls a target's indexes may add (ErrTarget).
//   - merges: the record of merged values (the annotation MergedAnnotation) holds at most 64 KiB of JSON (ErrTarget when written, ErrInvalid when read); appending an array compares at most 16 Mi item-bytes (the items of the array appended to times the bytes appended; ErrTarget).
//   - reads: the reads of one Resolve take at most ReadTimeout together; a kind that cannot be read (forbidden, not served, informer not syncing) fails at once for every referencer after its first failure, until its informer syncs (another reader: re-checked after 1 s, doubling to 1 min); RESTMapper lookups of resources not yet mapped, by 20 at once and 2 a second per Resolver; SubjectAccessReviews, by 50 at once and 10 a second per AccessReview.
//   - memory: a Resolver keeps the checked external values of at most 16,384 referencers and 64 MiB (half a referencer's size at the limits), and parsed templates of at most 256 KiB of text; a Watcher about 170 bytes per source a referencer reads (with the Resolver, under 2 times a referencer's size); an AccessReview at most 4,096 decisions and 4 MiB.
//   - stale cache: a cache behind the reconciler's last write is waited for at most 1 s; then the referencer is read from the API server until the cache catches up.
//   - informers: one per source kind some referencer reads; SetupReconciler stops one no referencer needs within InformerIdle (1 min) plus about 1 s.
//   - wakes: a source update enqueues only the referencers whose fields of it (every source and variable they read) changed, each at most once a second.
//   - workers: SetupReconciler reconciles DefaultWorkers (4) referencers at once (Options.Workers), so one referencer delays another by at most one ReadTimeout per worker ahead of it.
//   - writes: SetupReconciler makes at most 10 writes per referencer in any 30 s (WriteBudget), the Oscillating condition included, then holds it; when the hold passes, the current values are written once.
//
// Metrics are in controller-runtime's registry (docs/guide.md lists them).
//
// docs/design/extref.md has the API, transforms, templates and decisions.
package extref
