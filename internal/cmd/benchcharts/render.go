package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The chart's layout, in pixels.
const (
	width      = 760
	plotLeft   = 78
	plotRight  = 740
	plotTop    = 78
	plotBottom = 338
	legendTop  = 396
	lineHeight = 18
	samples    = 300 // points per curve
)

// modeStyle is each known mode's label and colour.
var modeStyle = map[string][2]string{
	"floor":        {"floor: no controller, each write sent at its deadline", "#444444"},
	"deadline":     {"deadline requeue (ctrlkit nop)", "#1f77b4"},
	"poll-1s":      {"1 s polling, write on change", "#ff7f0e"},
	"provider-nop": {"provider-nop style: 1 s polling, write on every poll", "#d62728"},
}

// peerPrefix starts the mode of provider-nop itself, followed by its
// version; the benchmark gives a transition it has not made when its run
// ends the least lateness it can have.
const (
	peerPrefix = "provider-nop-v"
	peerColour = "#17becf"
)

var otherColours = []string{"#2ca02c", "#9467bd", "#8c564b", "#e377c2"}

// minLateness is the least lateness drawn, in microseconds: the y axis is
// logarithmic, so less (or a negative lateness) is drawn at 1 ms.
const minLateness = 1000

// render draws one run as an SVG document: lateness (y, log scale) by
// percentile (x, log scale of 1/(1-p), so that the tail is as wide as the
// median), one curve per mode, and a legend with each mode's p50, p99 and max.
func render(r benchRun, machine, command string) []byte {
	var b bytes.Buffer
	height := legendTop + lineHeight*len(r.modes) + 40

	// The x axis runs from p0 to the largest mode's last point.
	most := 0
	hi, lo := int64(minLateness), int64(math.MaxInt64)
	for _, m := range r.modes {
		most = max(most, len(m.late))
		if len(m.late) > 0 {
			hi = max(hi, m.late[len(m.late)-1])
			lo = min(lo, max(m.late[0], minLateness))
		}
	}
	xMax := math.Log10(float64(max(most, 10)))
	x := func(v float64) float64 { return plotLeft + (plotRight-plotLeft)*v/xMax }
	// y: whole 1-2-5 steps around the data.
	yLo := math.Log10(niceBelow(lo))
	yHi := math.Log10(niceAbove(hi))
	if yHi <= yLo {
		yHi = yLo + 1
	}
	y := func(us int64) float64 {
		v := math.Log10(float64(max(us, minLateness)))
		return plotBottom - (plotBottom-plotTop)*(v-yLo)/(yHi-yLo)
	}

	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", width, height, width, height)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", width, height)
	text(&b, 16, 24, "start", `font-size="15" font-weight="bold"`, "nop: how late each transition becomes visible after its deadline, by percentile")
	text(&b, 16, 44, "start", "", fmt.Sprintf("%s objects created at %s/s, %s workers, 3 transitions each", group(r.objects), group(r.rate), group(r.workers)))
	if machine != "" {
		text(&b, 16, 60, "start", `fill="#555555"`, "machine: "+machine)
	}

	// Grid and y labels.
	for _, t := range ticks(yLo, yHi) {
		py := y(t)
		fmt.Fprintf(&b, `<line x1="%d" y1="%s" x2="%d" y2="%s" stroke="#dddddd"/>`+"\n", plotLeft, f1(py), plotRight, f1(py))
		label := duration(t)
		if t >= 1_000_000 && t%1_000_000 == 0 {
			label = strconv.FormatInt(t/1_000_000, 10) + " s"
		}
		text(&b, plotLeft-6, py+4, "end", "", label)
	}
	for _, p := range []struct {
		label string
		x     float64
	}{{"p0", 0}, {"p50", math.Log10(2)}, {"p90", 1}, {"p99", 2}, {"p99.9", 3}, {"p99.99", 4}, {"p99.999", 5}} {
		if p.x > xMax+1e-9 {
			break
		}
		px := x(p.x)
		fmt.Fprintf(&b, `<line x1="%s" y1="%d" x2="%s" y2="%d" stroke="#dddddd"/>`+"\n", f1(px), plotTop, f1(px), plotBottom)
		text(&b, px, plotBottom+16, "middle", "", p.label)
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#888888"/>`+"\n", plotLeft, plotTop, plotRight-plotLeft, plotBottom-plotTop)
	text(&b, (plotLeft+plotRight)/2, plotBottom+34, "middle", "", "percentile of transitions (the tail to the right)")
	fmt.Fprintf(&b, `<text x="18" y="%d" text-anchor="middle" transform="rotate(-90 18 %d)">lateness (log scale)</text>`+"\n", (plotTop+plotBottom)/2, (plotTop+plotBottom)/2)

	// Curves and legend.
	extra := 0
	for i, m := range r.modes {
		label, colour := m.name, ""
		if s, ok := modeStyle[m.name]; ok {
			label, colour = s[0], s[1]
		} else if strings.HasPrefix(m.name, peerPrefix) {
			label, colour = "provider-nop itself (unmade: least lateness)", peerColour
		} else {
			colour = otherColours[extra%len(otherColours)]
			extra++
		}
		if len(m.late) > 0 {
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="`, colour)
			n := len(m.late)
			xEnd := math.Log10(float64(n))
			prev := -1
			for k := 0; k <= samples; k++ {
				// Point j lies at p = j/n, x = log10(n/(n-j)).
				v := xEnd * float64(k) / samples
				j := min(n-1, int(math.Floor(float64(n)*(1-math.Pow(10, -v))+1e-9)))
				if j == prev {
					continue
				}
				prev = j
				if k > 0 {
					b.WriteByte(' ')
				}
				xv := math.Log10(float64(n) / float64(n-j))
				b.WriteString(f1(x(xv)) + "," + f1(y(m.late[j])))
			}
			b.WriteString(`"/>` + "\n")
		}
		ly := legendTop + lineHeight*i
		fmt.Fprintf(&b, `<line x1="16" y1="%d" x2="40" y2="%d" stroke="%s" stroke-width="3"/>`+"\n", ly-4, ly-4, colour)
		summary := "no data"
		if len(m.late) > 0 {
			summary = fmt.Sprintf("p50 %s, p99 %s, max %s", duration(percentile(m.late, 50)), duration(percentile(m.late, 99)), duration(percentile(m.late, 100)))
		}
		text(&b, 48, float64(ly), "start", "", fmt.Sprintf("%s (%s): %s", label, m.name, summary))
	}
	ly := legendTop + lineHeight*len(r.modes) + 8
	if command != "" {
		text(&b, 16, float64(ly), "start", `font-family="monospace" font-size="11" fill="#555555"`, command)
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// text writes a text element with s escaped.
func text(b *bytes.Buffer, x, y float64, anchor, attrs, s string) {
	fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="%s"`, f1(x), f1(y), anchor)
	if attrs != "" {
		b.WriteString(" " + attrs)
	}
	b.WriteByte('>')
	_ = xml.EscapeText(b, []byte(s))
	b.WriteString("</text>\n")
}

func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// steps are the 1-2-5 values of one decade.
var steps = []float64{1, 2, 5}

// niceBelow is the largest 1-2-5 value (µs) at or below us.
func niceBelow(us int64) float64 {
	d := math.Pow(10, math.Floor(math.Log10(float64(us))))
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i]*d <= float64(us) {
			return steps[i] * d
		}
	}
	return d
}

// niceAbove is the smallest 1-2-5 value (µs) above us.
func niceAbove(us int64) float64 {
	d := math.Pow(10, math.Floor(math.Log10(float64(us))))
	for _, s := range []float64{2, 5, 10} {
		if s*d > float64(us) {
			return s * d
		}
	}
	return 10 * d
}

// ticks are the 1-2-5 values (µs) from 10^lo to 10^hi.
func ticks(lo, hi float64) []int64 {
	var t []int64
	for d := math.Floor(lo); d <= math.Ceil(hi); d++ {
		for _, s := range steps {
			v := s * math.Pow(10, d)
			if l := math.Log10(v); l >= lo-1e-9 && l <= hi+1e-9 {
				t = append(t, int64(math.Round(v)))
			}
		}
	}
	return t
}

// duration formats microseconds as the benchmark's figures read: whole
// milliseconds below a second, seconds with two decimals above.
func duration(us int64) string {
	switch {
	case us >= 1_000_000:
		return strconv.FormatFloat(float64(us)/1e6, 'f', 2, 64) + " s"
	default:
		return strconv.FormatInt((us+500)/1000, 10) + " ms"
	}
}

// group writes n with thousands separators.
func group(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
