package fieldpath

import (
	"errors"
	"fmt"
	"testing"
)

// upstreamFound is an error with crossplane-runtime's IsNotFound method that
// says it is not a not-found error.
type upstreamFound struct{ error }

func (upstreamFound) IsNotFound() bool { return false }

func TestIsNotFound(t *testing.T) {
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
		"Crossplane": {
			reason: "An error with crossplane-runtime's IsNotFound method is not found.",
			err:    upstreamNotFound{errors.New("boom")},
			want:   true,
		},
		"CrossplaneJoined": {
			reason: "An error joined with crossplane-runtime's not-found error is not found.",
			err:    errors.Join(errors.New("other"), upstreamNotFound{errors.New("boom")}),
			want:   true,
		},
		"MethodSaysFalse": {
			reason: "An IsNotFound method that returns false is believed.",
			err:    upstreamFound{errors.New("boom")},
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
