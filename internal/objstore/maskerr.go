package objstore

import "github.com/apeval/apeval/internal/mask"

// Credentials never reach a message: every URL and SDK error shown goes
// through mask.Message, which also hides the credential variables the SDKs
// read from the environment.

// maskedError is an SDK error whose text went through mask.Message;
// errors.Is, errors.As and gcerrors.Code still see the error it wraps.
type maskedError struct {
	msg string
	err error
}

func (e *maskedError) Error() string { return e.msg }
func (e *maskedError) Unwrap() error { return e.err }

// maskErr masks err's text for a message.
func maskErr(err error) error {
	if err == nil {
		return nil
	}
	return &maskedError{mask.Message(err.Error()), err}
}
