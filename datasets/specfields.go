package datasets

import (
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
)

// The T1 format's field names (odgaard/TuningSchema) that augur does not
// read, besides those it does (t1Spec's): a spec may carry them for
// other tuners, and a name in neither list is most likely misspelt.
var (
	t1TopOther    = []string{"Search", "Budget", "$schema"}
	t1KernelOther = []string{"Device", "Profiling", "SimulationInput"}
	t1ArgOther    = []string{"TypeSize"}
	t1GeneralAll  = []string{"BenchmarkName", "FormatVersion", "LoggingLevel", "TimeUnit", "OutputFile", "OutputFormat"}
	t1ParamAll    = []string{"Name", "Type", "Values", "Default"}
	t1CondAll     = []string{"Parameters", "Expression"}
	t1SizeAll     = []string{"X", "Y", "Z"}
)

// unknownFields lists the fields of a T1 spec that neither augur nor the
// T1 format defines, such as a misspelt "GlobalSise", as warnings, each
// with its path; a misspelt field of augur's own "Augur" object is an
// error. Field names match case-insensitively, as encoding/json's do.
func unknownFields(data []byte) (warnings []string, err error) {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return nil, nil // decodeSpec reports it
	}
	if raw, ok := field(top, "Augur"); ok {
		var ext map[string]json.RawMessage
		if json.Unmarshal(raw, &ext) == nil {
			if bad := unknown(ext, fieldNames(reflect.TypeFor[SpecExtension]())); len(bad) > 0 {
				return nil, fmt.Errorf("the Augur object has no field %q (it has %s)", bad[0], strings.Join(fieldNames(reflect.TypeFor[SpecExtension]()), ", "))
			}
		}
	}
	warn := func(path string, obj map[string]json.RawMessage, known []string) {
		for _, name := range unknown(obj, known) {
			warnings = append(warnings, fmt.Sprintf("%s%s is not a field augur or the T1 format knows (misspelt?); ignored", path, name))
		}
	}
	warn("", top, append(fieldNames(reflect.TypeFor[t1Spec]()), t1TopOther...))
	each := func(raw json.RawMessage, fn func(map[string]json.RawMessage)) {
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) == nil {
			fn(obj)
		}
	}
	list := func(raw json.RawMessage, fn func(int, map[string]json.RawMessage)) {
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) == nil {
			for i, it := range items {
				each(it, func(obj map[string]json.RawMessage) { fn(i, obj) })
			}
		}
	}
	if raw, ok := field(top, "General"); ok {
		each(raw, func(g map[string]json.RawMessage) { warn("General.", g, t1GeneralAll) })
	}
	if raw, ok := field(top, "ConfigurationSpace"); ok {
		each(raw, func(cs map[string]json.RawMessage) {
			warn("ConfigurationSpace.", cs, []string{"TuningParameters", "Conditions"})
			if raw, ok := field(cs, "TuningParameters"); ok {
				list(raw, func(i int, p map[string]json.RawMessage) {
					warn(fmt.Sprintf("ConfigurationSpace.TuningParameters[%d].", i), p, t1ParamAll)
				})
			}
			if raw, ok := field(cs, "Conditions"); ok {
				list(raw, func(i int, c map[string]json.RawMessage) {
					warn(fmt.Sprintf("ConfigurationSpace.Conditions[%d].", i), c, t1CondAll)
				})
			}
		})
	}
	if raw, ok := field(top, "KernelSpecification"); ok {
		each(raw, func(ks map[string]json.RawMessage) {
			warn("KernelSpecification.", ks, append(fieldNames(reflect.TypeFor[t1Kernel]()), t1KernelOther...))
			for _, size := range []string{"GlobalSize", "LocalSize"} {
				if raw, ok := field(ks, size); ok {
					each(raw, func(s map[string]json.RawMessage) { warn("KernelSpecification."+size+".", s, t1SizeAll) })
				}
			}
			if raw, ok := field(ks, "Arguments"); ok {
				list(raw, func(i int, a map[string]json.RawMessage) {
					warn(fmt.Sprintf("KernelSpecification.Arguments[%d].", i), a, append(fieldNames(reflect.TypeFor[t1Arg]()), t1ArgOther...))
				})
			}
			if raw, ok := field(ks, "ReferenceArguments"); ok {
				list(raw, func(i int, a map[string]json.RawMessage) {
					warn(fmt.Sprintf("KernelSpecification.ReferenceArguments[%d].", i), a, append(fieldNames(reflect.TypeFor[t1RefArg]()), "RandomSeed"))
				})
			}
		})
	}
	return warnings, nil
}

// field returns obj's value of name, matched case-insensitively.
func field(obj map[string]json.RawMessage, name string) (json.RawMessage, bool) {
	for k, v := range obj {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return nil, false
}

// unknown returns obj's keys that match none of known, sorted.
func unknown(obj map[string]json.RawMessage, known []string) []string {
	var out []string
	for k := range obj {
		if !slices.ContainsFunc(known, func(n string) bool { return strings.EqualFold(n, k) }) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// fieldNames are the JSON names of struct type t's exported fields.
func fieldNames(t reflect.Type) []string {
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		names = append(names, cmp.Or(name, f.Name))
	}
	return names
}
