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

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

var crdResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

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

// installCRDs applies every CustomResourceDefinition found in the YAML and
// JSON files of srcs (server-side apply, so a re-run updates them), then the
// admission policies (admissionResources) found beside them, and waits until
// each CRD is established. Each call is bounded by timeout.
func installCRDs(ctx context.Context, cfg *rest.Config, srcs []crdSource, timeout time.Duration) error {
	objs, err := readCRDs(srcs)
	if err != nil || len(objs) == 0 {
		return err
	}
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ri := dc.Resource(crdResource)
	var crds []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() != "CustomResourceDefinition" {
			continue
		}
		crds = append(crds, o)
		callCtx, cancel := context.WithTimeout(ctx, timeout)
		_, err := ri.Apply(callCtx, o.GetName(), o, metav1.ApplyOptions{FieldManager: fieldManager, Force: true})
		cancel()
		if err != nil {
			return fmt.Errorf("cannot install CRD %s: %w", o.GetName(), err)
		}
	}
	for _, o := range objs {
		gvr, ok := admissionResources[o.GetKind()]
		if !ok {
			continue
		}
		callCtx, cancel := context.WithTimeout(ctx, timeout)
		_, err := dc.Resource(gvr).Apply(callCtx, o.GetName(), o, metav1.ApplyOptions{FieldManager: fieldManager, Force: true})
		cancel()
		if err != nil {
			return fmt.Errorf("cannot install %s %s: %w", o.GetKind(), o.GetName(), err)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for _, crd := range crds {
		name := crd.GetName()
		err := waitFor(ctx, "CRD "+name+" to be established", 50*time.Millisecond, func() error {
			got, err := ri.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
			for _, c := range conds {
				m, _ := c.(map[string]any)
				if m["type"] == "Established" && m["status"] == "True" {
					return nil
				}
			}
			return errNotReady
		})
		if err != nil {
			return err
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
