package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
)

// columnsValue is a flag of column names: comma-separated, and a repeated
// flag adds its names to the ones before (--id a --id b is --id a,b), where
// a plain string flag would keep only the last and drop the others without
// a word — a composite id silently cut to one part, a measure never
// balanced.
type columnsValue struct{ p *string }

func (v columnsValue) String() string { return *v.p }
func (v columnsValue) Type() string   { return "columns" }

func (v columnsValue) Set(s string) error {
	if *v.p != "" {
		s = *v.p + "," + s
	}
	*v.p = s
	return nil
}

// GetSlice returns the columns given so far; with it, cobra's completion
// knows the flag may repeat and offers it again.
func (v columnsValue) GetSlice() []string { return strings.Split(*v.p, ",") }

// columnsVar defines a columns flag (columnsValue) stored in p.
func columnsVar(fl *pflag.FlagSet, p *string, name, usage string) {
	fl.Var(columnsValue{p}, name, usage+" (the flag may repeat)")
}

// onceValue is a string flag that takes one value: given twice, it is an
// error naming both values (a usage error, exit 2), not the last one read
// as if the first had never been written. While the shell completes a
// command line (completing, set by setUpCompletion), which cobra parses
// twice, a second value is taken without complaint.
type onceValue struct {
	p          *string
	set        bool
	completing bool
}

func (v *onceValue) String() string { return *v.p }
func (v *onceValue) Type() string   { return "string" }

func (v *onceValue) Set(s string) error {
	if v.set && !v.completing {
		return fmt.Errorf("given twice (%q, then %q); it takes one value", *v.p, s)
	}
	*v.p, v.set = s, true
	return nil
}

// onceVar defines a string flag that refuses a second value (onceValue),
// stored in p.
func onceVar(fl *pflag.FlagSet, p *string, name, usage string) {
	fl.Var(&onceValue{p: p}, name, usage)
}
