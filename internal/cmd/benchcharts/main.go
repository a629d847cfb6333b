// Command benchcharts draws nop's BenchmarkAPIServer lateness as SVG charts:
// one chart per object count, one curve per mode, lateness by percentile on
// log scales. It reads the CSV the benchmark appends to NOP_BENCH_LATENESS_OUT
// (mode,objects,rate,workers,lateness_us) and writes
// DIR/nop-lateness-OBJECTS.svg. The same input and flags give the same bytes.
//
//	go run ./internal/cmd/benchcharts -in lateness.csv -out docs/benchmarks \
//		-machine "2 cores" -command "make bench-charts"
//
// `make bench-charts` runs the benchmark and this command.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	in := flag.String("in", "", "the benchmark's CSV `file`")
	out := flag.String("out", ".", "the `directory` the SVG files are written to")
	machine := flag.String("machine", "", "the machine the benchmark ran on, printed on each chart")
	command := flag.String("command", "", "the command that produced the input, printed on each chart")
	flag.Parse()
	if *in == "" || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*in, *out, *machine, *command); err != nil {
		fmt.Fprintln(os.Stderr, "benchcharts:", err)
		os.Exit(1)
	}
}

func run(in, out, machine, command string) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	runs, err := parse(f)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	for _, r := range runs {
		name := filepath.Join(out, fmt.Sprintf("nop-lateness-%d.svg", r.objects))
		if err := os.WriteFile(name, render(r, machine, command), 0o644); err != nil {
			return err
		}
		fmt.Println(name)
	}
	return nil
}
