package conformance

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite docs/health/README.md's tables from this run")

// A stage is a moment in an object's life at which users ask their tools
// whether it is done.
type stage struct {
	name string
	// flux is the checker of Flux's that applies at this stage.
	flux fluxChecker
	// want is what a user expects every tool to say.
	want verdict
}

var (
	inProgress = verdict{KStatus: "InProgress", Flux: "pass", Argo: "Progressing", Wait: "waits"}
	current    = verdict{KStatus: "Current", Flux: "pass", Argo: "Healthy", Wait: "met"}
	failed     = verdict{KStatus: "Failed", Flux: "pass", Argo: "Degraded", Wait: "waits"}

	stageCreated  = stage{name: "created, not yet reconciled", flux: fluxNone, want: verdict{KStatus: "InProgress", Flux: "n/a", Argo: "Progressing", Wait: "waits"}}
	stageWorking  = stage{name: "reconciled, working toward Ready", flux: fluxInProgress, want: inProgress}
	stageNotReady = stage{name: "reconciled, Ready=False", flux: fluxFull, want: inProgress}
	stageReady    = stage{name: "Ready=True at the current generation", flux: fluxFull, want: current}
	stageEdited   = stage{name: "spec edited, not yet observed", flux: fluxInProgress, want: inProgress}
	stageBroken   = stage{name: "spec made invalid after Ready", flux: fluxFull, want: failed}
	stageInvalid  = stage{name: "invalid from the start", flux: fluxFull, want: failed}

	stages = []stage{stageCreated, stageWorking, stageNotReady, stageReady, stageEdited, stageBroken, stageInvalid}
)

// A kind is one of ctrlkit's kinds with objects that reach each stage.
type kind struct {
	name, apiVersion string
	namespaced       bool
	// script is the Argo CD health check in docs/health.
	script string
	// ready is the body (everything but apiVersion, kind and metadata) of an
	// object that becomes Ready=True. In every body and patch, $NAME is the
	// object's name.
	ready string
	// working is the body of one that stays reconciled but not Ready, with
	// the controller still at work; empty when the kind has no such state.
	working string
	// notReady is the body of one that settles with Ready=False; empty when
	// the kind has no such state.
	notReady string
	// edit is a merge patch that changes a Ready object's spec.
	edit string
	// invalid is the body of an object the API server admits but the
	// controller cannot act on; breakPatch makes a Ready object so.
	invalid, breakPatch string
	// deps are objects (YAML documents) the kind's objects need.
	deps string
}

// measured[kind][stage] is what the tools said.
type measurement struct {
	mu sync.Mutex
	m  map[string]map[string]verdict
}

func (m *measurement) record(kind, stage string, v verdict) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = map[string]map[string]verdict{}
	}
	if m.m[kind] == nil {
		m.m[kind] = map[string]verdict{}
	}
	m.m[kind][stage] = v
}

// TestHealth runs every kind through every stage on the real API server and
// asks kstatus, Flux, Argo CD and kubectl wait about it at each, then checks
// docs/health/README.md shows what they said.
func TestHealth(t *testing.T) {
	env := testenv.Get(t)
	ctx := context.Background()
	const ns = "health"
	if err := env.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	for _, k := range kinds {
		for _, doc := range splitYAML(k.deps) {
			u := parse(t, doc)
			if u.GetNamespace() == "" && u.GetKind() != "Namespace" && !strings.HasPrefix(u.GetKind(), "Cluster") {
				u.SetNamespace(ns)
			}
			if err := env.Client.Create(ctx, u); err != nil && !apierrors.IsAlreadyExists(err) {
				t.Fatalf("%s: cannot create %s %s: %v", k.name, u.GetKind(), u.GetName(), err)
			}
		}
	}

	var got measurement
	objects := map[string]map[string]*unstructured.Unstructured{} // kind → role → object
	create := func(k kind, role, body string) *unstructured.Unstructured {
		t.Helper()
		if body == "" {
			return nil
		}
		name := strings.ToLower(k.name) + "-" + role
		body = strings.ReplaceAll(body, "$NAME", name)
		u := parse(t, fmt.Sprintf("apiVersion: %s\nkind: %s\nmetadata: {name: %s}\n%s", k.apiVersion, k.name, name, body))
		if k.namespaced {
			u.SetNamespace(ns)
		}
		if err := env.Client.Create(ctx, u); err != nil {
			t.Fatalf("cannot create %s %s: %v", k.name, u.GetName(), err)
		}
		if objects[k.name] == nil {
			objects[k.name] = map[string]*unstructured.Unstructured{}
		}
		objects[k.name][role] = u
		return u
	}

	// Phase 1: no controller runs. Every object is created, not reconciled.
	for _, k := range kinds {
		create(k, "ready", k.ready)
		if k.breakPatch != "" {
			create(k, "broken", k.ready)
		}
		create(k, "working", k.working)
		create(k, "notready", k.notReady)
		create(k, "invalid", k.invalid)
		got.record(k.name, stageCreated.name, observe(t, env.Client, k, objects[k.name]["ready"], stageCreated))
	}

	// Phase 2: the controllers run; each object settles in its stage.
	stop := startControllers(t, env)
	awaitAll(t, env.Client, objects, &got, map[string]stage{
		"ready": stageReady, "broken": stageReady, "working": stageWorking, "notready": stageNotReady, "invalid": stageInvalid,
	})
	stop()

	// Phase 3: the controllers are stopped; specs change under them.
	for _, k := range kinds {
		patch(t, env.Client, objects[k.name]["ready"], k.edit)
		patch(t, env.Client, objects[k.name]["broken"], k.breakPatch)
		got.record(k.name, stageEdited.name, observe(t, env.Client, k, objects[k.name]["ready"], stageEdited))
	}

	// Phase 4: the controllers run again and catch up.
	stop = startControllers(t, env)
	awaitAll(t, env.Client, objects, &got, map[string]stage{"ready": stageReady, "broken": stageBroken})
	stop()

	for _, k := range kinds {
		for _, s := range stages {
			v, ok := got.m[k.name][s.name]
			if !ok {
				continue
			}
			if diff := cmp.Diff(s.want, v); diff != "" {
				t.Errorf("%s, %s: -want, +got:\n%s", k.name, s.name, diff)
			}
		}
	}
	checkTable(t, got.m)
}

// observe fetches u and judges it.
func observe(t *testing.T, c client.Client, k kind, u *unstructured.Unstructured, s stage) verdict {
	t.Helper()
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(u), u); err != nil {
		t.Fatalf("cannot get %s %s: %v", k.name, u.GetName(), err)
	}
	v, err := judge(u, k.script, s.flux)
	if err != nil {
		t.Fatalf("%s %s: %v", k.name, u.GetName(), err)
	}
	return v
}

// awaitAll waits until each object named by a role in want shows its
// stage's verdict (or until a deadline, keeping the last verdict) and
// records it.
func awaitAll(t *testing.T, c client.Client, objects map[string]map[string]*unstructured.Unstructured, got *measurement, want map[string]stage) {
	t.Helper()
	var wg sync.WaitGroup
	for _, k := range kinds {
		for role, s := range want {
			u := objects[k.name][role]
			if u == nil {
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				deadline := time.Now().Add(60 * time.Second)
				var v verdict
				for {
					if err := c.Get(context.Background(), client.ObjectKeyFromObject(u), u); err != nil {
						t.Errorf("cannot get %s %s: %v", k.name, u.GetName(), err)
						return
					}
					var err error
					v, err = judge(u, k.script, s.flux)
					if err != nil {
						t.Errorf("%s %s: %v", k.name, u.GetName(), err)
						return
					}
					reconciled := observedGeneration(u) == u.GetGeneration()
					if (reconciled && v == s.want) || time.Now().After(deadline) {
						break
					}
					time.Sleep(200 * time.Millisecond)
				}
				if v != s.want {
					t.Logf("%s %s at %q: last status seen: %s", k.name, u.GetName(), s.name, statusYAML(u))
				}
				got.record(k.name, s.name, v)
			}()
		}
	}
	wg.Wait()
}

func observedGeneration(u *unstructured.Unstructured) int64 {
	og, _, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration")
	return og
}

func statusYAML(u *unstructured.Unstructured) string {
	b, _ := yaml.Marshal(map[string]any{"generation": u.GetGeneration(), "status": u.Object["status"]})
	return string(b)
}

func patch(t *testing.T, c client.Client, u *unstructured.Unstructured, body string) {
	t.Helper()
	if u == nil || body == "" {
		return
	}
	body = strings.ReplaceAll(body, "$NAME", u.GetName())
	js, err := yaml.YAMLToJSON([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Patch(context.Background(), u, client.RawPatch(types.MergePatchType, js)); err != nil {
		t.Fatalf("cannot patch %s %s with %s: %v", u.GetKind(), u.GetName(), body, err)
	}
}

func parse(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
		t.Fatalf("cannot parse %q: %v", doc, err)
	}
	return u
}

func splitYAML(s string) []string {
	var docs []string
	for _, d := range strings.Split(s, "\n---\n") {
		if strings.TrimSpace(d) != "" {
			docs = append(docs, d)
		}
	}
	return docs
}

// checkTable compares docs/health/README.md's table with the measurement,
// or rewrites it with -update.
func checkTable(t *testing.T, m map[string]map[string]verdict) {
	t.Helper()
	var b strings.Builder
	b.WriteString("| kind | stage | kstatus | Flux check | Argo CD | kubectl wait --for=condition=Ready |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	names := make([]string, 0, len(kinds))
	for _, k := range kinds {
		names = append(names, k.name)
	}
	sort.Strings(names)
	for _, k := range names {
		for _, s := range stages {
			v, ok := m[k][s.name]
			if !ok {
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", k, s.name, v.KStatus, v.Flux, v.Argo, v.Wait)
		}
	}
	health := filepath.Join("..", "docs", "health", "README.md")
	syncTable(t, health, "health table", b.String())

	// The summary: one row per stage, what every kind showed.
	b.Reset()
	b.WriteString("| stage | kstatus | Flux check | Argo CD | kubectl wait --for=condition=Ready | kinds |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, s := range stages {
		seen := map[verdict][]string{}
		var order []verdict
		for _, k := range names {
			if v, ok := m[k][s.name]; ok {
				if seen[v] == nil {
					order = append(order, v)
				}
				seen[v] = append(seen[v], k)
			}
		}
		for _, v := range order {
			who := "all " + fmt.Sprint(len(seen[v]))
			if len(seen[v]) < len(names) {
				who = strings.Join(seen[v], ", ")
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", s.name, v.KStatus, v.Flux, v.Argo, v.Wait, who)
		}
	}
	syncTable(t, health, "health summary", b.String())
}

// syncTable compares the table between the markers "<!-- name: begin -->"
// and "<!-- name: end -->" in the file at path with table, or rewrites it
// with -update.
func syncTable(t *testing.T, path, name, table string) {
	t.Helper()
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("cannot read the table: %v", err)
	}
	begin, end := "<!-- "+name+": begin -->\n", "<!-- "+name+": end -->\n"
	before, rest, ok1 := strings.Cut(string(doc), begin)
	old, after, ok2 := strings.Cut(rest, end)
	if !ok1 || !ok2 {
		t.Fatalf("%s has no %q … %q markers", path, strings.TrimSpace(begin), strings.TrimSpace(end))
	}
	if old == table {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(before+begin+table+end+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s does not show what the tools said (go test -update in conformance/ rewrites it): -old, +measured:\n%s", path, cmp.Diff(old, table))
}
