package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// ErrBadInput is wrapped by every error about the benchmark's CSV.
var ErrBadInput = errors.New("bad benchmark output")

// Limits on hostile or mistaken input.
const (
	maxRows      = 10_000_000 // latenesses in one file
	maxLine      = 256        // bytes in one line
	maxModes     = 8          // curves in one chart
	maxRuns      = 16         // charts from one file
	maxModeName  = 32
	maxParameter = 100_000_000 // objects, rate or workers
)

const header = "mode,objects,rate,workers,lateness_us"

// A benchRun is one chart: the modes run at one object count.
type benchRun struct {
	objects, rate, workers int
	modes                  []mode // in modeOrder
}

// A mode is one curve: the sorted latenesses of one mode, in microseconds.
type mode struct {
	name string
	late []int64
}

// modeOrder is the order of the benchmark's modes; other modes follow in
// name order.
var modeOrder = []string{"floor", "deadline", "poll-1s", "provider-nop"}

// parse reads the benchmark's CSV: a header line, then one row per
// transition. Blank lines and repeated header lines (from appended runs)
// are skipped. Runs are returned in order of object count.
func parse(r io.Reader) ([]benchRun, error) {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 0, maxLine), maxLine)
	var runs []benchRun
	rows := 0
	line := 0
	for s.Scan() {
		line++
		text := strings.TrimSpace(s.Text())
		if text == "" || text == header {
			continue
		}
		if line == 1 {
			return nil, fmt.Errorf("%w: line 1 is not the header %q", ErrBadInput, header)
		}
		if rows++; rows > maxRows {
			return nil, fmt.Errorf("%w: more than %d rows", ErrBadInput, maxRows)
		}
		f := strings.Split(text, ",")
		if len(f) != 5 {
			return nil, fmt.Errorf("%w: line %d has %d fields, want 5", ErrBadInput, line, len(f))
		}
		name := f[0]
		if !validMode(name) {
			return nil, fmt.Errorf("%w: line %d: mode %q is not 1 to %d of a-z, 0-9, hyphen and dot", ErrBadInput, line, name, maxModeName)
		}
		var p [3]int
		for i, field := range []string{"objects", "rate", "workers"} {
			lo := 0
			if i == 0 {
				lo = 1
			}
			v, err := strconv.Atoi(f[i+1])
			if err != nil || v < lo || v > maxParameter {
				return nil, fmt.Errorf("%w: line %d: %s %q is not a number from %d to %d", ErrBadInput, line, field, f[i+1], lo, maxParameter)
			}
			p[i] = v
		}
		late, err := strconv.ParseInt(f[4], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: lateness_us %q is not an integer", ErrBadInput, line, f[4])
		}
		i := slices.IndexFunc(runs, func(r benchRun) bool { return r.objects == p[0] })
		if i < 0 {
			if len(runs) == maxRuns {
				return nil, fmt.Errorf("%w: line %d: more than %d object counts", ErrBadInput, line, maxRuns)
			}
			runs = append(runs, benchRun{objects: p[0], rate: p[1], workers: p[2]})
			i = len(runs) - 1
		}
		r := &runs[i]
		if r.rate != p[1] || r.workers != p[2] {
			return nil, fmt.Errorf("%w: line %d: %d objects at %d/s with %d workers, where an earlier row has %d/s with %d workers",
				ErrBadInput, line, p[0], p[1], p[2], r.rate, r.workers)
		}
		j := slices.IndexFunc(r.modes, func(m mode) bool { return m.name == name })
		if j < 0 {
			if len(r.modes) == maxModes {
				return nil, fmt.Errorf("%w: line %d: more than %d modes at %d objects", ErrBadInput, line, maxModes, r.objects)
			}
			r.modes = append(r.modes, mode{name: name})
			j = len(r.modes) - 1
		}
		r.modes[j].late = append(r.modes[j].late, late)
	}
	if err := s.Err(); err != nil {
		return nil, fmt.Errorf("%w: line %d: %v", ErrBadInput, line+1, err)
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("%w: no rows", ErrBadInput)
	}
	slices.SortFunc(runs, func(a, b benchRun) int { return a.objects - b.objects })
	for i := range runs {
		slices.SortFunc(runs[i].modes, func(a, b mode) int {
			ai, bi := rank(a.name), rank(b.name)
			if ai != bi {
				return ai - bi
			}
			return strings.Compare(a.name, b.name)
		})
		for _, m := range runs[i].modes {
			slices.Sort(m.late)
		}
	}
	return runs, nil
}

func rank(name string) int {
	if i := slices.Index(modeOrder, name); i >= 0 {
		return i
	}
	return len(modeOrder)
}

func validMode(s string) bool {
	if s == "" || len(s) > maxModeName {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// percentile is the nearest-rank percentile of sorted s, as the benchmark
// reports it.
func percentile(s []int64, p int) int64 {
	i := (len(s)*p + 99) / 100
	return s[min(max(i-1, 0), len(s)-1)]
}
