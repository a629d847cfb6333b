package extref

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/ctrlkit/ctrlkit/extref/v1alpha1"
	"github.com/ctrlkit/ctrlkit/fieldpath"
)

// A compileError is a malformed external value: the field at fault and why.
type compileError struct {
	path string
	err  error
}

func invalid(path string, format string, args ...any) *compileError {
	return &compileError{path: path, err: fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)}
}

var variableName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// compile decodes and checks one external value, found at path.
func (r *Resolver) compile(path string, item any) (*entry, *compileError) {
	obj, ok := item.(map[string]any)
	if !ok {
		return nil, invalid(path, "want an object, got %s", describe(item))
	}
	var ev v1alpha1.ExternalValue
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(obj, &ev, true); err != nil {
		return nil, invalid(path, "%v", err)
	}

	e := &entry{path: path}
	sources := 0
	if ev.FromObject != nil {
		sources++
		e.sources = []v1alpha1.ObjectFieldRef{*ev.FromObject}
		if err := checkRef(path+".fromObject", *ev.FromObject); err != nil {
			return nil, err
		}
	}
	if ev.Combine != nil {
		sources++
		p := path + ".combine"
		if len(ev.Combine.Sources) == 0 {
			return nil, invalid(p+".sources", "at least one source is required")
		}
		for j, s := range ev.Combine.Sources {
			if err := checkRef(p+".sources["+strconv.Itoa(j)+"]", s); err != nil {
				return nil, err
			}
		}
		if ev.Combine.Fmt == "" {
			return nil, invalid(p+".fmt", "fmt is required")
		}
		if len(ev.Combine.Fmt) > maxExpressionLength {
			return nil, invalid(p+".fmt", "longer than %d bytes", maxExpressionLength)
		}
		f, err := parseFormat(ev.Combine.Fmt, len(ev.Combine.Sources))
		if err != nil {
			return nil, invalid(p+".fmt", "%v", err)
		}
		e.sources, e.format = ev.Combine.Sources, f
	}
	if ev.Variables != nil {
		sources++
		if len(ev.Variables) == 0 {
			return nil, invalid(path+".variables", "at least one variable is required")
		}
		if ev.Template == "" {
			return nil, invalid(path+".template", "variables need a template")
		}
		seen := make(map[string]bool, len(ev.Variables))
		for j, v := range ev.Variables {
			p := path + ".variables[" + strconv.Itoa(j) + "]"
			if !variableName.MatchString(v.Name) {
				return nil, invalid(p+".name", "%q is not a valid variable name (letters, digits and _, not starting with a digit)", v.Name)
			}
			if seen[v.Name] {
				return nil, invalid(p+".name", "duplicate variable %q", v.Name)
			}
			seen[v.Name] = true
			if err := checkRef(p+".fromRef", v.FromRef); err != nil {
				return nil, err
			}
			e.sources = append(e.sources, v.FromRef)
			e.names = append(e.names, v.Name)
		}
		if len(ev.Template) > maxExpressionLength {
			return nil, invalid(path+".template", "longer than %d bytes", maxExpressionLength)
		}
		t, err := r.templates.get(ev.Template)
		if err != nil {
			return nil, invalid(path+".template", "%v", err)
		}
		e.template = t
	} else if ev.Template != "" {
		return nil, invalid(path+".template", "a template needs variables")
	}
	if sources != 1 {
		return nil, invalid(path, "exactly one of fromObject, combine and variables must be set, found %d", sources)
	}

	switch {
	case ev.ToFieldPath != "" && ev.MakeAvailableAs != "":
		return nil, invalid(path, "toFieldPath and makeAvailableAs are exclusive")
	case ev.ToFieldPath != "":
		if err := r.checkTarget(ev.ToFieldPath); err != nil {
			return nil, invalid(path+".toFieldPath", "%q: %v", ev.ToFieldPath, err)
		}
		e.target = ev.ToFieldPath
	case ev.MakeAvailableAs != "":
		e.key = ev.MakeAvailableAs
	default:
		return nil, invalid(path, "one of toFieldPath and makeAvailableAs is required")
	}

	if ev.Policy != nil {
		switch ev.Policy.Resolve {
		case "", v1alpha1.ResolveIfNotPresent:
		case v1alpha1.ResolveAlways:
			e.always = true
		default:
			return nil, invalid(path+".policy.resolve", "unsupported value %q (want IfNotPresent or Always)", ev.Policy.Resolve)
		}
		switch ev.Policy.Resolution {
		case "", v1alpha1.ResolutionRequired:
		case v1alpha1.ResolutionOptional:
			e.optional = true
		default:
			return nil, invalid(path+".policy.resolution", "unsupported value %q (want Required or Optional)", ev.Policy.Resolution)
		}
	}
	for j, t := range ev.Transforms {
		p := path + ".transforms[" + strconv.Itoa(j) + "]"
		if len(t.Format) > maxExpressionLength {
			return nil, invalid(p+".format", "longer than %d bytes", maxExpressionLength)
		}
		ct, err := compileTransform(t)
		if err != nil {
			return nil, invalid(p, "%v", err)
		}
		e.transforms = append(e.transforms, ct)
	}
	return e, nil
}

// checkRef checks the fields of a source reference.
func checkRef(path string, ref v1alpha1.ObjectFieldRef) *compileError {
	switch {
	case ref.Version == "":
		return invalid(path+".version", "version is required")
	case ref.Resource == "":
		return invalid(path+".resource", "resource is required")
	case ref.Name == "":
		return invalid(path+".name", "name is required")
	case ref.FieldPath == "":
		return invalid(path+".fieldPath", "fieldPath is required")
	}
	segs, err := fieldpath.Parse(ref.FieldPath)
	if err != nil {
		return invalid(path+".fieldPath", "%v", err)
	}
	for _, s := range segs {
		if s.Type == fieldpath.SegmentWildcard {
			return invalid(path+".fieldPath", "%q: wildcards are not allowed", ref.FieldPath)
		}
	}
	return nil
}

// checkTarget checks that a target lies under spec, outside the external
// values themselves, or is a single label or annotation.
func (r *Resolver) checkTarget(target string) error {
	segs, err := fieldpath.Parse(target)
	if err != nil {
		return err
	}
	for _, s := range segs {
		if s.Type == fieldpath.SegmentWildcard {
			return errors.New("wildcards are not allowed")
		}
	}
	field := func(i int, name string) bool {
		return i < len(segs) && segs[i].Type == fieldpath.SegmentField && (name == "" || segs[i].Field == name)
	}
	switch {
	case field(0, "metadata"):
		if len(segs) == 3 && (field(1, "labels") || field(1, "annotations")) && field(2, "") {
			return nil
		}
		return errors.New("the only metadata a value may be written to is one label or annotation")
	case field(0, "spec") && len(segs) >= 2:
		if overlaps(segs, r.pathSegs) {
			return fmt.Errorf("overlaps %s, where the external values are", r.path)
		}
		return nil
	}
	return errors.New("a value may be written only under spec, or to a label or an annotation")
}

// overlaps reports whether one path is a prefix of the other.
func overlaps(a, b fieldpath.Segments) bool {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
