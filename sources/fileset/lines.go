package fileset

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/reconcile-dev/reconcile/sources"
)

// SkipLine is what a check of Lines returns for a line the caller skips
// (a line listed as a bad record, bad_records: report).
var SkipLine = errors.New("fileset: skip the line")

// Lines calls fn for every non-blank line of a file of a scan (opened as
// every kind opens one: decompressed, cut to its valid length) with its
// 1-based line number, honouring ctx every 8192 lines. check, when not nil,
// sees every line first, as read (a blank line, the line break and a
// byte-order mark included), and an error it returns stops the read
// before fn sees the line — except SkipLine, which skips the line (fn does
// not see it) and goes on. fn sees the line without the white space around
// it and, on line 1, without a UTF-8 byte-order mark. An error of fn stops
// the read and is returned as it is; a read error names the file and the
// last line read.
func Lines(ctx context.Context, sf sources.ScanFile, check, fn func(line []byte, n int64) error) error {
	f, err := OpenScanFile(sf)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	var n int64
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			n++
			if n%8192 == 0 {
				if cerr := ctx.Err(); cerr != nil {
					return cerr
				}
			}
			if check != nil {
				if err := check(line, n); errors.Is(err, SkipLine) {
					continue
				} else if err != nil {
					return err
				}
			}
			if n == 1 {
				line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")) // UTF-8 byte-order mark
			}
			if t := bytes.TrimSpace(line); len(t) > 0 {
				if ferr := fn(t, n); ferr != nil {
					return ferr
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("after line %d: %w", n, err) // err names the file
		}
	}
}
