package run

import (
	"context"
	"errors"
	"runtime/debug"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/util/version"
)

// priorityQueueFixed is the first controller-runtime release whose priority
// queue cannot block a worker for ever on shutdown: before it, a ready item
// handed to a worker that has already returned through ShutDown keeps the
// queue's lock held, the worker group never ends, and the manager waits out
// its whole graceful shutdown period (30 s) while it keeps renewing the
// leader election Lease.
var priorityQueueFixed = version.MustParseSemantic("v0.25.0")

// usePriorityQueue reports whether the controllers may use controller-runtime's
// priority queue (its default since v0.23) at v, the running
// controller-runtime's module version; an unknown version is taken as an
// affected one.
func usePriorityQueue(v string) bool {
	parsed, err := version.ParseSemantic(v)
	return err == nil && parsed.AtLeast(priorityQueueFixed)
}

// controllerRuntimeVersion is the version of controller-runtime this binary
// was built with, or "" when the build does not say (a replaced module).
func controllerRuntimeVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, m := range bi.Deps {
		if m.Path != "sigs.k8s.io/controller-runtime" {
			continue
		}
		if m.Replace != nil {
			return m.Replace.Version
		}
		return m.Version
	}
	return ""
}

// errLeaderElectionLost is the text of the error controller-runtime's manager
// reports whenever its leader elector stops, including when the manager
// itself stopped it on a clean stop and released the Lease.
const errLeaderElectionLost = "leader election lost"

// stopLog is the manager's logger: it passes everything to its sink except,
// once stopping reports true, the manager's "leader election lost" error,
// which on a stop Main asked for only means that the Lease was released, and
// errors that wrap context.Canceled, such as a reconcile whose request the
// stop cut short: that reconcile runs again when the controller next starts.
// Any other error while stopping, and a cancellation while running, are
// logged.
type stopLog struct {
	logr.LogSink
	stopping func() bool
}

// newStopLog wraps l; the manager's log drops the release notice once
// stopping reports true.
func newStopLog(l logr.Logger, stopping func() bool) logr.Logger {
	if l.GetSink() == nil {
		return l
	}
	return logr.New(stopLog{LogSink: l.GetSink(), stopping: stopping})
}

func (s stopLog) Error(err error, msg string, kv ...any) {
	if err != nil && (err.Error() == errLeaderElectionLost || errors.Is(err, context.Canceled)) && s.stopping() {
		return
	}
	s.LogSink.Error(err, msg, kv...)
}

func (s stopLog) WithValues(kv ...any) logr.LogSink {
	return stopLog{LogSink: s.LogSink.WithValues(kv...), stopping: s.stopping}
}

func (s stopLog) WithName(name string) logr.LogSink {
	return stopLog{LogSink: s.LogSink.WithName(name), stopping: s.stopping}
}

// Init passes the call depth on, so that a sink reporting callers reports
// the manager's, not stopLog's.
func (s stopLog) Init(info logr.RuntimeInfo) {
	info.CallDepth++
	s.LogSink.Init(info)
}
