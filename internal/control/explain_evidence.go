package control

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/evidence"
	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/sources"
	"github.com/reconcile-dev/reconcile/sources/fileset"
)

// ErrInputChanged is returned by Explain with ExplainOptions.Recorded when
// an input is no longer what the run read: a file's SHA-256 or size
// differs, a file read is gone, a file is new, or the input holds another
// number of rows. Its class is fault.Stale (exit 4): the rows explain would
// show are not those the evidence speaks of.
var ErrInputChanged = fault.Stale.New("explain: an input changed since the run")

// ErrEvidence is returned by SpecFromEvidence for a folder explain cannot
// take its spec from (no summary.json, a folder that does not verify
// against its manifest, a spec file it cannot place). A usage error.
var ErrEvidence = fault.Usage.New("explain: cannot explain from this evidence folder")

// SpecFromEvidence reads the evidence folder dir of a run — verified
// against its manifest first (evidence.Verify) — and returns the spec as
// the run recorded it (summary.json parameters: the spec file with its
// --param values and flags applied) and the summary. Relative input paths
// resolve against the folder of the spec file the run read (run.spec_file,
// absolute or relative to the working directory, as the run was started),
// or the working directory for a run given by flags alone. A password
// the evidence masks ("xxxxx") is left out of the input's URI and options,
// so the kind's driver takes it from the environment as it does when none
// is written. Warnings say what the caller should know (a spec file edited
// since the run: the recorded spec is used). Errors wrap ErrEvidence,
// evidence.ErrNoManifest or the spec's own.
func SpecFromEvidence(ctx context.Context, dir string) (*spec.Spec, *evidence.Summary, []string, error) {
	v, err := evidence.Verify(ctx, dir, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	if !v.OK() {
		return nil, nil, nil, fmt.Errorf("%w: %s does not verify against its manifest (%d changed, %d missing, %d added; reconcile verify %s lists them)", ErrEvidence, dir, len(v.Changed), len(v.Missing), len(v.Added), dir)
	}
	f, err := os.Open(filepath.Join(dir, evidence.SummaryFile))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%w: %w", ErrEvidence, err)
	}
	sum, err := evidence.DecodeSummary(f)
	f.Close()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%w: %s: %w", ErrEvidence, dir, err)
	}
	if sum.Parameters == nil || len(sum.Inputs) != 2 {
		return nil, nil, nil, fmt.Errorf("%w: %s: summary.json records no spec or not both inputs", ErrEvidence, dir)
	}
	s, err := specOf(sum.Parameters)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%w: %s: summary.json parameters: %w", ErrEvidence, dir, err)
	}
	var warnings []string
	switch file := sum.Run.Spec; file {
	case "":
		if s.Dir, err = os.Getwd(); err != nil {
			return nil, nil, nil, err
		}
	default:
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%w: the run read the spec file %s, which is not at that path from this folder (%v): run explain from the folder the run was started in, where its relative paths lead", ErrEvidence, file, err)
		}
		if specSHA256(data) != sum.Run.SpecSHA256 {
			warnings = append(warnings, fmt.Sprintf("the spec file %s was edited since the run (SHA-256 %s then, %s now): explaining with the spec as the run recorded it", file, sum.Run.SpecSHA256, specSHA256(data)))
		}
		abs, err := filepath.Abs(file)
		if err != nil {
			return nil, nil, nil, err
		}
		s.File, s.FileSHA256, s.Dir = file, sum.Run.SpecSHA256, filepath.Dir(abs)
	}
	for _, p := range []*string{&s.Out, &s.Restarts, &s.History} {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(s.Dir, *p)
		}
	}
	return s, sum, warnings, nil
}

// specOf is the spec a summary's parameters record (the inverse of
// parametersOf): tolerances, window durations and aggregates parsed from
// their text as a spec file's are; option values as YAML would read them
// (JSON numbers become int or float64); masked passwords left out.
func specOf(p *evidence.Parameters) (*spec.Spec, error) {
	s := &spec.Spec{Name: p.Name, Description: p.Description,
		Source: inputOfParameters(p.Source), Sink: inputOfParameters(p.Sink),
		ID: p.ID, Measures: p.Measures, GroupBy: p.GroupBy, Checkpoint: p.Checkpoint, LogicalKey: p.LogicalKey,
		Out: p.Out, Watermark: p.Watermark, Restarts: p.Restarts, TimeZone: p.TimeZone, History: p.History, Params: p.Params,
		Compare: p.Compare, Ignore: p.Ignore, Normalize: p.Normalize, AllowEmpty: p.AllowEmpty}
	var err error
	if s.Tolerance, err = tolerancesFrom(p.Tolerance); err != nil {
		return nil, err
	}
	if s.BalanceTolerance, err = tolerancesFrom(p.BalanceTolerance); err != nil {
		return nil, err
	}
	if e := p.Emission; e != nil {
		s.Emission = &spec.Emission{LastBy: e.LastBy}
	}
	if r := p.Reperform; r != nil {
		rp := &spec.Reperform{EventTime: r.EventTime, WindowEnd: r.WindowEnd, WindowStart: r.WindowStart, GroupBy: r.GroupBy}
		for _, d := range []struct {
			text string
			to   *spec.Duration
		}{{r.Window.Size, &rp.Window.Size}, {r.Window.Slide, &rp.Window.Slide}, {r.Window.Offset, &rp.Window.Offset}} {
			if d.text == "" {
				continue
			}
			if *d.to, err = spec.ParseDuration(d.text); err != nil {
				return nil, err
			}
		}
		for _, a := range r.Aggregates {
			rp.Aggregates = append(rp.Aggregates, spec.Aggregate{Column: a.Column, Func: a.Func, Distinct: a.Distinct, Arg: a.Arg})
		}
		s.Reperform = rp
	}
	return s, nil
}

func tolerancesFrom(m map[string]string) (map[string]spec.Tolerance, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := make(map[string]spec.Tolerance, len(m))
	for k, text := range m {
		t, err := spec.ParseTolerance(text)
		if err != nil {
			return nil, fmt.Errorf("tolerance %s: %w", k, err)
		}
		out[k] = t
	}
	return out, nil
}

// inputOfParameters is one recorded input as the spec takes it, a masked
// password left out (unmasked).
func inputOfParameters(in evidence.InputSpec) spec.Input {
	out := spec.Input{URI: unmasked(in.URI), TimeZone: in.TimeZone, Rename: in.Rename}
	for k, v := range in.Options {
		if strings.Contains(strings.ToLower(k), "password") && v == masked {
			continue
		}
		if out.Options == nil {
			out.Options = map[string]any{}
		}
		if sv, ok := v.(string); ok {
			v = unmasked(sv)
		}
		out.Options[k] = yamlValue(v)
	}
	return out
}

// masked is what sources.Redact writes for a password.
const masked = "xxxxx"

// unmasked leaves out of a URI or key=value connection string the
// passwords sources.Redact masked: the user information's
// (postgres://u:xxxxx@h → postgres://u@h) and a password=xxxxx parameter
// or word. Anything else is returned as it is.
func unmasked(uri string) string {
	if !strings.Contains(uri, masked) {
		return uri
	}
	if strings.Contains(uri, "://") {
		u, err := url.Parse(uri)
		if err != nil {
			return uri
		}
		if pw, ok := u.User.Password(); ok && pw == masked {
			u.User = url.User(u.User.Username())
		}
		q := u.Query()
		for k, vs := range q {
			if strings.EqualFold(k, "password") && len(vs) == 1 && vs[0] == masked {
				q.Del(k)
				u.RawQuery = q.Encode()
			}
		}
		return u.String()
	}
	words := strings.Fields(uri)
	kept := words[:0]
	for _, w := range words {
		if !strings.EqualFold(w, "password="+masked) {
			kept = append(kept, w)
		}
	}
	return strings.Join(kept, " ")
}

// specSHA256 is the SHA-256 of a spec file's bytes, as spec.LoadWith
// records it.
func specSHA256(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// yamlValue turns a value decoded from JSON with UseNumber into what YAML
// decodes the same text to: json.Number as int or float64, inside lists and
// mappings too.
func yamlValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return int(i)
		}
		if f, err := x.Float64(); err == nil {
			return f
		}
		return x.String()
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = yamlValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = yamlValue(e)
		}
		return out
	}
	return v
}

// refingerprint hashes again, before any row is read, every file the run
// recorded for each input (opt.Recorded; a relative path against the
// input's folder, spec.Spec.InputDir) and compares size and SHA-256. It
// returns an error wrapping ErrInputChanged naming each input and file
// that differs and both fingerprints, or with opt.AllowChanged the same as
// warnings.
func refingerprint(ctx context.Context, s *spec.Spec, opt ExplainOptions) ([]string, error) {
	var diffs []inputDiff
	for _, rec := range opt.Recorded {
		base, err := s.InputDir(rec.Role)
		if err != nil {
			return nil, err
		}
		d := inputDiff{input: rec}
		for _, f := range rec.Files {
			p := f.Path
			if !filepath.IsAbs(p) {
				p = filepath.Join(base, p)
			}
			now, err := fileset.Fingerprint(ctx, []string{p})
			switch {
			case err != nil:
				d.what = append(d.what, fmt.Sprintf("file %s was read by the run (SHA-256 %s, %d bytes) and cannot be read now (%v)", f.Path, f.SHA256, f.Bytes, err))
			case now[0].SHA256 != f.SHA256 || now[0].Bytes != f.Bytes:
				d.what = append(d.what, fmt.Sprintf("file %s: SHA-256 %s (%d bytes) at the run, %s (%d bytes) now", f.Path, f.SHA256, f.Bytes, now[0].SHA256, now[0].Bytes))
			}
		}
		if len(d.what) > 0 {
			diffs = append(diffs, d)
		}
	}
	return changed(diffs, opt)
}

// compareLoaded compares the inputs as loaded now (their files listed and
// hashed, their rows counted) with those the run recorded: a file new
// since the run or no longer listed, a file's SHA-256, the number of rows.
// An input without files (a database table, a topic) is compared by its
// rows alone, which a warning says. Errors and warnings as refingerprint.
func compareLoaded(inputs []*sources.Input, opt ExplainOptions) ([]string, error) {
	var diffs []inputDiff
	var notes []string
	for _, in := range inputs {
		if err := in.Hashed(); err != nil {
			return nil, fmt.Errorf("the %s %s: %w", in.Role, in.Location, err)
		}
		i := slices.IndexFunc(opt.Recorded, func(r *evidence.Input) bool { return r.Role == in.Role })
		if i < 0 {
			continue
		}
		rec := opt.Recorded[i]
		d := inputDiff{input: rec}
		then := map[string]evidence.File{}
		for _, f := range rec.Files {
			then[f.Path] = f
		}
		for _, f := range in.Files {
			was, ok := then[f.Path]
			switch {
			case !ok:
				d.what = append(d.what, fmt.Sprintf("file %s is new since the run (SHA-256 %s, %d bytes)", f.Path, f.SHA256, f.Bytes))
			case was.SHA256 != f.SHA256 || was.Bytes != f.Bytes:
				d.what = append(d.what, fmt.Sprintf("file %s: SHA-256 %s (%d bytes) at the run, %s (%d bytes) now", f.Path, was.SHA256, was.Bytes, f.SHA256, f.Bytes))
			}
			delete(then, f.Path)
		}
		for _, f := range rec.Files {
			if _, gone := then[f.Path]; gone {
				d.what = append(d.what, fmt.Sprintf("file %s was read by the run (SHA-256 %s, %d bytes) and is no longer listed", f.Path, f.SHA256, f.Bytes))
			}
		}
		if in.Rows != rec.Rows {
			d.what = append(d.what, fmt.Sprintf("%d rows at the run, %d now", rec.Rows, in.Rows))
		}
		if len(d.what) > 0 {
			diffs = append(diffs, d)
		} else if len(rec.Files) == 0 {
			notes = append(notes, fmt.Sprintf("the %s %s (%s) has no files to fingerprint: it is compared with the run by its row count alone (%d rows then and now), so a row changed in place since the run is not seen", rec.Role, rec.Location, rec.Kind, rec.Rows))
		}
	}
	warnings, err := changed(diffs, opt)
	return append(warnings, notes...), err
}

// inputDiff is what differs in one input since the run.
type inputDiff struct {
	input *evidence.Input
	what  []string
}

// changed is the error (or, with opt.AllowChanged, the warnings) for the
// inputs that differ; nil, nil when none does.
func changed(diffs []inputDiff, opt ExplainOptions) ([]string, error) {
	if len(diffs) == 0 {
		return nil, nil
	}
	var parts []string
	for _, d := range diffs {
		parts = append(parts, fmt.Sprintf("the %s %s (%s): %s", d.input.Role, d.input.Location, d.input.Kind, strings.Join(d.what, "; ")))
	}
	run := "the run"
	if opt.RunID != "" {
		run = "run " + opt.RunID
	}
	if !opt.AllowChanged {
		return nil, fmt.Errorf("%w (%s): %s; explain would show rows the run did not read (--allow-changed-inputs explains from the inputs as they are now, with a warning)", ErrInputChanged, run, strings.Join(parts, "; "))
	}
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = fmt.Sprintf("WARNING: changed since %s: %s; the rows shown are the input as it is now, not as the run read it", run, p)
	}
	return out, nil
}
