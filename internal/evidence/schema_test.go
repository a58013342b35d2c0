package evidence

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/schema_keys.txt")

// goldenSummary is the summary.json the report package's golden test
// renders; it is decoded here so that both packages agree on one file.
var goldenSummary = filepath.Join("..", "..", "report", "testdata", "golden", "summary.json")

// TestSummaryRoundTrip: the committed summary.json decodes into Summary
// — no key unknown to the types — and encodes to the same bytes.
func TestSummaryRoundTrip(t *testing.T) {
	for _, file := range []string{goldenSummary, filepath.Join("..", "..", "report", "testdata", "golden", "windowed", "summary.json")} {
		t.Run(filepath.Base(filepath.Dir(file)), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			strict := json.NewDecoder(bytes.NewReader(data))
			strict.DisallowUnknownFields()
			strict.UseNumber()
			if err := strict.Decode(&Summary{}); err != nil {
				t.Fatalf("%s holds a key Summary does not have: %v", file, err)
			}
			s, err := DecodeSummary(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := s.Encode(&buf); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), data) {
				t.Errorf("re-encoded %s differs:\n%s", file, firstDiff(string(data), buf.String()))
			}
		})
	}
}

func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n-want " + w + "\n+got  " + g
		}
	}
	return ""
}

// TestSchemaKeys: the JSON keys of summary.json and manifest.json, as
// paths ("checks[].exceptions_file"), equal testdata/schema_keys.txt. A
// renamed or removed key fails here — it would break schema_version 1 or
// manifest_version 2 for every reader; an added key is a deliberate
// -update. Every field must carry a json tag.
func TestSchemaKeys(t *testing.T) {
	var lines []string
	for _, root := range []struct {
		file string
		v    any
	}{{SummaryFile, Summary{}}, {ManifestFile, Manifest{}}} {
		for _, k := range jsonKeys(t, reflect.TypeOf(root.v), "") {
			lines = append(lines, root.file+" "+k)
		}
	}
	got := strings.Join(lines, "\n") + "\n"
	golden := filepath.Join("testdata", "schema_keys.txt")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Errorf("the JSON keys changed (go test -run TestSchemaKeys -update rewrites %s once the change is meant):\n%s", golden, firstDiff(string(want), got))
	}
}

// jsonKeys lists the key paths of type t's JSON form, with ",omitempty"
// marked, in field order.
func jsonKeys(t *testing.T, typ reflect.Type, prefix string) []string {
	for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
		if typ.Kind() == reflect.Slice {
			prefix += "[]"
		}
		typ = typ.Elem()
	}
	if typ.Kind() == reflect.Map {
		return jsonKeys(t, typ.Elem(), prefix+"{}")
	}
	if typ.Kind() != reflect.Struct || typ == reflect.TypeOf(time.Time{}) {
		return nil
	}
	if _, custom := reflect.New(typ).Interface().(json.Marshaler); custom {
		return nil // Emission: "all" or {"last_by": …}, tested on its own
	}
	var out []string
	for i := range typ.NumField() {
		f := typ.Field(i)
		tag, ok := f.Tag.Lookup("json")
		if !ok {
			t.Errorf("%s.%s has no json tag: its key would be the Go name", typ.Name(), f.Name)
			continue
		}
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		key := prefix + "." + name
		if prefix == "" {
			key = name
		}
		if opts != "" {
			out = append(out, key+" ("+opts+")")
		} else {
			out = append(out, key)
		}
		out = append(out, jsonKeys(t, f.Type, key)...)
	}
	return out
}

func TestEmissionJSON(t *testing.T) {
	for _, tt := range []struct {
		e    Emission
		json string
	}{{Emission{}, `"all"`}, {Emission{LastBy: "emit_seq"}, `{"last_by":"emit_seq"}`}} {
		data, err := json.Marshal(tt.e)
		if err != nil || string(data) != tt.json {
			t.Errorf("%+v: %s, %v; want %s", tt.e, data, err, tt.json)
		}
		var back Emission
		if err := json.Unmarshal(data, &back); err != nil || back != tt.e {
			t.Errorf("%s read back as %+v, %v", data, back, err)
		}
	}
	for _, bad := range []string{`"some"`, `{"last_by": ""}`, `{"first_by": "x"}`, `3`} {
		var e Emission
		if err := json.Unmarshal([]byte(bad), &e); err == nil {
			t.Errorf("%s accepted as %+v", bad, e)
		}
	}
}

// TestDecodeSummaryVersion: another schema_version is refused, never read
// as if it were this one.
func TestDecodeSummaryVersion(t *testing.T) {
	if _, err := DecodeSummary(strings.NewReader(`{"schema_version": 2}`)); err == nil || !strings.Contains(err.Error(), "schema_version 2") {
		t.Errorf("schema_version 2: %v", err)
	}
}

func TestLayout(t *testing.T) {
	if got := ExceptionsFile("missing_ids"); got != "exceptions/missing_ids.csv" {
		t.Errorf("ExceptionsFile = %q", got)
	}
	if got := QueryFile("missing_ids"); got != "queries/missing_ids.sql" {
		t.Errorf("QueryFile = %q", got)
	}
	names := []string{SummaryFile, MarkdownFile, HTMLFile, WorkbookFile, ManifestFile, SignatureFile}
	sort.Strings(names)
	for _, n := range names {
		if !topLevel(n, false) || topLevel(n, true) {
			t.Errorf("%s not a top-level file of the layout", n)
		}
	}
	for _, n := range []string{"report.pdf", "notes.txt", "source.csv"} {
		if topLevel(n, false) {
			t.Errorf("%s taken as part of the layout", n)
		}
	}
}
