package health

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// luaLiteral writes a JSON value as a Lua expression.
func luaLiteral(v any) string {
	switch v := v.(type) {
	case nil:
		return "nil"
	case bool:
		return fmt.Sprint(v)
	case float64:
		return fmt.Sprint(v)
	case string:
		return fmt.Sprintf("%q", v)
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = luaLiteral(e)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("[%q] = %s", k, luaLiteral(v[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	panic(fmt.Sprintf("unexpected %T", v))
}

func lua(t *testing.T) string {
	for _, name := range []string{"lua", "lua5.4", "lua5.3", "lua5.1", "luajit"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const missing = "no Lua interpreter on PATH (lua, lua5.4, lua5.3, lua5.1, luajit): the Argo CD health check is not run"
	if os.Getenv("CI") != "" {
		// .ci/run installs lua5.4; in CI a missing interpreter is a failure.
		t.Fatal(missing)
	}
	t.Skip(missing + " (apt-get install lua5.4)")
	return ""
}

func TestNopResourceHealth(t *testing.T) {
	interp := lua(t)
	script, err := os.ReadFile("nopresource.lua")
	require.NoError(t, err)

	type health struct{ Status, Message string }
	cases := map[string]struct {
		reason string
		obj    string
		want   health
	}{
		"NoStatus": {
			reason: "A resource not reconciled yet is Progressing.",
			obj:    `{"metadata": {"generation": 1}}`,
			want:   health{"Progressing", "Waiting for the NopResource to be reconciled"},
		},
		"OlderGeneration": {
			reason: "A status that describes an older spec is not trusted.",
			obj: `{"metadata": {"generation": 2}, "status": {"observedGeneration": 1,
				"conditions": [{"type": "Ready", "status": "True", "reason": "Scheduled", "message": "m", "observedGeneration": 1}]}}`,
			want: health{"Progressing", "Waiting for generation 2 to be observed"},
		},
		"NoReady": {
			reason: "A status without Ready (written by an older version) is Progressing.",
			obj:    `{"metadata": {"generation": 1}, "status": {"observedGeneration": 1}}`,
			want:   health{"Progressing", "Waiting for the Ready condition"},
		},
		"AwaitingSchedule": {
			reason: "Before the schedule sets Ready, Ready is Unknown (AwaitingSchedule): Progressing.",
			obj: `{"metadata": {"generation": 1}, "status": {"observedGeneration": 1,
				"conditions": [{"type": "Ready", "status": "Unknown", "reason": "AwaitingSchedule", "message": "Ready is scheduled 3s after creation (spec.forProvider.conditionAfter[0])", "observedGeneration": 1},
				{"type": "Synced", "status": "True", "reason": "ReconcileSuccess", "observedGeneration": 1}]}}`,
			want: health{"Progressing", "Ready=Unknown (AwaitingSchedule): Ready is scheduled 3s after creation (spec.forProvider.conditionAfter[0])"},
		},
		"ReadyFalse": {
			reason: "Ready=False is a schedule on its way, not a failure.",
			obj: `{"metadata": {"generation": 1}, "status": {"observedGeneration": 1,
				"conditions": [{"type": "Ready", "status": "False", "reason": "Scheduled", "message": "Ready=False 0s after creation", "observedGeneration": 1}]}}`,
			want: health{"Progressing", "Ready=False (Scheduled): Ready=False 0s after creation"},
		},
		"Ready": {
			reason: "Ready=True at the current generation is Healthy.",
			obj: `{"metadata": {"generation": 1}, "status": {"observedGeneration": 1,
				"conditions": [{"type": "Ready", "status": "True", "reason": "Scheduled", "message": "Ready=True 3s after creation", "observedGeneration": 1}]}}`,
			want: health{"Healthy", "Ready=True 3s after creation"},
		},
		"ReadyOlderCondition": {
			reason: "A Ready condition observed at an older generation is not Healthy.",
			obj: `{"metadata": {"generation": 2}, "status": {"observedGeneration": 2,
				"conditions": [{"type": "Ready", "status": "True", "reason": "Scheduled", "message": "m", "observedGeneration": 1}]}}`,
			want: health{"Progressing", "Ready=True (Scheduled): m"},
		},
		"InvalidSpec": {
			reason: "Stalled=True (the reconciler refused the spec) is Degraded.",
			obj: `{"metadata": {"generation": 3}, "status": {"observedGeneration": 3,
				"conditions": [{"type": "Ready", "status": "False", "reason": "InvalidSpec", "message": "spec.forProvider.conditionAfter[2].time: bad", "observedGeneration": 3},
				{"type": "Synced", "status": "False", "reason": "InvalidSpec", "message": "spec.forProvider.conditionAfter[2].time: bad", "observedGeneration": 3},
				{"type": "Stalled", "status": "True", "reason": "InvalidSpec", "message": "spec.forProvider.conditionAfter[2].time: bad", "observedGeneration": 3}]}}`,
			want: health{"Degraded", "InvalidSpec: spec.forProvider.conditionAfter[2].time: bad"},
		},
		"StatusTooLarge": {
			reason: "A status that cannot be stored is Degraded.",
			obj: `{"metadata": {"generation": 1}, "status": {"observedGeneration": 1,
				"conditions": [{"type": "Ready", "status": "False", "reason": "StatusTooLarge", "message": "cannot store the status", "observedGeneration": 1},
				{"type": "Synced", "status": "False", "reason": "StatusTooLarge", "message": "cannot store the status", "observedGeneration": 1},
				{"type": "Stalled", "status": "True", "reason": "StatusTooLarge", "message": "cannot store the status", "observedGeneration": 1}]}}`,
			want: health{"Degraded", "StatusTooLarge: cannot store the status"},
		},
		"ConnectionSecretFailed": {
			reason: "Synced=False (a failure the reconciler retries) is Degraded, whatever Ready says.",
			obj: `{"metadata": {"generation": 1}, "status": {"observedGeneration": 1,
				"conditions": [{"type": "Ready", "status": "True", "reason": "Scheduled", "message": "m", "observedGeneration": 1},
				{"type": "Synced", "status": "False", "reason": "ConnectionSecretFailed", "message": "cannot write connection secret default/x", "observedGeneration": 1}]}}`,
			want: health{"Degraded", "ConnectionSecretFailed: cannot write connection secret default/x"},
		},
		"Deleting": {
			reason: "A deletion held by deleteAfter is Progressing.",
			obj: `{"metadata": {"generation": 1}, "status": {"observedGeneration": 1,
				"conditions": [{"type": "Ready", "status": "False", "reason": "Deleting", "message": "deleting", "observedGeneration": 1}]}}`,
			want: health{"Progressing", "Ready=False (Deleting): deleting"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var obj any
			require.NoError(t, json.Unmarshal([]byte(tc.obj), &obj))
			program := "obj = " + luaLiteral(obj) + "\nlocal function check()\n" + string(script) +
				"\nend\nlocal hs = check()\nio.write(hs.status, \"\\n\", hs.message or \"\")\n"
			out, err := exec.Command(interp, "-e", program).CombinedOutput()
			require.NoError(t, err, string(out))
			status, message, _ := strings.Cut(string(out), "\n")
			if diff := cmp.Diff(tc.want, health{status, message}); diff != "" {
				t.Errorf("%s\n-want, +got:\n%s", tc.reason, diff)
			}
		})
	}
}
