package nop

import (
	"testing"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// TestWorkers checks the worker count Setup gives each controller: the
// option where set, else the manager's default where its options set one,
// else DefaultWorkers (not controller-runtime's one worker).
func TestWorkers(t *testing.T) {
	cfg := &rest.Config{Host: "https://127.0.0.1:1"} // never contacted
	plain, err := manager.New(cfg, manager.Options{})
	if err != nil {
		t.Fatal(err)
	}
	seven, err := manager.New(cfg, manager.Options{Controller: config.Controller{MaxConcurrentReconciles: 7}})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		mgr  manager.Manager
		opt  int
		want int
	}{
		"OptionWins":           {mgr: seven, opt: 3, want: 3},
		"ManagerDefault":       {mgr: seven, want: 7},
		"DefaultWorkers":       {mgr: plain, want: DefaultWorkers},
		"NegativeIsUnset":      {mgr: plain, opt: -1, want: DefaultWorkers},
		"OptionWithoutDefault": {mgr: plain, opt: 40, want: 40},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := workers(tc.mgr, tc.opt); got != tc.want {
				t.Errorf("workers(%d): want %d, got %d", tc.opt, tc.want, got)
			}
		})
	}
}
