// Package fault classifies errors by how reconcile exits: it is the one
// place the exit-code policy lives. A package declares each of its
// sentinels with the class it belongs to, and the command decides the exit
// code with Of, one errors.Is chain over the whole wrapped error:
//
//	var ErrInvalid = fault.Usage.New("spec: invalid") // exit 2
//	…
//	return fmt.Errorf("%w: %s", ErrInvalid, why)     // still exit 2, however often wrapped
//	…
//	os.Exit(int(fault.Of(err)))
//
// An error of no class is a Runtime error (exit 3): what is not known to be
// the user's mistake or a verdict is never taken for one. The codes are the
// ones `reconcile help exit-codes` documents.
package fault

import (
	"errors"
	"strconv"
)

// Class is the kind of a failure; its value is the process exit code.
// A Class is itself an error, so that errors.Is(err, fault.Usage) asks
// whether err belongs to the class.
type Class int

const (
	// OK is no error: every check passed (exit 0). Of returns it for nil only.
	OK Class = 0
	// Failed: the control ran and found exceptions, or verify found a
	// difference; the evidence (or the list of differences) is written (exit 1).
	Failed Class = 1
	// Usage: a bad flag, spec key, column, location or --out; the run never
	// started reading, or stopped before writing anything (exit 2).
	Usage Class = 2
	// Runtime: an input could not be read, a value is not what its column
	// needs, a query failed, the engine ran out of memory, the run was
	// cancelled (exit 3). The class of every error not marked otherwise.
	Runtime Class = 3
	// Stale: an input is no longer what a run's evidence says it read
	// (explain --evidence), so what would be shown is not what the run
	// saw; nothing was explained (exit 4).
	Stale Class = 4
)

// String names the class: "ok", "failed", "usage" or "runtime".
func (c Class) String() string {
	switch c {
	case OK:
		return "ok"
	case Failed:
		return "failed"
	case Usage:
		return "usage"
	case Runtime:
		return "runtime"
	case Stale:
		return "stale"
	}
	return "class " + strconv.Itoa(int(c))
}

// Error makes a Class usable as an errors.Is target. It is never shown to a
// user: errors of a class carry their own message.
func (c Class) Error() string { return "fault: " + c.String() + " error" }

// New returns a new sentinel error with message msg that belongs to class
// c: errors.Is(err, c) holds for it and for every error wrapping it, and
// errors.Is(err, sentinel) keeps working as for errors.New.
func (c Class) New(msg string) error { return &sentinel{msg: msg, class: c} }

// Mark returns err as a member of class c, with err's message and chain
// unchanged (errors.Is and errors.As still find everything err wraps).
// Mark(c, nil) is nil. Use it where an error of another package (a parse
// error, a cobra error) is known to be of class c at the call site.
func (c Class) Mark(err error) error {
	if err == nil {
		return nil
	}
	return &marked{err: err, class: c}
}

// Of returns the class of err: OK for nil; otherwise the first of Failed,
// Stale, Usage and Runtime that errors.Is finds anywhere in err's chain
// (joined errors included); Runtime when err belongs to none. The order settles a
// chain holding two classes: a usage sentinel that wraps an I/O error (a
// restarts file that cannot be read) is a usage error.
func Of(err error) Class {
	if err == nil {
		return OK
	}
	for _, c := range []Class{Failed, Stale, Usage, Runtime} {
		if errors.Is(err, c) {
			return c
		}
	}
	return Runtime
}

// sentinel is an error value of a class (Class.New).
type sentinel struct {
	msg   string
	class Class
}

func (e *sentinel) Error() string        { return e.msg }
func (e *sentinel) Is(target error) bool { return target == error(e.class) }

// marked is an error of another origin placed in a class (Class.Mark).
type marked struct {
	err   error
	class Class
}

func (e *marked) Error() string        { return e.err.Error() }
func (e *marked) Unwrap() error        { return e.err }
func (e *marked) Is(target error) bool { return target == error(e.class) }
