package directstatus

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// RequestID returns the idempotency key of an external call made for obj: a
// UUID (RFC 9562, version 8) derived from obj's UID, its generation and the
// parts the caller adds, the same for the same inputs in any process.
// Cloud APIs take such a key with a mutating call (Google Cloud's requestId,
// AWS's ClientToken, Azure's x-ms-client-request-id) and, when a call with a
// key they have already accepted comes again, return the first call's
// result (its operation) instead of acting twice. So a controller that
// crashes after the call and before it records the operation, and calls
// again after a restart, starts no second operation:
//
//	key := directstatus.RequestID(obj, "update", actual.Etag)
//	name, err := cloud.UpdateAsync(ctx, id, desired, mask, key)
//
// Pass, as parts, what makes two calls for one generation different calls:
// the kind of call, and the version (etag) of the external resource the
// call is based on, so that correcting drift at the same generation is a
// new request while a retry of the same one is not.
func RequestID(obj client.Object, parts ...string) string {
	h := sha256.New()
	write := func(s string) {
		h.Write([]byte(strconv.Itoa(len(s))))
		h.Write([]byte{':'})
		h.Write([]byte(s))
	}
	write(string(obj.GetUID()))
	write(strconv.FormatInt(obj.GetGeneration(), 10))
	for _, p := range parts {
		write(p)
	}
	var u [16]byte
	copy(u[:], h.Sum(nil))
	u[6] = u[6]&0x0f | 0x80 // version 8: a custom, name-based UUID
	u[8] = u[8]&0x3f | 0x80 // the RFC 9562 variant
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:36], u[10:16])
	return string(b[:])
}
