// Package controller is the example's direct controller: it reconciles
// Datasets with the fake cloud API by calling it directly, the way Config
// Connector's direct controllers call Google Cloud, and reports every step
// in the Ready condition with package directstatus:
//
//   - the cloud dataset is missing: Creating, then UpToDate or CreateFailure;
//   - the spec differs from the cloud: Updating with the first field that
//     differs ("Updating resource (first field path: spec.labels[team])"),
//     written before the call, then UpToDate, or UpdateFailure with the same
//     field and the cloud's error;
//   - nothing differs (a periodic sync): UpToDate, which writes nothing at
//     all when the object already says so.
//
// Each create and update carries an idempotency key (directstatus.RequestID
// of the Dataset's generation and the cloud version it changes), so a
// controller that crashes between the call and recording its outcome
// repeats no external operation after a restart.
//
// The desired cloud dataset is built from the spec and diffed with the one
// the cloud returns as protobuf messages, by their JSON names under "spec",
// so that a path the diff reports is the path of the spec field to look at.
package controller

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlkit/ctrlkit/directstatus"
	"github.com/ctrlkit/ctrlkit/examples/direct/cloudapi"
	"github.com/ctrlkit/ctrlkit/examples/direct/v1alpha1"
	"github.com/ctrlkit/ctrlkit/examples/internal/conflict"
	"github.com/ctrlkit/ctrlkit/fielddiff"
)

// Finalizer keeps a Dataset until its cloud dataset is deleted.
const Finalizer = "examples.ctrlkit.dev/dataset"

// DefaultSyncPeriod is how often a Dataset is compared with the cloud when
// nothing else happens.
const DefaultSyncPeriod = 10 * time.Minute

// The cloud's output-only fields have no place in the spec: the diff leaves
// them out.
var diffOptions = []fielddiff.Option{
	fielddiff.Prefix("spec"),
	fielddiff.ProtoJSONNames(),
	fielddiff.IgnorePaths("spec.name", "spec.etag", "spec.createTime", "spec.updateTime"),
}

// A Reconciler reconciles Datasets with the fake cloud.
type Reconciler struct {
	// Client reads and writes Datasets.
	Client client.Client
	// Cloud calls the cloud API.
	Cloud *cloudapi.Client
	// Status writes the Ready condition.
	Status *directstatus.Writer
	// SyncPeriod is how often a Dataset is compared with the cloud when
	// nothing else happens; zero means DefaultSyncPeriod.
	SyncPeriod time.Duration
	// LongRunning makes updates long-running operations: the controller
	// starts one, records its name in the Ready condition
	// (directstatus.OperationID) before waiting, and polls it every
	// PollInterval (zero means a second). A controller that restarts finds
	// the name there and polls the same operation instead of updating again.
	LongRunning  bool
	PollInterval time.Duration
}

// The controller's permissions: Datasets, which it updates for its finalizer
// and the cloud's name, and their status, which directstatus writes (after
// a conflict, with a fresh read from the API server).
//
// +kubebuilder:rbac:groups=examples.ctrlkit.dev,resources=datasets,verbs=get;list;watch;update
// +kubebuilder:rbac:groups=examples.ctrlkit.dev,resources=datasets/status,verbs=update
// +kubebuilder:rbac:groups=examples.ctrlkit.dev,resources=datasets/finalizers,verbs=update

// SetupWithManager reconciles Datasets in mgr. Only changes of a Dataset's
// generation (its spec, or its deletion) start a reconcile: the controller's
// own status writes do not, and the periodic sync is a requeue.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("dataset").
		For(&v1alpha1.Dataset{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Complete(r)
}

// Reconcile brings the cloud dataset of a Dataset in line with its spec.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ds := &v1alpha1.Dataset{}
	if err := r.Client.Get(ctx, req.NamespacedName, ds); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	id := ExternalID(ds)
	if !ds.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, r.delete(ctx, ds, id)
	}
	if controllerutil.AddFinalizer(ds, Finalizer) {
		if err := r.Client.Update(ctx, ds); err != nil {
			return ctrl.Result{}, conflict.Ignore(fmt.Errorf("cannot add the finalizer: %w", err))
		}
	}

	desired := ToCloud(ds.Spec)
	if r.LongRunning {
		// An update in flight, perhaps started before a restart: poll it.
		name, reason, ok, err := directstatus.OperationIDOf(ds)
		if err != nil {
			return ctrl.Result{}, err
		}
		if ok && reason == directstatus.ReasonUpdating {
			done, err := r.Cloud.Operation(ctx, string(name))
			switch {
			case !done && err != nil:
				return ctrl.Result{}, err
			case !done:
				return ctrl.Result{RequeueAfter: r.pollInterval()}, nil
			case err != nil:
				first, _, _ := r.firstChange(ctx, id, desired)
				_, werr := r.Status.SetReady(ctx, ds, directstatus.UpdateFailure(first, err, name))
				return ctrl.Result{}, errors.Join(err, werr)
			}
			// Done: compare again below, which says UpToDate.
		}
	}
	actual, err := r.Cloud.Get(ctx, id)
	if errors.Is(err, cloudapi.ErrNotFound) {
		return r.create(ctx, ds, id, desired)
	}
	if err != nil {
		return ctrl.Result{}, err
	}

	first, changed, err := fielddiff.FirstChangedField(desired, actual, diffOptions...)
	if err != nil {
		return ctrl.Result{}, err
	}
	if !changed {
		// Nothing to do. UpToDate writes nothing when the Dataset already
		// says so at this generation.
		_, err := r.Status.SetReady(ctx, ds, directstatus.UpToDate())
		return ctrl.Result{RequeueAfter: r.syncPeriod()}, err
	}
	paths, err := fielddiff.ChangedFields(desired, actual, diffOptions...)
	if err != nil {
		return ctrl.Result{}, err
	}
	// The cloud's update mask: the proto names of the top-level fields that
	// changed (labels, access), as Google Cloud's APIs take it.
	mask, err := fielddiff.UpdateMask(desired.ProtoReflect().Descriptor(), paths, fielddiff.MaskPrefix("spec"))
	if err != nil {
		return ctrl.Result{}, err
	}

	// Tell the user what is about to happen, and why, before the call.
	op, err := r.Status.StartUpdate(ctx, ds, first)
	if err != nil {
		return ctrl.Result{}, err
	}
	// The idempotency key of this update: the same for the same generation
	// and the same cloud version, so a controller that crashes after the
	// call and before recording its operation gets that operation back when
	// it calls again, and starts no second update.
	key := directstatus.RequestID(ds, "update", actual.GetEtag())
	if r.LongRunning {
		name, err := r.Cloud.UpdateAsync(ctx, id, desired, mask, key)
		if err != nil {
			return ctrl.Result{}, op.Failed(ctx, terminal(err))
		}
		// Recorded before waiting: a restart polls this operation.
		return ctrl.Result{RequeueAfter: r.pollInterval()}, op.SetOperationID(ctx, name)
	}
	if _, err := r.Cloud.Update(ctx, id, desired, mask, key); err != nil {
		return ctrl.Result{}, op.Failed(ctx, terminal(err))
	}
	return ctrl.Result{RequeueAfter: r.syncPeriod()}, op.Succeeded(ctx)
}

func (r *Reconciler) create(ctx context.Context, ds *v1alpha1.Dataset, id string, desired *cloudapi.Dataset) (ctrl.Result, error) {
	op, err := r.Status.StartCreate(ctx, ds)
	if err != nil {
		return ctrl.Result{}, err
	}
	if _, err := r.Cloud.Create(ctx, id, desired, directstatus.RequestID(ds, "create")); err != nil {
		return ctrl.Result{}, op.Failed(ctx, terminal(err))
	}
	return ctrl.Result{RequeueAfter: r.syncPeriod()}, op.Succeeded(ctx)
}

// terminal marks an error of the cloud API that only a spec change can
// help (400 Bad Request: the cloud refused the values) as a terminal
// error: the Dataset is Stalled, and not retried until its spec changes.
func terminal(err error) error {
	var apiErr *cloudapi.APIError
	if errors.As(err, &apiErr) && apiErr.Code == http.StatusBadRequest {
		return reconcile.TerminalError(err)
	}
	return err
}

func (r *Reconciler) delete(ctx context.Context, ds *v1alpha1.Dataset, id string) error {
	if !controllerutil.ContainsFinalizer(ds, Finalizer) {
		return nil
	}
	if err := r.Cloud.Delete(ctx, id); err != nil && !errors.Is(err, cloudapi.ErrNotFound) {
		return err
	}
	controllerutil.RemoveFinalizer(ds, Finalizer)
	return conflict.Ignore(client.IgnoreNotFound(r.Client.Update(ctx, ds)))
}

// firstChange is the first field of desired that the cloud dataset does
// not hold.
func (r *Reconciler) firstChange(ctx context.Context, id string, desired *cloudapi.Dataset) (string, bool, error) {
	actual, err := r.Cloud.Get(ctx, id)
	if err != nil {
		return "", false, err
	}
	return fielddiff.FirstChangedField(desired, actual, diffOptions...)
}

func (r *Reconciler) pollInterval() time.Duration {
	if r.PollInterval > 0 {
		return r.PollInterval
	}
	return time.Second
}

func (r *Reconciler) syncPeriod() time.Duration {
	if r.SyncPeriod > 0 {
		return r.SyncPeriod
	}
	return DefaultSyncPeriod
}

// ExternalID is the cloud dataset ID of a Dataset: its namespace and name,
// joined by "_", with the characters the cloud refuses ('-' and '.')
// replaced by '_'.
func ExternalID(ds *v1alpha1.Dataset) string {
	return strings.NewReplacer("-", "_", ".", "_").Replace(ds.Namespace + "_" + ds.Name)
}

// ToCloud is the cloud dataset a spec asks for.
func ToCloud(s v1alpha1.DatasetSpec) *cloudapi.Dataset {
	d := &cloudapi.Dataset{Description: s.Description, Labels: s.Labels, Location: s.Location}
	if s.DefaultTableExpirationMs != nil {
		d.DefaultTableExpirationMs = *s.DefaultTableExpirationMs
	}
	for _, a := range s.Access {
		d.Access = append(d.Access, &cloudapi.Access{Role: a.Role, UserByEmail: a.UserByEmail})
	}
	return d
}
