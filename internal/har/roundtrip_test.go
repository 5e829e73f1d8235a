package har_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentready/agentready/internal/exchange"
	"github.com/agentready/agentready/internal/har"
	"github.com/agentready/agentready/internal/scan"
	"github.com/agentready/agentready/internal/spec"
)

// notCarried are the fields of the recording a HAR does not hold, each
// with why a replay needs it not. Every other field, exported or not, must
// come back from a HAR as it was written: TestEveryFieldSurvivesTheHAR
// fills each and fails on one that does not, and on a field that is
// neither filled nor listed here.
var notCarried = map[string]string{
	"scan.Recording.plans": "what the checks judging resources planned, for a shard's second stage; nil in a replay, which judges a whole recording",
	"exchange.Caller.Rank": "an identity's rank is its place among the callers, least privileged first, which the HAR keeps as their order; TestReplayAsSeveralIdentitiesWithMCP reads it back",
	// Caches of what the header and body say, derived again on first use.
	"exchange.Response.halOnce":   "cache of HAL(), derived from Body",
	"exchange.Response.linksOnce": "cache of Links(), derived from Header",
	"exchange.Response.json":      "cache of JSON(), derived from Body",
	"exchange.Response.hal":       "cache of HAL(), derived from Body",
	"exchange.Response.links":     "cache of Links(), derived from Header",
	"exchange.Response.mediaType": "cache of MediaType(), derived from Header",
}

// recordingFiller sets every field it reaches to a value of its own, so
// that a field the HAR loses or mixes up with another is told apart.
type recordingFiller struct {
	t *testing.T
	n int
	// depth bounds types that contain themselves (a request's session
	// opening holds requests).
	depth int
	// text is the string a field named name gets, given a number of its
	// own; by default the name and the number.
	text func(name string, n int) string
}

func (f *recordingFiller) next() int { f.n++; return f.n }

var (
	urlType      = reflect.TypeFor[*url.URL]()
	documentType = reflect.TypeFor[*spec.Document]()
	durationType = reflect.TypeFor[time.Duration]()
)

// fillerDocument is a small OpenAPI document, loaded as --record keeps it:
// a replay loads it again from its text, so a document is only ever
// compared by that.
const fillerDocument = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /things:\n    get:\n      operationId: listThings\n      responses: {'200': {description: ok}}\n"

func (f *recordingFiller) fill(v reflect.Value, name string) {
	switch v.Type() {
	case urlType:
		u, _ := url.Parse(fmt.Sprintf("https://host%d.example/base/", f.next()))
		v.Set(reflect.ValueOf(u))
		return
	case documentType:
		doc, err := spec.Load([]byte(fillerDocument), "openapi.yaml", "openapi.yaml")
		if err != nil {
			f.t.Fatal(err)
		}
		doc.Raw = []byte(fillerDocument)
		v.Set(reflect.ValueOf(doc))
		return
	case durationType:
		// HAR writes a duration to the microsecond.
		v.SetInt(int64(f.next()) * int64(time.Microsecond))
		return
	}
	switch v.Kind() {
	case reflect.String:
		if f.text != nil {
			v.SetString(f.text(name, f.next()))
			return
		}
		v.SetString(fmt.Sprintf("%s#%d", name, f.next()))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(f.next()))
	case reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(f.next()))
	case reflect.Uint8:
		v.SetUint(uint64('a' + f.next()%26))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(f.next()) + 0.5)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		f.fill(v.Elem(), name)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		f.fill(v.Index(0), name)
	case reflect.Map:
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		f.fill(k, name+".key")
		f.fill(e, name)
		v.Set(reflect.MakeMap(v.Type()))
		v.SetMapIndex(k, e)
	case reflect.Struct:
		f.fillStruct(v)
	default:
		f.t.Errorf("%s: the filler has no value for a %s; give it one, so that the field is tested", name, v.Type())
	}
}

func (f *recordingFiller) fillStruct(v reflect.Value) {
	rt := v.Type()
	f.depth++
	defer func() { f.depth-- }()
	for i := range rt.NumField() {
		field := rt.Field(i)
		name := rt.String() + "." + field.Name
		switch {
		case name == "exchange.Exchange.Started":
			// HAR writes a start time to the millisecond.
			v.Field(i).SetInt(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(f.next()) * time.Millisecond).UnixNano())
		case name == "exchange.Request.sessionStart":
			// Unexported, set as the probe sets it.
			if f.depth < 4 {
				var opening exchange.Request
				f.fill(reflect.ValueOf(&opening).Elem(), "sessionStart")
				v.Addr().Interface().(*exchange.Request).SetSessionStart([]exchange.Request{opening})
			}
		case name == "exchange.Response.Replaced":
			// A replay accepts what the probe keeps of a throttled answer.
			first := &exchange.ThrottledAnswer{Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {fmt.Sprint(f.next())}}}
			v.Field(i).Set(reflect.ValueOf(first))
		case notCarried[name] != "":
		case !field.IsExported():
			f.t.Errorf("%s is unexported: fill it in the filler (filledApart) or say in notCarried why a replay needs it not", name)
		default:
			f.fill(v.Field(i), name)
		}
	}
}

// lostFields walks want and got side by side and names each field whose
// values differ, as Type.Field.
func lostFields(want, got reflect.Value, field string, out map[string]bool) {
	if want.Type() == documentType {
		w, g := want.Interface().(*spec.Document), got.Interface().(*spec.Document)
		if (w == nil) != (g == nil) || w != nil && (!bytes.Equal(w.Raw, g.Raw) || w.Source != g.Source || w.File != g.File) {
			out[field] = true
		}
		return
	}
	switch want.Kind() {
	case reflect.Pointer, reflect.Interface:
		if want.IsNil() || got.IsNil() {
			if want.IsNil() != got.IsNil() {
				out[field] = true
			}
			return
		}
		lostFields(want.Elem(), got.Elem(), field, out)
	case reflect.Slice, reflect.Array:
		if want.Len() != got.Len() || want.Kind() == reflect.Slice && want.IsNil() != got.IsNil() {
			out[field] = true
			return
		}
		for i := range want.Len() {
			lostFields(want.Index(i), got.Index(i), field, out)
		}
	case reflect.Map:
		if want.Len() != got.Len() {
			out[field] = true
			return
		}
		for _, k := range want.MapKeys() {
			g := got.MapIndex(k)
			if !g.IsValid() {
				out[field] = true
				continue
			}
			lostFields(want.MapIndex(k), g, field, out)
		}
	case reflect.Struct:
		rt := want.Type()
		for i := range rt.NumField() {
			name := rt.String() + "." + rt.Field(i).Name
			if notCarried[name] != "" {
				continue
			}
			if name == "exchange.Request.sessionStart" {
				lostFields(reflect.ValueOf(want.Interface().(exchange.Request).SessionStart()),
					reflect.ValueOf(got.Interface().(exchange.Request).SessionStart()), name, out)
				continue
			}
			lostFields(want.Field(i), got.Field(i), name, out)
		}
	default:
		if !want.Equal(got) {
			out[field] = true
		}
	}
}

// TestEveryFieldSurvivesTheHAR writes a recording whose every field holds
// a value of its own, exchanges, samples, notes, stats, the MCP snapshots,
// the document, the identities and the active probes included, and reads
// it back: each comes back as it was. A field added to the recording fails
// this test until the HAR carries it, or notCarried says why a replay
// needs it not.
func TestEveryFieldSurvivesTheHAR(t *testing.T) {
	f := &recordingFiller{t: t}
	var want scan.Recording
	f.fill(reflect.ValueOf(&want).Elem(), "recording")
	if t.Failed() {
		t.FailNow()
	}
	var buf bytes.Buffer
	if err := har.Write(&buf, &want, har.Options{Version: "test"}); err != nil {
		t.Fatal(err)
	}
	arch, err := har.Read(&buf, har.DefaultMaxSize)
	if err != nil {
		t.Fatal(err)
	}
	lost := map[string]bool{}
	lostFields(reflect.ValueOf(&want).Elem(), reflect.ValueOf(arch.Recording).Elem(), "scan.Recording", lost)
	var names []string
	for name := range lost {
		names = append(names, name)
	}
	if len(names) > 0 {
		t.Errorf("read back from the HAR with another value: %s", strings.Join(names, ", "))
	}
}
