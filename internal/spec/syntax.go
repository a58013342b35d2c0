package spec

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// syntaxMessage is a syntax error as go.yaml.in/yaml/v3 words it:
// "yaml: line N: problem", or "yaml: problem" when it has no line.
var syntaxMessage = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.+)$`)

// parserProblems are the problems yaml.v3's parser (parserc.go) reports;
// every other syntax error comes from its scanner (scannerc.go). The two
// sets share no message.
var parserProblems = map[string]bool{
	"did not find expected <stream-start>":   true,
	"did not find expected <document start>": true,
	"found undefined tag handle":             true,
	"did not find expected node content":     true,
	"did not find expected '-' indicator":    true,
	"did not find expected key":              true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found duplicate %TAG directive":         true,
}

// flowProblems are the parser's problems in a flow sequence or mapping,
// whose context mark is its opening "[" or "{".
var flowProblems = map[string]bool{
	"did not find expected ',' or ']'": true,
	"did not find expected ',' or '}'": true,
}

// syntaxLine returns the YAML syntax error err of the spec data with the
// line that holds the error, where yaml.v3 (v3.0.6, decode.go parser.fail)
// names another one for the errors of its parser:
//
//   - it prints a mark's line as it keeps it, counted from 0, and adds 1
//     only for its scanner's errors: a parser error is reported on the line
//     before (an unclosed "[" on line 4 says "line 3");
//   - it prints the context mark, where the construct being parsed began
//     (the "[" of a flow sequence, the first key of a block mapping),
//     unless that is on the first line, and then the problem mark, where
//     it failed (a stray "]" on line 3 is reported on the line of the
//     mapping's first key, counted from 0).
//
// The spec is parsed again after a blank line, so that no context mark is
// on the first line and the line yaml.v3 reports is the context's, counted
// from 1. The line of an error in a flow sequence or mapping ("did not
// find expected ',' or ']'") is that context: the opening "[" or "{" left
// unclosed. That of any other parser error is found by cutting the spec:
// it is the first line k such that the spec cut after line k, and after
// every later line, fails with the same problem in the same context (the
// same context line or, for a problem at the end of the spec, the end of
// the cut); before line k the cut spec parses, or fails otherwise. It is
// the line of the token the parser could not take (a stray "]", a key
// indented less than its mapping's), or of a "[" left open at the end of
// the spec ("did not find expected node content"). A scanner error keeps
// the line yaml.v3 gave, which is right; err is returned as it is when it
// is no syntax error, or the spec parsed again does not fail the same way.
func syntaxLine(data []byte, err error) error {
	var te *yaml.TypeError
	m := syntaxMessage.FindStringSubmatch(err.Error())
	if errors.As(err, &te) || m == nil || !parserProblems[m[2]] {
		return err
	}
	problem := m[2]
	full, ok := parse(data, problem)
	if !ok {
		return err
	}
	line := full.context
	if !flowProblems[problem] {
		lines := bytes.SplitAfter(data, []byte("\n"))
		line = len(lines)
		for ; line > 1; line-- {
			cut, ok := parse(bytes.Join(lines[:line-1], nil), problem)
			if !ok || cut.context != full.context && !(cut.atEnd && full.atEnd) {
				break
			}
		}
	}
	if m[1] == strconv.Itoa(line) {
		return err
	}
	return &lineError{msg: fmt.Sprintf("yaml: line %d: %s", line, problem), err: err}
}

// failure is where yaml.v3 fails on a spec parsed after a blank line.
type failure struct {
	// context is the line (counted from 1 in the spec) yaml.v3 names.
	context int
	// atEnd: the line is the one after the spec's last line break, where
	// its end of input is.
	atEnd bool
}

// parse parses data after a blank line and says where it fails with
// problem; false when it parses, or fails otherwise.
func parse(data []byte, problem string) (failure, bool) {
	shifted := make([]byte, 0, len(data)+4)
	if bom := []byte("\xef\xbb\xbf"); bytes.HasPrefix(data, bom) {
		shifted = append(append(shifted, bom...), '\n')
		data = data[len(bom):]
	} else {
		shifted = append(shifted, '\n')
	}
	shifted = append(shifted, data...)
	var n yaml.Node
	err := yaml.Unmarshal(shifted, &n)
	if err == nil {
		return failure{}, false
	}
	m := syntaxMessage.FindStringSubmatch(err.Error())
	if m == nil || m[2] != problem || m[1] == "" {
		return failure{}, false
	}
	line, _ := strconv.Atoi(m[1])
	return failure{context: line, atEnd: line == bytes.Count(data, []byte("\n"))+1}, true
}

// lineError is a YAML syntax error with its line corrected; it unwraps to
// yaml.v3's.
type lineError struct {
	msg string
	err error
}

func (e *lineError) Error() string { return e.msg }
func (e *lineError) Unwrap() error { return e.err }
