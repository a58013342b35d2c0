package main

import (
	"fmt"
	"strings"

	"github.com/reconcile-dev/reconcile/internal/fault"
	"github.com/reconcile-dev/reconcile/internal/spec"
	"github.com/reconcile-dev/reconcile/sources"
)

// applyInputOptions sets the long-form keys of one input from the
// repeatable --source-option or --sink-option KEY=VALUE flags (flag names
// it in errors), over those of the spec file: rename=from:to,…, time_zone=
// and kind= as the spec's keys, every other key as the text of a kind
// option (sources.OptionText), which the input's kind reads as its own
// type and refuses when it does not know it (exit 2). expand replaces the
// spec parameters in each value.
func applyInputOptions(in *spec.Input, flag string, kvs []string, expand func(field, v string) string) error {
	for _, kv := range kvs {
		key, value, ok := strings.Cut(kv, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" {
			return fault.Usage.Mark(fmt.Errorf("%s %q: want KEY=VALUE, such as %s delimiter=';'", flag, kv, flag))
		}
		value = expand(flag+" "+key, value)
		switch key {
		case "uri":
			return fault.Usage.Mark(fmt.Errorf("%s uri=…: give the location with --%s", flag, strings.TrimSuffix(strings.TrimPrefix(flag, "--"), "-option")))
		case "rename":
			m, err := spec.ParseRename(value)
			if err != nil {
				return err
			}
			in.Rename = m
		case "time_zone":
			in.TimeZone = value
		default:
			if in.Options == nil {
				in.Options = map[string]any{}
			}
			if key == "kind" {
				in.Options[key] = value
			} else {
				in.Options[key] = sources.OptionText(value)
			}
		}
	}
	return nil
}
