package extref

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestResolveBoundedWrites checks that a referencer cannot make one Resolve
// allocate far more than its own size: many external values that each copy
// a large source, or targets whose indexes make nested arrays of nulls,
// are refused once what they would write passes maxResolvedSize.
func TestResolveBoundedWrites(t *testing.T) {
	data := make(map[string]any, 16384)
	for i := range 16384 {
		data[fmt.Sprintf("k%05d", i)] = strings.Repeat("a", 50)
	}
	reader := newReader(configMap("team-a", "big", data)) // 1 MiB as JSON
	const src = "{version: v1, resource: configmaps, name: big, fieldPath: data}"
	var copies, nested strings.Builder
	for i := range 128 {
		fmt.Fprintf(&copies, "- fromObject: %s\n  toFieldPath: spec.copy%d\n", src, i)
		fmt.Fprintf(&nested, "- fromObject: {version: v1, resource: configmaps, name: big, fieldPath: metadata.name}\n  toFieldPath: spec.n%d%s\n", i, strings.Repeat("[1024]", 150))
	}
	cases := map[string]struct {
		spec string
		want string // the error's first words: the first value refused
	}{
		"Copies":  {spec: copies.String(), want: "cannot resolve spec.externalValues[4].toFieldPath: cannot write value to spec.copy4: the values resolved exceed 4194304 bytes as JSON"},
		"Nested":  {spec: nested.String(), want: "cannot resolve spec.externalValues[5].toFieldPath: cannot write value to spec.n5[1024]"},
		"Obscure": {spec: strings.ReplaceAll(copies.String(), "toFieldPath: spec.copy", "makeAvailableAs: copy"), want: "cannot resolve spec.externalValues[4].makeAvailableAs: cannot write value (makeAvailableAs copy4): the values resolved exceed"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := widget(t, "team-a", "w", "externalValues:\n"+tc.spec)
			r := NewResolver(reader, testMapper(), SourcePolicy{})
			var err error
			if n := allocated(func() { _, err = r.Resolve(context.Background(), w) }); n > 8*maxResolvedSize {
				t.Errorf("Resolve(...) allocated %d bytes, more than 8 × maxResolvedSize", n)
			}
			if !errors.Is(err, ErrTarget) || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("Resolve(...): want an error wrapping ErrTarget starting %q, got %.300v", tc.want, err)
			}
		})
	}
}

// TestResolveTemplatesRetained checks that a Resolver does not keep every
// template its referencers hold: a compiled template takes many times its
// text (about 75 times for one of 4 KiB of nested actions), so a referencer
// holding hundreds of distinct templates would otherwise keep hundreds of
// megabytes alive for as long as its checked external values are cached.
func TestResolveTemplatesRetained(t *testing.T) {
	reader := newReader(configMap("team-a", "settings", map[string]any{"a": "x"}))
	body := strings.Repeat("{{(((((((((((((((((((((((((((((((((((((((((.a)))))))))))))))))))))))))))))))))))))))))}}", 45)
	var spec strings.Builder
	spec.WriteString("externalValues:\n")
	for i := range 256 {
		fmt.Fprintf(&spec, "- variables: [{name: a, fromRef: {version: v1, resource: configmaps, name: settings, fieldPath: data.a}}]\n  template: '%d%s'\n  toFieldPath: spec.t%d\n", i, body, i)
	}
	w := widget(t, "team-a", "w", spec.String())
	r := NewResolver(reader, testMapper(), SourcePolicy{})
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := r.Resolve(t.Context(), w)
	require.NoError(t, err)
	runtime.GC()
	runtime.ReadMemStats(&after)
	if kept := int64(after.HeapAlloc) - int64(before.HeapAlloc); kept > 48<<20 {
		t.Errorf("the Resolver keeps %d MiB after resolving 256 templates of 4 KiB, want at most 48 MiB", kept>>20)
	}
	runtime.KeepAlive(r)
	runtime.KeepAlive(w)
}
