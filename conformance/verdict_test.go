package conformance

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	"github.com/fluxcd/pkg/runtime/conditions/check"
	lua "github.com/yuin/gopher-lua"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	kstatus "sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

// A verdict is what each tool says of one object at one moment.
type verdict struct {
	KStatus string // kstatus: InProgress, Current, Failed, ...
	Flux    string // "pass" or the first failing check's message; "n/a" where Flux's checker does not apply
	Argo    string // Argo CD health: Healthy, Progressing, Degraded, ...
	Wait    string // kubectl wait --for=condition=Ready: "met" or "waits"
}

func (v verdict) String() string {
	return fmt.Sprintf("kstatus %s, Flux %s, Argo CD %s, kubectl wait %s", v.KStatus, v.Flux, v.Argo, v.Wait)
}

// fluxChecker says which of Flux's checkers applies to a stage.
type fluxChecker int

const (
	fluxNone       fluxChecker = iota // not reconciled yet: Flux's rules do not apply
	fluxInProgress                    // mid-reconciliation: check.NewInProgressChecker
	fluxFull                          // a reconcile's final status: check.NewChecker
)

// judge asks every tool about u. script is the Argo CD health check's file
// in docs/health.
func judge(u *unstructured.Unstructured, script string, fc fluxChecker) (verdict, error) {
	var v verdict
	res, err := status.Compute(u)
	if err != nil {
		return v, fmt.Errorf("kstatus: %w", err)
	}
	v.KStatus = res.Status.String()
	// Flux's kstatus is a fork of sigs.k8s.io/cli-utils', which kpt, Config
	// Sync and kapp's users run: both must say the same of every object.
	upstream, err := kstatus.Compute(u)
	if err != nil {
		return v, fmt.Errorf("kstatus (sigs.k8s.io/cli-utils): %w", err)
	}
	if upstream.Status.String() != v.KStatus || upstream.Message != res.Message {
		return v, fmt.Errorf("kstatus disagrees with itself: fluxcd/cli-utils says %s (%q), sigs.k8s.io/cli-utils says %s (%q)", v.KStatus, res.Message, upstream.Status, upstream.Message)
	}

	v.Flux, err = fluxCheck(u, fc)
	if err != nil {
		return v, err
	}
	v.Argo, err = argoHealth(u, script)
	if err != nil {
		return v, err
	}
	v.Wait = "waits"
	if kubectlWaitReady(u) {
		v.Wait = "met"
	}
	return v, nil
}

// fluxObject gives an unstructured object the GetConditions that Flux's
// checker reads.
type fluxObject struct {
	*unstructured.Unstructured
}

func (o fluxObject) GetConditions() []metav1.Condition {
	raw, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	out := make([]metav1.Condition, 0, len(raw))
	for _, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		var c metav1.Condition
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &c); err == nil {
			out = append(out, c)
		}
	}
	return out
}

func (o fluxObject) SetConditions(c []metav1.Condition) {}

func fluxCheck(u *unstructured.Unstructured, fc fluxChecker) (string, error) {
	var c *check.Checker
	switch fc {
	case fluxNone:
		return "n/a", nil
	case fluxInProgress:
		c = check.NewInProgressChecker(nil)
	default:
		c = check.NewChecker(nil, &check.Conditions{NegativePolarity: []string{"Stalled", "Reconciling"}})
	}
	c.DisableFetch = true
	fail, _ := c.Check(context.Background(), fluxObject{u.DeepCopy()})
	if fail != nil {
		return "FAIL: " + strings.ReplaceAll(fail.Error(), "\n", " "), nil
	}
	return "pass", nil
}

// argoHealth runs an Argo CD health check the way Argo CD does: the object
// as the global obj, the script's return value a table with status and
// message.
func argoHealth(u *unstructured.Unstructured, script string) (string, error) {
	src, err := os.ReadFile(filepath.Join("..", "docs", "health", script))
	if err != nil {
		return "", err
	}
	L := lua.NewState(lua.Options{SkipOpenLibs: true})
	defer L.Close()
	for _, lib := range []struct {
		name string
		fn   lua.LGFunction
	}{{lua.BaseLibName, lua.OpenBase}, {lua.TabLibName, lua.OpenTable}, {lua.StringLibName, lua.OpenString}, {lua.MathLibName, lua.OpenMath}} {
		L.Push(L.NewFunction(lib.fn))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	L.SetGlobal("obj", toLua(L, u.Object))
	if err := L.DoString(string(src)); err != nil {
		return "", fmt.Errorf("%s: %w", script, err)
	}
	hs, ok := L.Get(-1).(*lua.LTable)
	if !ok {
		return "", fmt.Errorf("%s returned %s, not a table", script, L.Get(-1).Type())
	}
	return lua.LVAsString(hs.RawGetString("status")), nil
}

// toLua converts JSON-shaped Go values to Lua values.
func toLua(L *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case map[string]any:
		t := L.NewTable()
		for k, e := range v {
			t.RawSetString(k, toLua(L, e))
		}
		return t
	case []any:
		t := L.NewTable()
		for _, e := range v {
			t.Append(toLua(L, e))
		}
		return t
	case string:
		return lua.LString(v)
	case bool:
		return lua.LBool(v)
	case int64:
		return lua.LNumber(v)
	case float64:
		return lua.LNumber(v)
	case nil:
		return lua.LNil
	default:
		return lua.LString(fmt.Sprint(v))
	}
}

// kubectlWaitReady is the rule of `kubectl wait --for=condition=Ready`
// (k8s.io/kubectl/pkg/cmd/wait, ConditionalWait.checkCondition): the first
// condition whose type is Ready decides; it is stale, and does not count,
// when its observedGeneration (or, without one, status.observedGeneration)
// is below metadata.generation.
func kubectlWaitReady(u *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, raw := range conds {
		c, ok := raw.(map[string]any)
		if !ok {
			continue
		}
		if typ, _ := c["type"].(string); !strings.EqualFold(typ, "Ready") {
			continue
		}
		st, ok := c["status"].(string)
		if !ok {
			continue
		}
		if gen, found, _ := unstructured.NestedInt64(u.Object, "metadata", "generation"); found {
			og, found, _ := unstructured.NestedInt64(c, "observedGeneration")
			if !found {
				og, found, _ = unstructured.NestedInt64(u.Object, "status", "observedGeneration")
			}
			if found && og < gen {
				return false
			}
		}
		return strings.EqualFold(st, "True")
	}
	return false
}
