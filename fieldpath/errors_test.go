package fieldpath

import (
	"errors"
	"fmt"
	"testing"
)

// methodError is another package's error with the IsNotFound method that
// crossplane-runtime's IsNotFound looks for.
type methodError struct {
	error
	notFound bool
}

func (e methodError) IsNotFound() bool { return e.notFound }

func TestIsNotFoundRecognises(t *testing.T) {
	missing := func() error {
		_, err := Pave(map[string]any{}).GetValue("a.b")
		return err
	}
	wrongType := func() error {
		_, err := Pave(map[string]any{"a": "x"}).GetValue("a.b")
		return err
	}
	cases := map[string]struct {
		reason string
		err    error
		want   bool
	}{
		"Nil": {
			reason: "No error is not a not-found error.",
			err:    nil,
		},
		"Ours": {
			reason: "A missing field is not found.",
			err:    missing(),
			want:   true,
		},
		"OursWrapped": {
			reason: "A wrapped not-found error is not found.",
			err:    fmt.Errorf("cannot read the region: %w", missing()),
			want:   true,
		},
		"WrongType": {
			reason: "A type mismatch is not a not-found error.",
			err:    wrongType(),
		},
		"CrossplaneShape": {
			reason: "The not-found error as crossplane-runtime's tests build it, notFoundError{err}, is not found.",
			err:    notFoundError{errors.New("boom")},
			want:   true,
		},
		"MethodSaysTrue": {
			reason: "Another package's error whose IsNotFound method returns true is not found.",
			err:    methodError{error: errors.New("boom"), notFound: true},
			want:   true,
		},
		"CrossplaneJoined": {
			reason: "An error joined with crossplane-runtime's not-found error is not found.",
			err:    errors.Join(errors.New("other"), notFoundError{errors.New("boom")}),
			want:   true,
		},
		"MethodSaysFalse": {
			reason: "An IsNotFound method that returns false is believed.",
			err:    methodError{error: errors.New("boom")},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := IsNotFound(tc.err); got != tc.want {
				t.Errorf("\n%s\nIsNotFound(%v) = %t, want %t", tc.reason, tc.err, got, tc.want)
			}
		})
	}
}

// crossplaneIsNotFound is crossplane-runtime's IsNotFound: it follows
// Unwrap() error to the innermost cause and asks whether that has an
// IsNotFound method (whatever the method returns).
func crossplaneIsNotFound(err error) bool {
	for {
		w, ok := err.(interface{ Unwrap() error })
		if !ok {
			break
		}
		err = w.Unwrap()
	}
	_, ok := err.(interface{ IsNotFound() bool })
	return ok
}

func TestNotFoundMeetsCrossplaneContract(t *testing.T) {
	obj := map[string]any{"a": map[string]any{"n": nil, "l": []any{}}, "s": "x"}
	cases := map[string]struct {
		path string
		want bool
	}{
		"MissingField": {path: "a.b", want: true},
		"MissingIndex": {path: "a.l[0]", want: true},
		"NullParent":   {path: "a.n.x", want: true},
		"WrongType":    {path: "s.x", want: false},
		"InvalidPath":  {path: "a..b", want: false},
		"Wildcard":     {path: "a[*]", want: false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Pave(obj).GetValue(tc.path)
			if err == nil {
				t.Fatalf("GetValue(%q): no error", tc.path)
			}
			if got := crossplaneIsNotFound(err); got != tc.want {
				t.Errorf("crossplane-runtime's IsNotFound(%q) = %t, want %t", err, got, tc.want)
			}
			wrapped := fmt.Errorf("cannot read: %w", err)
			if got := crossplaneIsNotFound(wrapped); got != tc.want {
				t.Errorf("crossplane-runtime's IsNotFound(%q) = %t, want %t", wrapped, got, tc.want)
			}
		})
	}
}
