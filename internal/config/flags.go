package config

import (
	"reflect"
	"slices"
	"strconv"
)

// Setting is a value of the file that is also a command-line flag.
type Setting struct {
	// Flag is the flag's name, without dashes.
	Flag string
	// Key is where it is in the file, e.g. limits.max-pages.
	Key string
	// Values are in the flag's own syntax; a repeatable flag gets several.
	Values []string
	// Runs is set for keys of a section that starts processes (runs:"true").
	Runs bool
}

// Settings lists, in file order, the values the file sets that are also
// flags. Paths are resolved against the file's directory.
func (f *File) Settings() []Setting {
	var out []Setting
	collectSettings(reflect.ValueOf(f).Elem(), "", false, f, &out)
	return out
}

// FlagNames lists every flag a file key can set, with its key.
func FlagNames() map[string]string {
	out := map[string]string{}
	var walk func(t reflect.Type, where string)
	walk = func(t reflect.Type, where string) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			name := yamlName(sf)
			if name == "" {
				continue
			}
			if flag := sf.Tag.Get("flag"); flag != "" {
				out[flag] = join(where, name)
				continue
			}
			ft := sf.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				walk(ft, join(where, name))
			}
		}
	}
	walk(fileShape(), "")
	return out
}

func collectSettings(v reflect.Value, where string, runs bool, f *File, out *[]Setting) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name := yamlName(sf)
		if name == "" {
			continue
		}
		fv := v.Field(i)
		key := join(where, name)
		runs := runs || sf.Tag.Get("runs") == "true"
		flag := sf.Tag.Get("flag")
		if flag == "" {
			if fv.Kind() == reflect.Pointer && !fv.IsNil() {
				fv = fv.Elem()
			}
			if fv.Kind() == reflect.Struct {
				collectSettings(fv, key, runs, f, out)
			}
			continue
		}
		vals := flagValues(fv)
		if len(vals) == 0 {
			continue
		}
		if sf.Tag.Get("path") == "true" {
			for j := range vals {
				vals[j] = f.Resolve(vals[j])
			}
		}
		*out = append(*out, Setting{Flag: flag, Key: key, Values: vals, Runs: runs})
	}
}

// flagValues renders a field in flag syntax; nil when the field is unset.
func flagValues(v reflect.Value) []string {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return flagValues(v.Elem())
	case reflect.String:
		if v.String() == "" {
			return nil
		}
		return []string{v.String()}
	case reflect.Int, reflect.Int64:
		return []string{strconv.FormatInt(v.Int(), 10)}
	case reflect.Float64:
		return []string{strconv.FormatFloat(v.Float(), 'g', -1, 64)}
	case reflect.Bool:
		return []string{strconv.FormatBool(v.Bool())}
	case reflect.Slice:
		var out []string
		for i := 0; i < v.Len(); i++ {
			out = append(out, flagValues(v.Index(i))...)
		}
		return out
	case reflect.Map:
		var out []string
		keys := v.MapKeys()
		names := make([]string, len(keys))
		for i, k := range keys {
			names[i] = k.String()
		}
		slices.Sort(names)
		for _, k := range names {
			out = append(out, k+"="+v.MapIndex(reflect.ValueOf(k)).String())
		}
		return out
	}
	return nil
}

// SecretKeys lists the keys the file sets whose section is tagged
// secrets:"true": applying them sends credentials from the environment to
// the target.
func (f *File) SecretKeys() []string {
	var out []string
	v := reflect.ValueOf(f).Elem()
	for i := 0; i < v.NumField(); i++ {
		sf := v.Type().Field(i)
		if name := yamlName(sf); name != "" && sf.Tag.Get("secrets") == "true" && isSet(v.Field(i)) {
			out = append(out, name)
		}
	}
	for _, t := range f.Targets {
		// A target's tls: presents a client certificate or turns
		// verification off, as the top-level one does.
		if len(t.Identities) > 0 || t.TLS != (TLS{}) {
			return append(out, "targets")
		}
	}
	return out
}

// isSet reports whether a field holds a value: an empty list sends nothing.
func isSet(v reflect.Value) bool {
	if v.Kind() == reflect.Slice || v.Kind() == reflect.Map {
		return v.Len() > 0
	}
	return !v.IsZero()
}
