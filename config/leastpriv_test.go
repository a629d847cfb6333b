package config_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/ctrlkit/ctrlkit/internal/testenv"
)

// podRunBound is how long an example may take to play its demo as its
// ServiceAccount; each takes seconds to tens of seconds (nop's sample runs
// for 20 s).
const podRunBound = 3 * time.Minute

// TestLeastPrivilege runs each example as it would run in its pod, on the
// real API server, with the permissions its base grants and no other: the
// base's objects but the Deployment are applied as an administrator (CRDs,
// namespace, ServiceAccount, RBAC), a token of the Deployment's
// ServiceAccount comes from the TokenRequest API, and the example's binary
// finds it, with the CA, where a kubelet mounts them, and the API server
// through KUBERNETES_SERVICE_HOST and _PORT, with the Deployment's arguments
// (leader election in its namespace included) but --keep-running. Its demo
// script must pass, and the API server must refuse none of its requests
// (a refusal the example tolerates counts too): a refusal fails naming the
// example and the rule it lacks. The tour runs the same way as a
// ServiceAccount of its own bound to the roles of every base. The requests
// pass through a proxy that records them; the test logs, per example, the
// rules granted, those no request used, and the time from start to Ready
// (/readyz answers 200).
func TestLeastPrivilege(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs every example")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	env := testenv.Get(t)
	bin := buildAsPods(t, goCmd, append(bases(t), "tour"))
	var pods []pod
	for _, base := range bases(t) {
		pods = append(pods, podOf(t, base))
	}
	pods = append(pods, tourPod(pods))
	for _, p := range pods {
		t.Run(p.name, func(t *testing.T) {
			runAsServiceAccount(t, env, filepath.Join(bin, p.name), p)
		})
	}
}

// buildAsPods builds the examples into a temporary directory, each finding
// its ServiceAccount's files in ./serviceaccount, relative to its working
// directory, rather than where a kubelet mounts them.
func buildAsPods(t *testing.T, goCmd string, examples []string) string {
	t.Helper()
	dir := t.TempDir()
	args := []string{"build", "-o", dir + string(filepath.Separator),
		"-ldflags", "-X github.com/ctrlkit/ctrlkit/internal/localcluster.serviceAccountDir=serviceaccount"}
	for _, e := range examples {
		args = append(args, "./examples/"+e)
	}
	cmd := exec.Command(goCmd, args...)
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return dir
}

// A pod is what a kubelet would run: an example, as ServiceAccount ns/sa,
// with args and env; objs are what comes with it (kubectl apply -k).
type pod struct {
	name      string
	objs      []*unstructured.Unstructured
	ns, sa    string
	args, env []string
}

// podOf is the pod of base's Deployment, with the base's other objects.
func podOf(t *testing.T, base string) pod {
	t.Helper()
	objs, err := build(base)
	if err != nil {
		t.Fatal(err)
	}
	p := pod{name: base}
	for _, o := range objs {
		if o.GetKind() != "Deployment" {
			p.objs = append(p.objs, o)
			continue
		}
		p.ns = o.GetNamespace()
		p.sa, _, _ = unstructured.NestedString(o.Object, "spec", "template", "spec", "serviceAccountName")
		p.args, p.env = podCommand(t, o)
	}
	if p.sa == "" {
		t.Fatalf("config/%s has no Deployment with a ServiceAccount", base)
	}
	return p
}

// tourPod is the tour's pod: ServiceAccount ctrlkit-tour/tour, bound to
// every role that the examples' pods are bound to.
func tourPod(examples []pod) pod {
	p := pod{name: "tour", ns: "ctrlkit-tour", sa: "tour"}
	p.objs = append(p.objs,
		&unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": p.ns}}},
		&unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": p.sa, "namespace": p.ns}}})
	for _, e := range examples {
		for _, o := range e.objs {
			if o.GetKind() == "ClusterRoleBinding" || o.GetKind() == "RoleBinding" {
				b := o.DeepCopy()
				b.SetName("ctrlkit-tour-" + o.GetName())
				_ = unstructured.SetNestedSlice(b.Object, []any{map[string]any{"kind": "ServiceAccount", "name": p.sa, "namespace": p.ns}}, "subjects")
				p.objs = append(p.objs, b)
			}
			p.objs = append(p.objs, o)
		}
	}
	return p
}

// runAsServiceAccount plays the example bin of pod p as its ServiceAccount.
func runAsServiceAccount(t *testing.T, env *testenv.Env, bin string, p pod) {
	ctx, cancel := context.WithTimeout(context.Background(), podRunBound+time.Minute)
	defer cancel()
	installed, ns, sa, base := p.objs, p.ns, p.sa, p.name
	applyAll(ctx, t, env, installed)
	user := "system:serviceaccount:" + ns + ":" + sa
	granted := grantedRules(t, env, installed, ns, sa)

	cs, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("cannot request a token of ServiceAccount %s/%s: %v", ns, sa, err)
	}
	proxy := newRecordingProxy(t, env.Config)
	dir := t.TempDir()
	saDir := filepath.Join(dir, "serviceaccount")
	if err := os.Mkdir(saDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(saDir, "token"), []byte(tr.Status.Token), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(saDir, "ca.crt"), proxy.caPEM, 0o600); err != nil {
		t.Fatal(err)
	}

	probe := freeAddress(t)
	args := append(slices.Clip(p.args), "--health-probe-bind-address="+probe, "--metrics-bind-address=0")
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(processEnv(), p.env...)
	cmd.Env = append(cmd.Env, "KUBERNETES_SERVICE_HOST="+proxy.host, "KUBERNETES_SERVICE_PORT="+proxy.port)
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGINT) }
	cmd.WaitDelay = 10 * time.Second
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	ready := time.Duration(-1)
	bound := time.NewTimer(podRunBound)
	defer bound.Stop()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var runErr error
wait:
	for {
		select {
		case runErr = <-done:
			break wait
		case <-bound.C:
			_ = cmd.Process.Signal(syscall.SIGINT)
			runErr = fmt.Errorf("did not finish within %s: %w", podRunBound, <-done)
			break wait
		case <-tick.C:
			if ready < 0 && readyz(probe) {
				ready = time.Since(start)
			}
		}
	}
	took := time.Since(start)

	t.Logf("example %s: %s, rules granted:\n%s", base, user, strings.Join(granted.lines(), "\n"))
	used := proxy.requests()
	if unused := granted.unused(used); len(unused) > 0 {
		t.Logf("example %s: granted, but no request of this run needed it:\n%s", base, strings.Join(unused, "\n"))
	}
	if ready >= 0 {
		t.Logf("example %s: Ready (/readyz 200) %s after start; the demo finished after %s", base, ready.Round(time.Millisecond), took.Round(100*time.Millisecond))
	}
	for _, f := range proxy.refused() {
		t.Errorf("example %s: the API server refused %s a request, a rule is missing: %s\n  %s", base, user, f.attrs, f.message)
	}
	if runErr != nil {
		t.Fatalf("example %s as %s: %v\n%s", base, user, runErr, out.String())
	}
	if ready < 0 {
		t.Errorf("example %s: /readyz never answered 200 while the example ran", base)
	}
	if strings.Contains(out.String(), "level=ERROR") {
		t.Errorf("example %s as %s logged an error:\n%s", base, user, out.String())
	}
	if t.Failed() {
		t.Logf("output:\n%s", out.String())
	}
}

// applyAll applies objs as an administrator, as kubectl apply --server-side
// would, waits for the CRDs among them to be established, and fills the
// rules of each aggregated ClusterRole among them from the ClusterRoles
// its selectors match, as kube-controller-manager does (the test's API
// server runs none).
func applyAll(ctx context.Context, t *testing.T, env *testenv.Env, objs []*unstructured.Unstructured) {
	t.Helper()
	dc, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		gvr, _ := resourceOf(t, env, o)
		body, err := o.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		force := true
		if _, err := dc.Resource(gvr).Namespace(o.GetNamespace()).Patch(ctx, o.GetName(), types.ApplyPatchType, body, metav1.PatchOptions{FieldManager: "kubectl", Force: &force}); err != nil {
			t.Fatalf("cannot apply %s %s/%s: %v", o.GetKind(), o.GetNamespace(), o.GetName(), err)
		}
	}
	crds := dc.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	for _, o := range objs {
		if o.GetKind() != "CustomResourceDefinition" {
			continue
		}
		testenv.Eventually(t, time.Minute, "CRD "+o.GetName()+" established", func() error {
			got, err := crds.Get(ctx, o.GetName(), metav1.GetOptions{})
			if err != nil {
				return err
			}
			conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
			for _, c := range conds {
				c, _ := c.(map[string]any)
				if c["type"] == "Established" && c["status"] == "True" {
					return nil
				}
			}
			return fmt.Errorf("conditions %v", conds)
		})
	}
	roles := dc.Resource(schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"})
	for _, o := range objs {
		selectors, found, _ := unstructured.NestedSlice(o.Object, "aggregationRule", "clusterRoleSelectors")
		if o.GetKind() != "ClusterRole" || !found {
			continue
		}
		var rules []any
		for _, s := range selectors {
			var ls metav1.LabelSelector
			b, _ := json.Marshal(s)
			if err := json.Unmarshal(b, &ls); err != nil {
				t.Fatal(err)
			}
			sel, err := metav1.LabelSelectorAsSelector(&ls)
			if err != nil {
				t.Fatal(err)
			}
			matched, err := roles.List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
			if err != nil {
				t.Fatal(err)
			}
			sort.Slice(matched.Items, func(i, j int) bool { return matched.Items[i].GetName() < matched.Items[j].GetName() })
			for _, m := range matched.Items {
				r, _, _ := unstructured.NestedSlice(m.Object, "rules")
				rules = append(rules, r...)
			}
		}
		got, err := roles.Get(ctx, o.GetName(), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := unstructured.SetNestedSlice(got.Object, rules, "rules"); err != nil {
			t.Fatal(err)
		}
		if _, err := roles.Update(ctx, got, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("cannot aggregate ClusterRole %s: %v", o.GetName(), err)
		}
	}
}

// A rule is one verb on one resource, cluster-wide or in a namespace, and
// for some names or all.
type rule struct {
	verb, group, resource, namespace string
	names                            []string
}

func (r rule) String() string {
	s := r.verb + " " + r.resource
	if r.group != "" {
		s += "." + r.group
	}
	if len(r.names) > 0 {
		s += " " + strings.Join(r.names, ",")
	}
	if r.namespace != "" {
		return s + " in namespace " + r.namespace
	}
	return s + " cluster-wide"
}

// allows reports whether r allows request a.
func (r rule) allows(a attributes) bool {
	return (r.verb == a.verb || r.verb == "*") && (r.group == a.group || r.group == "*") &&
		(r.resource == a.resource || r.resource == "*") && (r.namespace == "" || r.namespace == a.namespace) &&
		(len(r.names) == 0 || slices.Contains(r.names, a.name))
}

type ruleSet []rule

// lines are the rules in a compact form, one a line, sorted.
func (rs ruleSet) lines() []string {
	var l []string
	for _, r := range rs {
		l = append(l, "  "+r.String())
	}
	sort.Strings(l)
	return slices.Compact(l)
}

// unused are the rules of rs that none of reqs needed.
func (rs ruleSet) unused(reqs []attributes) []string {
	var l []string
	for _, r := range rs {
		if !slices.ContainsFunc(reqs, r.allows) {
			l = append(l, "  "+r.String())
		}
	}
	sort.Strings(l)
	return slices.Compact(l)
}

// grantedRules are the rules that the bindings among objs grant
// ServiceAccount ns/sa, from the roles among objs (an aggregated
// ClusterRole's as the API server holds them).
func grantedRules(t *testing.T, env *testenv.Env, objs []*unstructured.Unstructured, ns, sa string) ruleSet {
	t.Helper()
	dc, err := dynamic.NewForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	var rs ruleSet
	for _, b := range objs {
		if b.GetKind() != "ClusterRoleBinding" && b.GetKind() != "RoleBinding" {
			continue
		}
		subjects, _, _ := unstructured.NestedSlice(b.Object, "subjects")
		if !slices.ContainsFunc(subjects, func(s any) bool {
			m, _ := s.(map[string]any)
			return m["kind"] == "ServiceAccount" && m["namespace"] == ns && m["name"] == sa
		}) {
			continue
		}
		kind, _, _ := unstructured.NestedString(b.Object, "roleRef", "kind")
		name, _, _ := unstructured.NestedString(b.Object, "roleRef", "name")
		gvr := schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}
		roleNS := ""
		if kind == "Role" {
			gvr.Resource, roleNS = "roles", b.GetNamespace()
		}
		role, err := dc.Resource(gvr).Namespace(roleNS).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("%s %s binds %s %s: %v", b.GetKind(), b.GetName(), kind, name, err)
		}
		rules, _, _ := unstructured.NestedSlice(role.Object, "rules")
		for _, r := range rules {
			r, _ := r.(map[string]any)
			strs := func(k string) []string {
				s, _, _ := unstructured.NestedStringSlice(r, k)
				return s
			}
			names := strs("resourceNames")
			for _, g := range strs("apiGroups") {
				for _, res := range strs("resources") {
					for _, v := range strs("verbs") {
						rs = append(rs, rule{verb: v, group: g, resource: res, namespace: b.GetNamespace(), names: names})
					}
				}
			}
		}
	}
	return rs
}

// podCommand returns the arguments of the Deployment's container, but
// --keep-running and the addresses the test chooses, with $(VAR) expanded
// as a kubelet does, and the container's environment.
func podCommand(t *testing.T, d *unstructured.Unstructured) (args, env []string) {
	t.Helper()
	containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	if len(containers) != 1 {
		t.Fatalf("Deployment %s has %d containers, want 1", d.GetName(), len(containers))
	}
	c, _ := containers[0].(map[string]any)
	vars := map[string]string{}
	envs, _, _ := unstructured.NestedSlice(c, "env")
	for _, e := range envs {
		e, _ := e.(map[string]any)
		name, _ := e["name"].(string)
		value, _ := e["value"].(string)
		if p, _, _ := unstructured.NestedString(e, "valueFrom", "fieldRef", "fieldPath"); p == "metadata.namespace" {
			value = d.GetNamespace()
		} else if _, ok := e["valueFrom"]; ok {
			t.Fatalf("Deployment %s: env %s: the test knows only fieldRef metadata.namespace", d.GetName(), name)
		}
		vars[name] = value
		env = append(env, name+"="+value)
	}
	raw, _, _ := unstructured.NestedStringSlice(c, "args")
	for _, a := range raw {
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name == "keep-running" || name == "health-probe-bind-address" || name == "metrics-bind-address" {
			continue
		}
		for k, v := range vars {
			a = strings.ReplaceAll(a, "$("+k+")", v)
		}
		args = append(args, a)
	}
	return args, env
}

// processEnv is the test's environment without what would point an example
// at another cluster than its pod's.
func processEnv() []string {
	return slices.DeleteFunc(os.Environ(), func(e string) bool {
		return strings.HasPrefix(e, "KUBECONFIG=") || strings.HasPrefix(e, "KUBERNETES_")
	})
}

// freeAddress is a loopback address no one listens on.
func freeAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// readyz reports whether the readiness endpoint at addr answers 200.
func readyz(addr string) bool {
	c := http.Client{Timeout: time.Second}
	resp, err := c.Get("http://" + addr + "/readyz")
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// attributes are what RBAC authorizes a resource request by.
type attributes struct {
	verb, group, resource, namespace, name string
}

func (a attributes) String() string {
	s := a.verb + " " + a.resource
	if a.group != "" {
		s += "." + a.group
	}
	if a.name != "" {
		s += " " + a.name
	}
	if a.namespace != "" {
		s += " in namespace " + a.namespace
	}
	return s
}

// requestAttributes returns the attributes of a resource request, as the
// API server's request info resolver finds them; ok is false for any other
// request (discovery, /version).
func requestAttributes(r *http.Request) (a attributes, ok bool) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		a.group = parts[1]
		parts = parts[3:]
	default:
		return a, false
	}
	if len(parts) >= 3 && parts[0] == "namespaces" {
		a.namespace, parts = parts[1], parts[2:]
	}
	a.resource = parts[0]
	if len(parts) > 1 {
		a.name = parts[1]
	}
	if len(parts) > 2 {
		a.resource += "/" + parts[2]
	}
	if a.namespace == "" && a.resource == "namespaces" && a.name != "" {
		a.namespace = a.name // a namespace is in itself, for RBAC
	}
	watch := r.URL.Query().Get("watch")
	switch r.Method {
	case http.MethodGet:
		switch {
		case watch == "true" || watch == "1":
			a.verb = "watch"
		case a.name == "":
			a.verb = "list"
		default:
			a.verb = "get"
		}
	case http.MethodPost:
		a.verb = "create"
	case http.MethodPut:
		a.verb = "update"
	case http.MethodPatch:
		a.verb = "patch"
	case http.MethodDelete:
		a.verb = "delete"
		if a.name == "" {
			a.verb = "deletecollection"
		}
	default:
		return a, false
	}
	return a, true
}

// A refusal is a request the API server refused as forbidden.
type refusal struct {
	attrs   attributes
	message string
}

// recordingProxy serves the API server over TLS with a certificate of its
// own and records every resource request and every refusal.
type recordingProxy struct {
	host, port string
	caPEM      []byte

	mu   sync.Mutex
	seen []attributes
	no   []refusal
}

func newRecordingProxy(t *testing.T, cfg *rest.Config) *recordingProxy {
	t.Helper()
	target, err := url.Parse(cfg.Host)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(cfg.CAData) {
		t.Fatal("the API server's CA is no PEM certificate")
	}
	p := &recordingProxy{}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Header.Del("Accept-Encoding") // a refusal's Status is read below
		},
		Transport:     &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true},
		FlushInterval: -1,
		ErrorLog:      log.New(io.Discard, "", 0), // a watch the example ends is no error
		ModifyResponse: func(resp *http.Response) error {
			a, ok := requestAttributes(resp.Request)
			if !ok {
				return nil
			}
			p.mu.Lock()
			defer p.mu.Unlock()
			p.seen = append(p.seen, a)
			if resp.StatusCode != http.StatusForbidden {
				return nil
			}
			body, err := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			resp.Body = io.NopCloser(bytes.NewReader(body))
			if err != nil {
				return err
			}
			msg := string(body)
			if o, err := runtime.Decode(scheme.Codecs.UniversalDeserializer(), body); err == nil {
				if s, ok := o.(*metav1.Status); ok {
					msg = s.Message
				}
			}
			p.no = append(p.no, refusal{attrs: a, message: msg})
			return nil
		},
	}
	srv := httptest.NewUnstartedServer(rp)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	p.caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	u, _ := url.Parse(srv.URL)
	p.host, p.port = u.Hostname(), u.Port()
	return p
}

func (p *recordingProxy) requests() []attributes {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.seen)
}

// refused are the refusals, one per request attributes.
func (p *recordingProxy) refused() []refusal {
	p.mu.Lock()
	defer p.mu.Unlock()
	var r []refusal
	for _, n := range p.no {
		if !slices.ContainsFunc(r, func(o refusal) bool { return o.attrs == n.attrs }) {
			r = append(r, n)
		}
	}
	return r
}

// syncBuffer is a bytes.Buffer safe for a process's stdout and stderr.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
