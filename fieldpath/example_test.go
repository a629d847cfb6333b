package fieldpath_test

import (
	"encoding/json"
	"fmt"

	"github.com/ctrlkit/ctrlkit/fieldpath"
)

// object decodes a manifest as a controller receives it.
func object(manifest string) map[string]any {
	var obj map[string]any
	if err := json.Unmarshal([]byte(manifest), &obj); err != nil {
		panic(err)
	}
	return obj
}

func ExamplePave() {
	p := fieldpath.Pave(object(`{
		"metadata": {"name": "db", "labels": {"app.kubernetes.io/name": "postgres"}},
		"spec": {"forProvider": {"region": "eu-west-1"}}
	}`))

	region, _ := p.GetString("spec.forProvider.region")
	app, _ := p.GetString("metadata.labels[app.kubernetes.io/name]")
	fmt.Println(region, app)

	_ = p.SetString("spec.forProvider.zone", "eu-west-1a")
	out, _ := json.Marshal(p.UnstructuredContent()["spec"])
	fmt.Println(string(out))
	// Output:
	// eu-west-1 postgres
	// {"forProvider":{"region":"eu-west-1","zone":"eu-west-1a"}}
}

func ExamplePave_nil() {
	// A nil object is fine: the first Set creates it.
	p := fieldpath.Pave(nil)
	_ = p.SetValue("spec.ports[1].port", 8080)
	out, _ := json.Marshal(p.UnstructuredContent())
	fmt.Println(string(out))
	// Output:
	// {"spec":{"ports":[null,{"port":8080}]}}
}

func ExamplePaved_GetValue() {
	p := fieldpath.Pave(object(`{"spec": {"containers": [{"name": "app", "image": "nginx"}]}}`))

	v, err := p.GetValue("spec.containers[0].image")
	fmt.Println(v, err)

	_, err = p.GetValue("spec.containers[1].image")
	fmt.Println(fieldpath.IsNotFound(err), err)

	_, err = p.GetValue("spec.containers.image")
	fmt.Println(fieldpath.IsNotFound(err), err)
	// Output:
	// nginx <nil>
	// true cannot get spec.containers[1].image: spec.containers has no element 1 (its length is 1)
	// false cannot get spec.containers.image: spec.containers is an array of 1 element, not an object
}

func ExamplePaved_SetValue() {
	type port struct {
		Name string `json:"name"`
		Port int32  `json:"port"`
	}
	p := fieldpath.Pave(map[string]any{})

	// Values are stored as the Kubernetes JSON decoder would produce them:
	// structs become objects and whole numbers int64.
	_ = p.SetValue("spec.ports[0]", port{Name: "http", Port: 80})
	_ = p.SetValue("spec.replicas", 3.0)
	replicas, _ := p.GetValue("spec.replicas")
	fmt.Printf("%T\n", replicas)

	// A value JSON cannot hold is an error, and nothing changes.
	err := p.SetValue("spec.callback", func() {})
	fmt.Println(err != nil)

	out, _ := json.Marshal(p.UnstructuredContent())
	fmt.Println(string(out))
	// Output:
	// int64
	// true
	// {"spec":{"ports":[{"name":"http","port":80}],"replicas":3}}
}

func ExamplePaved_ExpandWildcards() {
	p := fieldpath.Pave(object(`{
		"spec": {
			"containers": [
				{"name": "app", "env": {"LOG": "debug", "MODE": "fast"}},
				{"name": "sidecar"}
			]
		}
	}`))

	paths, _ := p.ExpandWildcards("spec.containers[*].env.*")
	for _, path := range paths {
		v, _ := p.GetString(path)
		fmt.Println(path, "=", v)
	}
	// Output:
	// spec.containers[0].env.LOG = debug
	// spec.containers[0].env.MODE = fast
}

func ExamplePaved_MergeValue() {
	p := fieldpath.Pave(object(`{"metadata": {"labels": {"team": "a", "tier": "db"}}}`))

	keep := true
	_ = p.MergeValue("metadata.labels", map[string]string{"team": "b", "env": "prod"},
		&fieldpath.MergeOptions{KeepMapValues: &keep})
	labels, _ := p.GetStringObject("metadata.labels")
	fmt.Println(labels)
	// Output:
	// map[env:prod team:a tier:db]
}

func ExampleParse() {
	segs, _ := fieldpath.Parse(`metadata.annotations["example.com/x"].items[2]`)
	for _, s := range segs {
		fmt.Printf("%+v\n", s)
	}
	fmt.Println(segs)

	_, err := fieldpath.Parse("spec..replicas")
	fmt.Println(err)
	// Output:
	// {Type:SegmentField Field:metadata Index:0}
	// {Type:SegmentField Field:annotations Index:0}
	// {Type:SegmentField Field:example.com/x Index:0}
	// {Type:SegmentField Field:items Index:0}
	// {Type:SegmentIndex Field: Index:2}
	// metadata.annotations[example.com/x].items[2]
	// cannot parse field path "spec..replicas": empty field name at position 5
}

func ExampleCompile() {
	objs := []map[string]any{
		object(`{"spec": {"replicas": 3}}`),
		object(`{"spec": {}}`),
	}
	// Compile once, outside the loop; Get allocates nothing.
	replicas := fieldpath.MustCompile("spec.replicas")
	for _, obj := range objs {
		v, err := replicas.Get(obj)
		fmt.Println(v, fieldpath.IsNotFound(err))
	}
	// Output:
	// 3 false
	// <nil> true
}
