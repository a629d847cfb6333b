package lastwrite

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

func TestBehind(t *testing.T) {
	k := types.NamespacedName{Namespace: "default", Name: "a"}
	cases := map[string]struct {
		reason   string
		recorded string
		rv       string
		want     bool
	}{
		"NothingRecorded": {reason: "Without a write the cache is trusted.", rv: "5"},
		"Older":           {reason: "An older version is behind.", recorded: "10", rv: "9", want: true},
		"Same":            {reason: "The written version is not behind.", recorded: "10", rv: "10"},
		"Newer":           {reason: "A newer version (another writer) is not behind.", recorded: "10", rv: "11"},
		"Numeric":         {reason: "Versions compare as numbers, not strings.", recorded: "99", rv: "100"},
		"Opaque":          {reason: "A version that is not an integer is trusted.", recorded: "10", rv: "abc"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var tr Tracker
			if tc.recorded != "" {
				tr.Record(k, tc.recorded)
			}
			if got := tr.Behind(k, tc.rv); got != tc.want {
				t.Errorf("%s\nBehind(%q) after a write at %q = %t, want %t", tc.reason, tc.rv, tc.recorded, got, tc.want)
			}
			tr.Forget(k)
			if tr.Behind(k, tc.rv) {
				t.Errorf("%s\nBehind(%q) after Forget = true, want false", tc.reason, tc.rv)
			}
		})
	}
}
