// Package demo walks an App claim through the fn-claim-conditions design's
// scenarios on a running composite example (go run ./examples/composite),
// printing the claim's conditions each time they change: Image Not Found, then
// Progressing once the image is fixed, then Success once the deployment is
// available.
package demo

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	kerrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlkit/ctrlkit/conditions"
	"github.com/ctrlkit/ctrlkit/examples/composite/core"
	"github.com/ctrlkit/ctrlkit/examples/composite/function"
	"github.com/ctrlkit/ctrlkit/examples/composite/v1alpha1"
)

// Images of the demo: one the platform's registry has (and a real registry
// too), one it does not.
const (
	ImageGood    = "nginx:1.27"
	ImageMissing = "nginx:no-such-tag"
)

// Platform is the demo's platform: a database "orders" any namespace may use,
// and a registry with ImageGood.
func Platform() *function.StaticPlatform {
	return function.NewStaticPlatform().
		AddDatabase("orders", function.Database{Host: "orders.db.internal", SecretName: "orders-db"}).
		AddImage(ImageGood)
}

// Options configure Run.
type Options struct {
	// Namespace and Name of the demo claim. Default: default/shop.
	Namespace, Name string

	// SimulateRollout marks the deployment available, as a
	// kube-controller-manager would; a local control plane has none.
	SimulateRollout bool

	// Poll is how often the claim is read. Default: 200ms.
	Poll time.Duration

	// Timeout bounds the whole walk-through: Run returns an error when the
	// claim has not reached a step's state by then. Default: 5 minutes.
	Timeout time.Duration
}

// The demo's permissions: it creates and resets the demo claim, reads the
// composed Deployment and, where no kube-controller-manager runs, marks it
// available.
//
// +kubebuilder:rbac:groups=example.ctrlkit.dev,resources=apps,verbs=get;create;update
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get
// +kubebuilder:rbac:groups=apps,resources=deployments/status,verbs=update
//
// The example removes what it created (run.Example.Objects): it lists and
// deletes them, and patches those kept with --keep-running to release their
// finalizers.
//
// +kubebuilder:rbac:groups=example.ctrlkit.dev,resources=apps;xapps,verbs=list;delete;patch
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=list;delete;patch

// Run creates (or resets) the demo claim and walks it through the three
// scenarios, writing the claim's conditions to out whenever they change. It
// returns once the claim is Ready, or with an error when ctx ends or
// Options.Timeout passes.
func Run(ctx context.Context, c client.Client, out io.Writer, o Options) error {
	if o.Namespace == "" {
		o.Namespace = "default"
	}
	if o.Name == "" {
		o.Name = "shop"
	}
	if o.Poll <= 0 {
		o.Poll = 200 * time.Millisecond
	}
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	w := &watcher{c: c, out: out, key: client.ObjectKey{Namespace: o.Namespace, Name: o.Name}, poll: o.Poll}

	fmt.Fprintf(out, "# Image Not Found: App %s asks for database orders and image %s\n", w.key, ImageMissing)
	if err := setClaim(ctx, c, w.key, ImageMissing); err != nil {
		return err
	}
	if err := w.until(ctx, func(cs []metav1.Condition) bool {
		return conditions.IsFalse(cs, function.TypeImageReady)
	}); err != nil {
		return err
	}

	fmt.Fprintf(out, "\n# Progressing: the image is fixed to %s\n", ImageGood)
	if err := setClaim(ctx, c, w.key, ImageGood); err != nil {
		return err
	}
	if err := w.until(ctx, func(cs []metav1.Condition) bool {
		return conditions.IsTrue(cs, function.TypeImageReady) && conditions.Get(cs, function.TypeAppReady) != nil
	}); err != nil {
		return err
	}

	if o.SimulateRollout {
		fmt.Fprintln(out, "\n# Success: the deployment becomes available (simulated: the local control plane runs no kube-controller-manager)")
		if err := markAvailable(ctx, c, w.key); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(out, "\n# Success: waiting for the deployment to become available")
	}
	return w.until(ctx, func(cs []metav1.Condition) bool { return conditions.IsTrue(cs, conditions.TypeReady) })
}

// setClaim creates the claim, or sets its image, retrying on conflict with
// the claim controller's writes.
func setClaim(ctx context.Context, c client.Client, key client.ObjectKey, image string) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error { return trySetClaim(ctx, c, key, image) })
}

func trySetClaim(ctx context.Context, c client.Client, key client.ObjectKey, image string) error {
	app := &v1alpha1.App{}
	err := c.Get(ctx, key, app)
	if kerrors.IsNotFound(err) {
		app = &v1alpha1.App{
			ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name},
			Spec:       v1alpha1.AppSpec{AppParameters: v1alpha1.AppParameters{Database: "orders", Image: image}},
		}
		if err := c.Create(ctx, app); err != nil {
			return fmt.Errorf("cannot create App %s: %w", key, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot get App %s: %w", key, err)
	}
	if app.Spec.Image == image && app.Spec.Database == "orders" {
		return nil
	}
	app.Spec.Image, app.Spec.Database = image, "orders"
	if err := c.Update(ctx, app); err != nil {
		return fmt.Errorf("cannot update App %s: %w", key, err) // %w: RetryOnConflict sees a conflict
	}
	return nil
}

// markAvailable waits for the claim's deployment and marks it available.
func markAvailable(ctx context.Context, c client.Client, key client.ObjectKey) error {
	d := &unstructured.Unstructured{}
	d.SetGroupVersionKind(core.DeploymentKind)
	for {
		err := c.Get(ctx, key, d)
		if err == nil {
			break
		}
		if !kerrors.IsNotFound(err) {
			return fmt.Errorf("cannot get Deployment %s: %w", key, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("gave up waiting for Deployment %s to exist: %w", key, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := c.Get(ctx, key, d); err != nil {
			return fmt.Errorf("cannot get Deployment %s: %w", key, err)
		}
		now := time.Now().UTC().Format(time.RFC3339)
		_ = unstructured.SetNestedField(d.Object, int64(1), "status", "replicas")
		_ = unstructured.SetNestedField(d.Object, int64(1), "status", "readyReplicas")
		_ = unstructured.SetNestedField(d.Object, int64(1), "status", "availableReplicas")
		_ = unstructured.SetNestedSlice(d.Object, []any{map[string]any{
			"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable",
			"message": "Deployment has minimum availability.", "lastUpdateTime": now, "lastTransitionTime": now,
		}}, "status", "conditions")
		if err := c.Status().Update(ctx, d); err != nil {
			return fmt.Errorf("cannot mark Deployment %s available: %w", key, err)
		}
		return nil
	})
}

// watcher prints a claim's conditions when they change.
type watcher struct {
	c    client.Client
	out  io.Writer
	key  client.ObjectKey
	poll time.Duration
	last []metav1.Condition
}

// until prints the claim's conditions as they change until done holds.
func (w *watcher) until(ctx context.Context, done func([]metav1.Condition) bool) error {
	for {
		app := &v1alpha1.App{}
		if err := w.c.Get(ctx, w.key, app); err != nil && !kerrors.IsNotFound(err) {
			if ctx.Err() != nil {
				// The client's own errors (its rate limiter's) need not
				// wrap the deadline: say that time ran out.
				return fmt.Errorf("gave up waiting for App %s's conditions to settle: %w", w.key, ctx.Err())
			}
			return fmt.Errorf("cannot get App %s: %w", w.key, err)
		}
		cs := app.Status.Conditions
		if !conditions.Equal(w.last, cs) || len(w.last) != len(cs) {
			w.print(cs)
			w.last = slices.Clone(cs)
		}
		if done(cs) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("gave up waiting for App %s's conditions to settle: %w", w.key, ctx.Err())
		case <-time.After(w.poll):
		}
	}
}

func (w *watcher) print(cs []metav1.Condition) {
	fmt.Fprintf(w.out, "%s  App %s status.conditions:\n", time.Now().Format("15:04:05.000"), w.key)
	tw := tabwriter.NewWriter(w.out, 0, 0, 2, ' ', 0)
	for _, c := range cs {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", c.Type, c.Status, c.Reason, strings.TrimSpace(c.Message))
	}
	_ = tw.Flush()
}
