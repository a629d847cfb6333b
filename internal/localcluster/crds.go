package localcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
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

// fieldManager names ctrlkit's local tooling in managedFields.
const fieldManager = "ctrlkit-localcluster"

// installCRDs applies every CustomResourceDefinition found in the YAML and
// JSON files of dirs (server-side apply, so a re-run updates them) and waits
// until each is established.
func installCRDs(ctx context.Context, cfg *rest.Config, dirs []string) error {
	crds, err := readCRDs(dirs)
	if err != nil || len(crds) == 0 {
		return err
	}
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ri := dc.Resource(crdResource)
	for _, crd := range crds {
		if _, err := ri.Apply(ctx, crd.GetName(), crd, metav1.ApplyOptions{FieldManager: fieldManager, Force: true}); err != nil {
			return fmt.Errorf("cannot install CRD %s: %w", crd.GetName(), err)
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

// readCRDs reads the CustomResourceDefinitions in the *.yaml, *.yml and *.json
// files of dirs, in file name order. Other kinds are ignored.
func readCRDs(dirs []string) ([]*unstructured.Unstructured, error) {
	var crds []*unstructured.Unstructured
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("cannot read CRD directory %s: %w", dir, err)
		}
		for _, e := range entries {
			ext := strings.ToLower(filepath.Ext(e.Name()))
			if e.IsDir() || (ext != ".yaml" && ext != ".yml" && ext != ".json") {
				continue
			}
			path := filepath.Join(dir, e.Name())
			data, err := os.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("cannot read CRD file %s: %w", path, err)
			}
			dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
			for {
				u := &unstructured.Unstructured{}
				if err := dec.Decode(&u.Object); err != nil {
					if errors.Is(err, io.EOF) {
						break
					}
					return nil, fmt.Errorf("cannot parse CRD file %s: %w", path, err)
				}
				if u.Object == nil || u.GetKind() != "CustomResourceDefinition" {
					continue
				}
				crds = append(crds, u)
			}
		}
	}
	return crds, nil
}
