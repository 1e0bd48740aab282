package datasets

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ScanRaw streams the JSON lines of dataset files (or of any apeval JSONL,
// such as a labels file) without decoding them into a Case, for tools that
// must hand a line on unchanged: `datasets disagreements` copies original
// lines, `datasets label-import` rewrites one member and keeps the rest.
//
// fn gets each non-blank line's "id" (the only field decoded), the line
// itself without its line ending and the position as "file:line". The line
// is only valid during the call. Blank lines are skipped, a UTF-8 byte-order
// mark at the start of a file and "\r\n" endings are dropped, like Reader
// does. A line that is not a JSON object, or lacks a non-empty string id,
// stops the scan with a *LineError; so does a line longer than
// DefaultMaxLineBytes. "-" reads stdin (shown as StdinName). An error from
// fn stops the scan and is returned as is.
// An Opener as the last argument reads names with a scheme (s3://…).
func ScanRaw(paths []string, stdin io.Reader, fn func(id string, line []byte, source string) error, urls ...Opener) error {
	for _, p := range paths {
		if err := scanRawFile(p, stdin, fn, first(urls)); err != nil {
			return err
		}
	}
	return nil
}

func scanRawFile(path string, stdin io.Reader, fn func(id string, line []byte, source string) error, urls Opener) error {
	name := path
	var src io.Reader
	if path == "-" {
		name = StdinName
		if stdin == nil {
			return errors.New(name + ": no input")
		}
		src = stdin
	} else {
		f, err := urls.open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		src = f
		name = urls.display(path)
	}
	br, release, err := Decompress(bufio.NewReaderSize(src, 1<<20), name)
	if err != nil {
		return err
	}
	defer release()
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 0, 64<<10), DefaultMaxLineBytes+2)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSuffix(sc.Bytes(), []byte("\r"))
		if line == 1 {
			text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
		}
		if isBlank(text) {
			continue
		}
		id, lerr := rawID(text)
		if lerr != nil {
			lerr.File, lerr.Line = name, line
			return lerr
		}
		if err := fn(id, text, fmt.Sprintf("%s:%d", name, line)); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &LineError{File: name, Line: line + 1, Msg: fmt.Sprintf("line longer than %d bytes", DefaultMaxLineBytes)}
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// rawID checks that line is one JSON object and returns its "id". The
// returned error has no position; the caller fills it in.
func rawID(line []byte) (string, *LineError) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			return "", &LineError{Msg: "not a JSON object: got " + ute.Value}
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return "", &LineError{Msg: fmt.Sprintf("invalid JSON: %v (at byte %d)", se, se.Offset)}
		}
		return "", &LineError{Msg: "invalid JSON: " + err.Error()}
	}
	if obj == nil {
		return "", &LineError{Msg: "not a JSON object: null"}
	}
	raw, ok := obj["id"]
	if !ok {
		return "", &LineError{Field: "id", Msg: "missing"}
	}
	var id string
	if err := json.Unmarshal(raw, &id); err != nil {
		return "", &LineError{Field: "id", Msg: "want a string, got " + rawKind(raw)}
	}
	if id == "" {
		return "", &LineError{Field: "id", Msg: "empty"}
	}
	return id, nil
}

// rawKind names the JSON type of a raw value for error messages.
func rawKind(raw json.RawMessage) string { return jsonKind(firstNonSpace(raw)) }

// Lines reads the original lines of the cases ids names, in one pass over
// the datasets (ScanRaw): lines[i] is the line of ids[i] (nil when no
// dataset has it) and where[i] its file:line. Only those lines are held in
// memory. An id found on two lines is an error naming both.
func Lines(paths []string, stdin io.Reader, ids []string, urls ...Opener) (lines [][]byte, where []string, err error) {
	want := make(map[string]int, len(ids))
	for i, id := range ids {
		want[id] = i
	}
	lines = make([][]byte, len(ids))
	where = make([]string, len(ids))
	err = ScanRaw(paths, stdin, func(id string, line []byte, source string) error {
		i, ok := want[id]
		if !ok {
			return nil
		}
		if lines[i] != nil {
			return fmt.Errorf("%s: id: %q already at %s", source, id, where[i])
		}
		lines[i], where[i] = bytes.Clone(line), source
		return nil
	}, urls...)
	return lines, where, err
}

// CaseIndex reads the datasets once (ScanRaw) and returns a lookup of
// their cases by ID: the case of the first line with that ID, decoded
// when asked for (nil, nil when no line has it). Every line is held in
// memory, raw.
func CaseIndex(paths []string, stdin io.Reader, urls ...Opener) (func(id string) (*Case, error), error) {
	type line struct {
		raw    []byte
		source string
	}
	lines := map[string]line{}
	if err := ScanRaw(paths, stdin, func(id string, raw []byte, source string) error {
		if _, dup := lines[id]; !dup {
			lines[id] = line{bytes.Clone(raw), source}
		}
		return nil
	}, urls...); err != nil {
		return nil, err
	}
	return func(id string) (*Case, error) {
		l, ok := lines[id]
		if !ok {
			return nil, nil
		}
		file, _, _ := strings.Cut(l.source, ":")
		return Decode(l.raw, file, 0, nil)
	}, nil
}
