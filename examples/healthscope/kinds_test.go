package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ctrlkit/ctrlkit/examples/healthscope/controllers"
)

func TestParseKinds(t *testing.T) {
	got, err := parseKinds(kindList(controllers.DefaultWatchKinds))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(controllers.DefaultWatchKinds, got); diff != "" {
		t.Errorf("the default does not read back (-want, +got):\n%s", diff)
	}
	if got, err := parseKinds(" , "); err != nil || len(got) != 0 {
		t.Errorf("no entries: %v, %v; want an empty list", got, err)
	}
	for _, bad := range []string{".", ".apps", "Deploy ment.apps", "Deployment.Apps", "Deployment.apps..", "1Deployment", "Secret,Deployment.apps_"} {
		if got, err := parseKinds(bad); err == nil || !strings.HasPrefix(err.Error(), "--watch-kinds: entry ") {
			t.Errorf("parseKinds(%q) = %v, %v; want an error naming the entry", bad, got, err)
		}
	}
}

// FuzzParseKinds: whatever --watch-kinds says, parsing does not panic, and a
// list it accepts reads back the same once written as the flag takes it.
func FuzzParseKinds(f *testing.F) {
	f.Add(kindList(controllers.DefaultWatchKinds))
	f.Add("Deployment.apps, ,Secret,.,x.y.z")
	f.Fuzz(func(t *testing.T, s string) {
		kinds, err := parseKinds(s)
		if err != nil {
			return
		}
		again, err := parseKinds(kindList(kinds))
		if err != nil {
			t.Fatalf("%q: accepted, but its own listing %q is not: %v", s, kindList(kinds), err)
		}
		if diff := cmp.Diff(kinds, again); diff != "" {
			t.Fatalf("%q: does not read back (-first, +again):\n%s", s, diff)
		}
	})
}
