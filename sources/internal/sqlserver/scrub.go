package sqlserver

import "strings"

// Scrub returns err with password replaced by "xxxxx" in its message, in
// case a driver echoes it; errors.Is and errors.As still reach err. It
// returns err itself when password is empty or not in the message.
func Scrub(err error, password string) error {
	if password == "" || !strings.Contains(err.Error(), password) {
		return err
	}
	return &scrubbedError{msg: strings.ReplaceAll(err.Error(), password, "xxxxx"), err: err}
}

// scrubbedError shows a message with the password removed; errors.Is and
// errors.As still reach the cause.
type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }
