// Package samplegen holds what the sample generators (samples/*/gen.go)
// share: writing a CSV or a JSON file whole, panicking on any error (a
// generator that cannot write its sample has nothing else to do).
package samplegen

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
)

// WriteCSV writes name with header, then every row rows emits.
func WriteCSV(name string, header []string, rows func(emit func(...string))) {
	f, err := os.Create(name)
	if err != nil {
		panic(err)
	}
	w := csv.NewWriter(f)
	w.Write(header)
	rows(func(v ...string) { w.Write(v) })
	w.Flush()
	if err := w.Error(); err != nil {
		panic(err)
	}
	if err := f.Close(); err != nil {
		panic(err)
	}
}

// WriteJSON writes v as indented JSON to name, creating its folder.
func WriteJSON(name string, v any) {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		panic(err)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err)
	}
	if err := os.WriteFile(name, append(b, '\n'), 0o644); err != nil {
		panic(err)
	}
}
