package nop

import (
	"context"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// A pollingReconciler stands in, in BenchmarkAPIServer, for a controller
// that polls instead of requeueing at deadlines: it reconciles with r and
// requeues every interval, whatever the next deadline. With alwaysWrite it
// also writes the status on every reconcile that wrote none, as
// provider-nop's reconciler does after each observation (the API server
// stores nothing for an unchanged status, but decodes, compares and answers
// every such write).
type pollingReconciler struct {
	r           *reconciler
	interval    time.Duration
	alwaysWrite bool
}

// newPollingReconciler wraps r, whose client it replaces with one that
// notes the status writes of each reconcile.
func newPollingReconciler(r *reconciler, interval time.Duration, alwaysWrite bool) *pollingReconciler {
	r.client = noteStatusWrites{r.client}
	return &pollingReconciler{r: r, interval: interval, alwaysWrite: alwaysWrite}
}

func (p *pollingReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	wrote := new(bool)
	res, err := p.r.Reconcile(context.WithValue(ctx, statusWriteKey{}, wrote), req)
	if err != nil {
		return res, err
	}
	if p.alwaysWrite && !*wrote {
		p.writeStatus(ctx, req)
	}
	if res.RequeueAfter > 0 {
		// Every requeue the reconciler asks for (a deadline, a retry, the
		// poll interval) becomes the poll interval.
		res.RequeueAfter, res.Priority = p.interval, nil
	}
	return res, nil
}

// writeStatus writes the status of the object req names as the cache holds
// it, unless the reconciler skipped the object for a stale cache.
func (p *pollingReconciler) writeStatus(ctx context.Context, req reconcile.Request) {
	obj := p.r.kind.newObject()
	if err := p.r.client.Get(ctx, req.NamespacedName, obj); err != nil || p.r.written.Behind(req.NamespacedName, obj.GetResourceVersion()) {
		return
	}
	if err := p.r.updateStatus(ctx, obj); err != nil {
		log.FromContext(ctx).V(1).Info("cannot write the status", "error", err.Error())
		return
	}
	p.r.written.Record(req.NamespacedName, obj.GetResourceVersion())
}

// statusWriteKey keys the flag in a context that noteStatusWrites sets.
type statusWriteKey struct{}

// noteStatusWrites is a client that sets the statusWriteKey flag of the
// context of each status write.
type noteStatusWrites struct{ client.Client }

func (c noteStatusWrites) Status() client.SubResourceWriter {
	return notedWriter{c.Client.Status()}
}

type notedWriter struct{ client.SubResourceWriter }

func (w notedWriter) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	if wrote, ok := ctx.Value(statusWriteKey{}).(*bool); ok {
		*wrote = true
	}
	return w.SubResourceWriter.Update(ctx, obj, opts...)
}
