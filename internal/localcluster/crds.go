package localcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// admissionResources are the kinds installed beside CRDs: the admission
// policies that check what a CRD's schema cannot (such as a field that must
// equal the object's namespace).
var admissionResources = map[string]schema.GroupVersionResource{
	"ValidatingAdmissionPolicy":        {Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicies"},
	"ValidatingAdmissionPolicyBinding": {Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicybindings"},
}

// fieldManager names ctrlkit's local tooling in managedFields.
const fieldManager = "ctrlkit-localcluster"

// crdSource is a folder of CRD manifests: a directory on disk or the top of
// a file system such as an embed.FS. name is what errors call it.
type crdSource struct {
	name string
	fsys fs.FS
	// dir is set for a directory on disk; errors then name its files by
	// their path.
	dir bool
}

// sources returns the directories of o, then its file systems.
func (o Options) sources() []crdSource {
	var srcs []crdSource
	for _, d := range o.CRDDirs {
		srcs = append(srcs, crdSource{name: d, fsys: os.DirFS(d), dir: true})
	}
	for i, f := range o.CRDs {
		srcs = append(srcs, crdSource{name: fmt.Sprintf("CRDs[%d]", i), fsys: f})
	}
	return srcs
}

// file names a file of the source in errors.
func (s crdSource) file(name string) string {
	if s.dir {
		return filepath.Join(s.name, name)
	}
	return path.Join(s.name, name)
}

// installCRDs installs the CustomResourceDefinitions of objs into the
// cluster cfg names and waits until the API server serves them (envtest's
// InstallCRDs: create, or update what is there), then applies the admission
// policies of objs. Each policy call is bounded by timeout.
func installCRDs(ctx context.Context, cfg *rest.Config, objs []*unstructured.Unstructured, timeout time.Duration) error {
	crds, policies, err := splitCRDs(objs)
	if err != nil || len(objs) == 0 {
		return err
	}
	if len(crds) > 0 {
		if _, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{CRDs: crds, MaxTime: time.Minute, PollInterval: 50 * time.Millisecond}); err != nil {
			return fmt.Errorf("cannot install CRDs: %w", err)
		}
	}
	return installPolicies(ctx, cfg, policies, timeout)
}

// splitCRDs returns the CustomResourceDefinitions of objs, typed as envtest
// takes them, and the admission policies.
func splitCRDs(objs []*unstructured.Unstructured) ([]*apiextensionsv1.CustomResourceDefinition, []*unstructured.Unstructured, error) {
	var crds []*apiextensionsv1.CustomResourceDefinition
	var policies []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() != "CustomResourceDefinition" {
			policies = append(policies, o)
			continue
		}
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, crd); err != nil {
			return nil, nil, fmt.Errorf("cannot read CRD %s: %w", o.GetName(), err)
		}
		crds = append(crds, crd)
	}
	return crds, policies, nil
}

// installPolicies applies the admission policies (server-side apply, so a
// re-run updates them), each call bounded by timeout.
func installPolicies(ctx context.Context, cfg *rest.Config, policies []*unstructured.Unstructured, timeout time.Duration) error {
	if len(policies) == 0 {
		return nil
	}
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	for _, o := range policies {
		callCtx, cancel := context.WithTimeout(ctx, timeout)
		_, err := dc.Resource(admissionResources[o.GetKind()]).Apply(callCtx, o.GetName(), o, metav1.ApplyOptions{FieldManager: fieldManager, Force: true})
		cancel()
		if err != nil {
			return fmt.Errorf("cannot install %s %s: %w", o.GetKind(), o.GetName(), err)
		}
	}
	return nil
}

// readCRDs reads the CustomResourceDefinitions and admission policies
// (admissionResources) in the top-level *.yaml, *.yml and *.json files of
// srcs, source by source, in file name order. Other kinds and other files are
// ignored.
func readCRDs(srcs []crdSource) ([]*unstructured.Unstructured, error) {
	var crds []*unstructured.Unstructured
	for _, src := range srcs {
		entries, err := fs.ReadDir(src.fsys, ".")
		if err != nil {
			return nil, fmt.Errorf("cannot read CRD directory %s: %w", src.name, withoutPath(err))
		}
		for _, e := range entries {
			ext := strings.ToLower(path.Ext(e.Name()))
			if e.IsDir() || (ext != ".yaml" && ext != ".yml" && ext != ".json") {
				continue
			}
			data, err := fs.ReadFile(src.fsys, e.Name())
			if err != nil {
				return nil, fmt.Errorf("cannot read CRD file %s: %w", src.file(e.Name()), withoutPath(err))
			}
			dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
			for {
				u := &unstructured.Unstructured{}
				if err := dec.Decode(&u.Object); err != nil {
					if errors.Is(err, io.EOF) {
						break
					}
					return nil, fmt.Errorf("cannot parse CRD file %s: %w", src.file(e.Name()), err)
				}
				if _, policy := admissionResources[u.GetKind()]; u.Object == nil || (u.GetKind() != "CustomResourceDefinition" && !policy) {
					continue
				}
				crds = append(crds, u)
			}
		}
	}
	return crds, nil
}

// withoutPath drops the path of a *fs.PathError, which names a file relative
// to its file system ("open ."), for the message to name it in full instead.
func withoutPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
