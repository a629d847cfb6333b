package run

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// AddProbes adds the healthz and readyz checks that
// --health-probe-bind-address serves to mgr, and returns the manager to add
// the controllers to: /healthz answers while the process runs, /readyz once
// every controller added through the returned manager has started its
// watches and they and the manager's caches have synced. The manager's
// options must enable warm-up (Options.Controller.EnableWarmup, which
// Env.ManagerOptions does): controllers then start their watches before
// they are elected, so a standby replica is Ready when it could take over
// at once, as the leader is; which replica leads shows in the Lease and in
// controller-runtime's leader_election_master_status metric.
func AddProbes(mgr manager.Manager) (manager.Manager, error) {
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		return nil, err
	}
	w := &warming{Manager: mgr}
	if err := mgr.AddReadyzCheck("caches", w.check(CacheSynced(mgr.GetCache()))); err != nil {
		return nil, err
	}
	return w, nil
}

// warming is a manager that counts the controllers added to it whose
// warm-up (starting and syncing their watches) has not finished.
type warming struct {
	manager.Manager
	pending atomic.Int32
}

// warmupRunnable is what controller-runtime's controllers implement to
// start their watches before leader election.
type warmupRunnable interface {
	manager.Runnable
	Warmup(ctx context.Context) error
}

// Add adds r, counting it until its warm-up succeeds when it has one.
func (w *warming) Add(r manager.Runnable) error {
	if wr, ok := r.(warmupRunnable); ok {
		w.pending.Add(1)
		r = &warmed{warmupRunnable: wr, done: func() { w.pending.Add(-1) }}
	}
	return w.Manager.Add(r)
}

// check fails while a warm-up is pending, then asks next.
func (w *warming) check(next healthz.Checker) healthz.Checker {
	return func(req *http.Request) error {
		if n := w.pending.Load(); n > 0 {
			return fmt.Errorf("%d controllers have not started their watches yet", n)
		}
		return next(req)
	}
}

// warmed is a controller whose warm-up, once it succeeds, calls done.
type warmed struct {
	warmupRunnable
	done func()
}

func (r *warmed) Warmup(ctx context.Context) error {
	if err := r.warmupRunnable.Warmup(ctx); err != nil {
		return err
	}
	r.done()
	return nil
}

// NeedLeaderElection is the controller's, true when it does not say, as
// controller-runtime's manager reads a runnable.
func (r *warmed) NeedLeaderElection() bool {
	if le, ok := r.warmupRunnable.(manager.LeaderElectionRunnable); ok {
		return le.NeedLeaderElection()
	}
	return true
}

// cacheSyncProbe is how long a readiness probe waits for the caches to say
// they have synced; they answer at once once they have.
const cacheSyncProbe = 100 * time.Millisecond

// CacheSynced is a readiness check that fails until every informer of c has
// synced, so that a replica is not Ready while its controllers would act on
// an incomplete view. An informer that no one has asked for yet does not
// count: AddProbes also waits for the controllers to ask for theirs.
func CacheSynced(c cache.Cache) healthz.Checker {
	return func(req *http.Request) error {
		ctx, cancel := context.WithTimeout(req.Context(), cacheSyncProbe)
		defer cancel()
		if !c.WaitForCacheSync(ctx) {
			return errors.New("the caches have not synced yet")
		}
		return nil
	}
}
