package extref

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestResolveSecretData checks that a Secret's data is read decoded unless
// secretData says Base64, and that data which is not UTF-8 text is refused
// for the object, without its bytes in the error, but handed over with
// makeAvailableAs.
func TestResolveSecretData(t *testing.T) {
	const binary = "\xff\xfehunter2\x00"
	db := object(secretKind, "team-a", "db", map[string]any{"data": map[string]any{
		"user":   base64.StdEncoding.EncodeToString([]byte("admin")),
		"key":    base64.StdEncoding.EncodeToString([]byte(binary)),
		"broken": "%%%not base64",
	}})
	clean := secret("team-a", "clean", map[string]string{"user": "admin", "key": binary})
	settings := configMap("team-a", "settings", map[string]any{"region": "us-east-1"})
	policy := SourcePolicy{OwnNamespaceSecrets: true}
	ref := func(field, extra string) string {
		return `{version: v1, resource: secrets, name: db, fieldPath: ` + field + extra + `}`
	}

	cases := map[string]struct {
		reason  string
		spec    string
		want    summary
		wantSet map[string]any // spec.forProvider after Resolve
		wantErr error
		notIn   []string // must not appear in the error
	}{
		"DecodedByDefault": {
			reason:  "data.<key> of a Secret means the value, not its base64.",
			spec:    "- fromObject: " + ref("data.user", "") + "\n  toFieldPath: spec.forProvider.region",
			want:    summary{Changed: true, Resolved: 1},
			wantSet: map[string]any{"region": "admin"},
		},
		"DecodedExplicitly": {
			reason:  "secretData: Decoded is the default, spelled out.",
			spec:    "- fromObject: " + ref("data.user", ", secretData: Decoded") + "\n  toFieldPath: spec.forProvider.region",
			want:    summary{Changed: true, Resolved: 1},
			wantSet: map[string]any{"region": "admin"},
		},
		"Base64AsStored": {
			reason:  "secretData: Base64 gives the data as stored.",
			spec:    "- fromObject: " + ref("data.key", ", secretData: Base64") + "\n  toFieldPath: spec.forProvider.region",
			want:    summary{Changed: true, Resolved: 1},
			wantSet: map[string]any{"region": base64.StdEncoding.EncodeToString([]byte(binary))},
		},
		"WholeDataDecoded": {
			reason: "fieldPath data gives every key decoded.",
			spec:   "- fromObject: {version: v1, resource: secrets, name: clean, fieldPath: data}\n  makeAvailableAs: all",
			want:   summary{Resolved: 1, Values: map[string]any{"all": map[string]any{"user": "admin", "key": binary}}},
		},
		"WholeDataNotBase64": {
			reason:  "One key that does not decode fails the whole of data, naming the key.",
			spec:    "- fromObject: " + ref("data", "") + "\n  makeAvailableAs: all",
			want:    summary{Failed: []string{`cannot resolve spec.externalValues[0].fromObject (secrets team-a/db, data): field not found: data of the Secret: key "broken": not valid base64`}},
			wantErr: ErrFieldNotFound,
		},
		"BinaryToObjectRefused": {
			reason:  "Data that is not UTF-8 cannot be written to a string field; the error says so without the bytes.",
			spec:    "- fromObject: " + ref("data.key", "") + "\n  toFieldPath: spec.forProvider.region",
			want:    summary{Failed: []string{"cannot resolve spec.externalValues[0].toFieldPath: cannot write value to spec.forProvider.region: the value (a string of 10 bytes) is not valid UTF-8 text, which the object cannot hold: read a Secret's binary data as stored with secretData: Base64, or hand it over with makeAvailableAs"}},
			wantErr: ErrTarget,
			notIn:   []string{"hunter2", "\xff"},
		},
		"BinaryThroughTemplateRefused": {
			reason:  "The same when the data reaches the field through a template.",
			spec:    "- variables: [{name: k, fromRef: " + ref("data.key", "") + "}]\n  template: 'x-{{ .k }}'\n  toFieldPath: spec.forProvider.region",
			want:    summary{Failed: []string{"cannot resolve spec.externalValues[0].toFieldPath: cannot write value to spec.forProvider.region: the value (a string of 12 bytes) is not valid UTF-8 text, which the object cannot hold: read a Secret's binary data as stored with secretData: Base64, or hand it over with makeAvailableAs"}},
			wantErr: ErrTarget,
			notIn:   []string{"hunter2", "\xff"},
		},
		"BinaryHandedOver": {
			reason: "makeAvailableAs hands binary data over as it is.",
			spec:   "- fromObject: " + ref("data.key", "") + "\n  makeAvailableAs: key",
			want:   summary{Resolved: 1, Values: map[string]any{"key": binary}},
		},
		"NotBase64": {
			reason:  "Data that does not decode (no API server stores such) is an error that does not quote it.",
			spec:    "- fromObject: " + ref("data.broken", "") + "\n  makeAvailableAs: b",
			want:    summary{Failed: []string{"cannot resolve spec.externalValues[0].fromObject (secrets team-a/db, data.broken): field not found: data.broken of the Secret: not valid base64"}},
			wantErr: ErrFieldNotFound,
			notIn:   []string{"%%%"},
		},
		"SecretDataOnAConfigMap": {
			reason:  "secretData applies to a Secret's data only.",
			spec:    "- fromObject: {version: v1, resource: configmaps, name: settings, fieldPath: data.region, secretData: Base64}\n  toFieldPath: spec.forProvider.region",
			want:    summary{Failed: []string{"cannot resolve spec.externalValues[0].fromObject (configmaps team-a/settings, data.region): invalid external value: secretData applies to a Secret's data only"}},
			wantErr: ErrInvalid,
		},
		"SecretDataOutsideData": {
			reason:  "secretData applies to a Secret's data only, not its metadata.",
			spec:    "- fromObject: " + ref("metadata.name", ", secretData: Base64") + "\n  toFieldPath: spec.forProvider.region",
			wantErr: ErrInvalid,
		},
		"SecretDataUnknown": {
			reason:  "secretData is Decoded or Base64.",
			spec:    "- fromObject: " + ref("data.user", ", secretData: Hex") + "\n  toFieldPath: spec.forProvider.region",
			want:    summary{Failed: []string{`cannot resolve spec.externalValues[0].fromObject.secretData: invalid external value: unsupported value "Hex" (want Decoded or Base64)`}},
			wantErr: ErrInvalid,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			w := widget(t, "team-a", "w", "externalValues:\n"+tc.spec)
			out, err := NewResolver(newReader(db, clean, settings), testMapper(), policy).Resolve(t.Context(), w)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("%s\nResolve(...): want an error wrapping %v, got %v", tc.reason, tc.wantErr, err)
				}
				for _, s := range tc.notIn {
					if strings.Contains(err.Error(), s) {
						t.Errorf("%s\nResolve(...): the error holds %q: %v", tc.reason, s, err)
					}
				}
				if tc.want.Failed == nil {
					tc.want.Failed = summarize(out).Failed
				}
			} else if err != nil {
				t.Fatalf("%s\nResolve(...): %v", tc.reason, err)
			}
			if diff := cmp.Diff(tc.want, summarize(out)); diff != "" {
				t.Errorf("%s\nResolve(...): -want, +got:\n%s", tc.reason, diff)
			}
			if tc.wantSet != nil {
				got, _ := w.Object["spec"].(map[string]any)["forProvider"].(map[string]any)
				if diff := cmp.Diff(tc.wantSet, got); diff != "" {
					t.Errorf("%s\nspec.forProvider: -want, +got:\n%s", tc.reason, diff)
				}
			}
		})
	}
}
