package conditions

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ctrlkit/ctrlkit/internal/jsonvalue"
)

// rawCondition is an entry of status.conditions as it is written: its
// strings as they are, lastTransitionTime not yet parsed.
type rawCondition struct {
	typ, status, reason, message, time string
	generation                         int64
}

// rawLists are the condition lists of an XR and its claim as settled read
// them. The lengths are one more than those of the lists read to the end,
// 0 for one not read: the zero value holds none. (A slice of the buffers
// kept here would move them to the heap.)
type rawLists struct {
	xrBuf, claimBuf [propagateBuf]rawCondition
	xrLen, claimLen int
}

// xrList and claimList return the lists read, or nil.
func (r *rawLists) xrList() []rawCondition {
	if r == nil || r.xrLen == 0 {
		return nil
	}
	return r.xrBuf[:r.xrLen-1]
}

func (r *rawLists) claimList() []rawCondition {
	if r == nil || r.claimLen == 0 {
		return nil
	}
	return r.claimBuf[:r.claimLen-1]
}

// conditionsOf is parseEntriesSummed of list, made from raw without reading
// list again when raw holds its entries and they are all conditions.
func conditionsOf(list []any, raw []rawCondition, dst []metav1.Condition, sums []uint64) ([]metav1.Condition, error) {
	if raw != nil && len(raw) == len(list) {
		if conds, ok := fromRaw(raw, dst, sums); ok {
			return conds, nil
		}
	}
	conds, _, err := parseEntriesSummed(list, dst, sums)
	return conds, err
}

// fromRaw appends the conditions of raw to dst, as parseEntriesSummed does
// for the entries they were read from, and reports false for a time that
// does not parse or a repeated type: parseEntriesSummed then says which.
func fromRaw(raw []rawCondition, dst []metav1.Condition, sums []uint64) ([]metav1.Condition, bool) {
	start := len(dst)
	for i := range raw {
		r := &raw[i]
		c := metav1.Condition{
			Type: r.typ, Status: metav1.ConditionStatus(r.status), Reason: r.reason, Message: r.message,
			ObservedGeneration: r.generation,
		}
		if r.time != "" {
			t, err := parseTime(r.time)
			if err != nil {
				return dst, false
			}
			c.LastTransitionTime = metav1.NewTime(t)
		}
		sum := typeSum(c.Type)
		if indexSummed(dst[start:], sums[start:], c.Type, sum) >= 0 {
			return dst, false
		}
		dst, sums = append(dst, c), append(sums, sum)
	}
	return dst, true
}

// The bit masks of settled hold one bit per condition.
const _ = uint(64 - propagateBuf)

// settled reports whether Propagate with record as its record field would
// leave claim as it is and return no error, when that is quick to tell: both
// condition lists have at most propagateBuf entries, all well-formed; every
// condition the XR lists for the claim is valid and on the claim with the
// same status, reason, message and the claim's generation (or none, see
// unchanged), and the XR's
// lastTransitionTime is unset or written exactly as the claim's; and the
// record lists exactly those types, or the claim has none. It reads both
// objects' raw values, comparing strings as strings, and allocates nothing
// for up to propagateBuf listed types. When it reports false Propagate
// takes its full path, which decides.
//
// The lists it reads are left in raw for the full path.
func settled(xr, claim *unstructured.Unstructured, record RecordField, raw *rawLists) bool {
	xrConds, ok := readRawConditions(xr.Object, raw.xrBuf[:0], true)
	if !ok {
		return false
	}
	raw.xrLen = len(xrConds) + 1
	claimConds, ok := readRawConditions(claim.Object, raw.claimBuf[:0], false)
	if !ok {
		return false
	}
	raw.claimLen = len(claimConds) + 1
	var listedBuf, recordedBuf [propagateBuf]string
	listed, err := appendStringList(listedBuf[:0], xr.Object, claimConditionsField)
	if err == nil {
		listed, err = appendStringList(listed, xr.Object, claimConditionTypesField)
	}
	if err != nil {
		return false
	}
	var recorded []string
	if len(record) > 0 {
		if recorded, err = appendStringList(recordedBuf[:0], claim.Object, record); err != nil {
			return false
		}
	}

	generation := claim.GetGeneration()
	var used, matched uint64 // bit i: xrConds[i] wanted, claimConds[i] compared
	wanted := 0
	sameRecord := true
	xrHint, claimHint := 0, 0
	reasonChecked, checkedReason := false, "" // conditions often share one
	for _, t := range listed {
		i := indexRawFrom(xrConds, t, xrHint)
		if i < 0 {
			continue
		}
		xrHint = i + 1
		if IsReserved(t) || used&(1<<i) != 0 {
			continue
		}
		used |= 1 << i
		x := &xrConds[i]
		if !plainValid(t, x.status, x.message, generation) {
			return false
		}
		if !reasonChecked || x.reason != checkedReason {
			if !plainReason(x.reason) {
				return false
			}
			reasonChecked, checkedReason = true, x.reason
		}
		if wanted >= len(recorded) || recorded[wanted] != t {
			sameRecord = false
		}
		wanted++

		j := indexRawFrom(claimConds, t, claimHint)
		if j < 0 {
			return false
		}
		claimHint = j + 1
		c := &claimConds[j]
		if c.status != x.status || c.reason != x.reason || c.message != x.message ||
			c.generation != generation && c.generation != 0 {
			return false
		}
		// An unset time on the XR keeps the claim's; a set one must be
		// written the same way, else the full path compares the instants.
		if x.time != "" && x.time != c.time {
			return false
		}
		if c.time != x.time && !validTime(c.time) {
			return false
		}
		matched |= 1 << j
	}
	if wanted != len(recorded) {
		sameRecord = false
	}
	if !sameRecord {
		// The record is written where the claim has the field.
		if len(recorded) > 0 {
			return false
		}
		if len(record) > 0 {
			if _, found, _ := unstructured.NestedFieldNoCopy(claim.Object, record...); found {
				return false
			}
		}
	}
	// The wanted conditions were found by type, so their types are
	// distinct; the others must not repeat a type, and the claim's must be
	// well-formed too.
	for j := range claimConds {
		if matched&(1<<j) == 0 && !validTime(claimConds[j].time) {
			return false
		}
	}
	return !repeated(xrConds, used) && !repeated(claimConds, matched)
}

// readRawConditions reads the entries of obj's status.conditions into dst,
// an empty slice, and reports whether they are well-formed (see parseEntry)
// and fit in dst's capacity. It checks lastTransitionTime only when checkTime; a caller that
// does not checks it later with validTime. Repeated types are the caller's
// to find (see repeated).
func readRawConditions(obj map[string]any, dst []rawCondition, checkTime bool) ([]rawCondition, bool) {
	_, list, err := conditionList(obj)
	if err != nil || len(list) > cap(dst) {
		return dst, false
	}
	dst = dst[:len(list)]
	checked := "" // the last time checked: conditions often share one
	for i, e := range list {
		r := &dst[i]
		if !readRaw(e, r) {
			return dst, false
		}
		if checkTime && r.time != checked {
			if !validTime(r.time) {
				return dst, false
			}
			checked = r.time
		}
	}
	return dst, true
}

// readRaw reads an entry of status.conditions into r as parseEntry does, but
// for lastTransitionTime, which it leaves unparsed and unchecked but for
// being a string, and reports whether the entry is well-formed.
func readRaw(e any, r *rawCondition) (ok bool) {
	m, ok := e.(map[string]any)
	if !ok {
		return false
	}
	if r.typ, ok = m[keyType].(string); !ok || r.typ == "" {
		return false
	}
	if r.status, ok = m[keyStatus].(string); !ok || r.status == "" {
		return false
	}
	if r.reason, ok = optional(m[keyReason]); !ok {
		return false
	}
	if r.message, ok = optional(m[keyMessage]); !ok {
		return false
	}
	if r.time, ok = optional(m[keyLastTransitionTime]); !ok {
		return false
	}
	switch g := m[keyObservedGeneration].(type) {
	case int64: // what apimachinery's decoder gives
		r.generation = g
	case nil:
		r.generation = 0
	default:
		if r.generation, ok = jsonvalue.WholeInt64(g); !ok {
			return false
		}
	}
	return true
}

// optional reads an optional string: a string, or nil for "".
func optional(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case nil:
		return "", true
	}
	return "", false
}

// validTime reports whether parseEntry accepts v as a lastTransitionTime:
// unset, or an RFC 3339 time.
func validTime(v string) bool {
	if v == "" {
		return true
	}
	if _, ok := canonicalTime(v); ok {
		return true
	}
	_, err := parseTime(v)
	return err == nil
}

// indexRawFrom is indexFrom for raw conditions.
func indexRawFrom(conds []rawCondition, t string, hint int) int {
	if hint > len(conds) {
		hint = 0
	}
	for i := hint; i < len(conds); i++ {
		if conds[i].typ == t {
			return i
		}
	}
	for i := range hint {
		if conds[i].typ == t {
			return i
		}
	}
	return -1
}

// repeated reports whether a condition of conds that is not in done (bit i
// for conds[i]) has the type of another one. The conditions in done must
// have distinct types.
func repeated(conds []rawCondition, done uint64) bool {
	for i := range conds {
		if done&(1<<i) != 0 {
			continue
		}
		for j := range conds {
			if j != i && conds[j].typ == conds[i].typ {
				return true
			}
		}
	}
	return false
}

// plainValid and plainReason report whether Validate accepts a condition of
// these fields whose type is a name of letters and digits alone and whose
// reason has only letters, digits and '_': the common forms, checked in one
// pass each. They report false for any other, which the full path
// validates.
func plainValid(t, status, message string, generation int64) bool {
	if status != string(metav1.ConditionTrue) && status != string(metav1.ConditionFalse) && status != string(metav1.ConditionUnknown) ||
		len(message) > MaxMessageLength || generation < 0 || t == "" || len(t) > maxNameLength {
		return false
	}
	for i := 0; i < len(t); i++ {
		if plainByte[t[i]] != 1 {
			return false
		}
	}
	return true
}

func plainReason(reason string) bool {
	if reason == "" || len(reason) > MaxReasonLength || !isLetter(reason[0]) {
		return false
	}
	for i := 1; i < len(reason); i++ {
		if plainByte[reason[i]] == 0 {
			return false
		}
	}
	return true
}

// plainByte is 1 for a letter or digit, 2 for '_', 0 for other bytes.
var plainByte = func() (t [256]uint8) {
	for b := range t {
		switch {
		case isAlnum(byte(b)):
			t[b] = 1
		case b == '_':
			t[b] = 2
		}
	}
	return t
}()
