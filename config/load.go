package config

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/viper"
	"go.yaml.in/yaml/v3"

	"github.com/motifwatch/motifwatch/alerts"
	"github.com/motifwatch/motifwatch/internal/yamldoc"
)

// EnvPrefix prefixes the environment variables that override config keys:
// MONITOR_<SECTION>_<KEY> sets section.key (MONITOR_KAFKA_BROKERS,
// MONITOR_WINDOW_ALLOWED_LATENESS, MONITOR_DEMO). Lists take a comma-
// separated string. input.attributes, queries.inline and alerts.per_query
// are set in the file only.
const EnvPrefix = "MONITOR"

// Load reads the YAML config file at path over DefaultConfig, applies
// environment overrides, and decodes strictly: unknown keys, duplicate keys
// and values of the wrong type are errors naming file, line and key (all of
// them, joined). path "" means defaults and environment only. Relative
// paths in the file (query files, TLS files) are resolved against the
// file's directory. Load does not Validate.
func Load(path string) (*Config, error) {
	if path == "" {
		return Parse(nil, "")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c, err := Parse(data, path)
	if err != nil {
		return nil, err
	}
	c.resolvePaths(filepath.Dir(path))
	return c, nil
}

// Parse is Load on the YAML text data; name is the file name used in
// errors and as Config.Source (it may be ""). Relative paths stay as
// written.
func Parse(data []byte, name string) (*Config, error) {
	l := &loader{file: name, lines: map[string]int{}}
	c, err := l.load(data)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// loader decodes one config file.
type loader struct {
	file  string
	lines map[string]int // field path → line of its key in the file
	errs  []error

	attributes map[string]string
	perQuery   map[string]QueryAlerts
	inline     []*yaml.Node
}

func (l *loader) errf(line int, field, format string, args ...any) {
	l.errs = append(l.errs, &FieldError{File: l.file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)})
}

func (l *loader) load(data []byte) (*Config, error) {
	root, err := l.decodeYAML(data)
	if err != nil {
		return nil, err
	}
	settings := map[string]any{}
	if root != nil {
		l.walk(root, reflect.TypeFor[Config](), "")
		if len(l.errs) > 0 {
			return nil, errors.Join(l.errs...)
		}
		if err := root.Decode(&settings); err != nil {
			return nil, &FieldError{File: l.file, Msg: err.Error()}
		}
		// The free-form sections were decoded by walk (keeping the case
		// and dots of attribute and query names, which viper would fold).
		for _, f := range freeFields {
			deletePath(settings, f)
		}
		dropNulls(settings)
	}

	v := viper.New()
	defaults := DefaultConfig()
	keys := setDefaults(v, reflect.ValueOf(defaults).Elem(), "")
	v.SetEnvPrefix(EnvPrefix)
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()
	if err := v.MergeConfigMap(settings); err != nil {
		return nil, &FieldError{File: l.file, Msg: err.Error()}
	}

	c := &Config{Source: l.file, origins: map[string]origin{}}
	for f, line := range l.lines {
		c.origins[f] = origin{line: line}
	}
	for _, k := range keys {
		if env := EnvVar(k); os.Getenv(env) != "" {
			c.origins[k] = origin{env: env}
		}
	}
	if err := v.UnmarshalExact(c, func(dc *mapstructure.DecoderConfig) {
		dc.DecodeHook = decodeHook
		dc.WeaklyTypedInput = false
		dc.ZeroFields = true
	}); err != nil {
		var errs []error
		for _, e := range flattenDecodeErrors(err, "") {
			errs = append(errs, c.decodeErr(e))
		}
		return nil, errors.Join(errs...)
	}

	c.Input.Attributes = defaults.Input.Attributes
	if l.attributes != nil {
		c.Input.Attributes = l.attributes
	}
	c.Alerts.PerQuery = defaults.Alerts.PerQuery
	if l.perQuery != nil {
		c.Alerts.PerQuery = l.perQuery
	}
	c.inline = l.inline
	for _, n := range l.inline {
		var m map[string]any
		if err := n.Decode(&m); err != nil {
			return nil, &FieldError{File: l.file, Line: n.Line, Field: "queries.inline", Msg: err.Error()}
		}
		c.Queries.Inline = append(c.Queries.Inline, m)
	}
	return c, nil
}

// EnvVar returns the environment variable that overrides the config key
// ("kafka.brokers" → "MONITOR_KAFKA_BROKERS").
func EnvVar(key string) string {
	return EnvPrefix + "_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// decodeYAML parses data into its single document's root mapping (nil for
// an empty document).
func (l *loader) decodeYAML(data []byte) (*yaml.Node, error) {
	root, err := yamldoc.Root(data)
	var ye *yamldoc.Error
	switch {
	case errors.As(err, &ye) && ye.SecondDocument:
		return nil, &FieldError{File: l.file, Line: ye.Line, Msg: "a second YAML document: a config file holds one"}
	case errors.As(err, &ye):
		return nil, &FieldError{File: l.file, Line: ye.Line, Msg: ye.Msg}
	case root == nil:
		return nil, nil
	case root.Kind != yaml.MappingNode:
		return nil, &FieldError{File: l.file, Line: root.Line, Msg: fmt.Sprintf("expected a mapping of sections (kafka:, input:, ...), found %s", yamldoc.Kind(root))}
	}
	return root, nil
}

// freeFields are the sections decoded from the YAML directly rather than
// through viper: their keys are names chosen by the user.
var freeFields = []string{"input.attributes", "queries.inline", "alerts.per_query"}

// keyField is a struct field as a config key.
type keyField struct {
	name  string
	index int
	typ   reflect.Type
	free  bool // decoded by the loader itself (mapstructure:"-" with a yaml name)
}

// structKeys lists the config keys of struct type t, in field order.
func structKeys(t reflect.Type) []keyField {
	var out []keyField
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, free := f.Tag.Get("mapstructure"), false
		if name == "-" || name == "" {
			name, free = f.Tag.Get("yaml"), name == "-"
		}
		if name == "" || name == "-" {
			continue
		}
		out = append(out, keyField{name: name, index: i, typ: f.Type, free: free})
	}
	return out
}

func keyNames(ks []keyField) string {
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = k.name
	}
	return strings.Join(names, ", ")
}

var durationType = reflect.TypeFor[time.Duration]()
var byteSizeType = reflect.TypeFor[ByteSize]()

func joinField(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// walk checks node n against config type t: unknown and duplicate keys,
// mappings and lists where a single value belongs, and the reverse. It
// records each key's line and decodes the free-form sections.
func (l *loader) walk(n *yaml.Node, t reflect.Type, path string) {
	n = yamldoc.Resolve(n)
	if yamldoc.IsNull(n) {
		return
	}
	switch {
	case t == durationType:
	case t.Kind() == reflect.Pointer:
		l.walk(n, t.Elem(), path)
		return
	case t.Kind() == reflect.Struct:
		if n.Kind != yaml.MappingNode {
			l.errf(n.Line, path, "expected a mapping, found %s", yamldoc.Kind(n))
			return
		}
		keys := structKeys(t)
		l.mapping(n, path, func(k, v *yaml.Node, field string) {
			i := slices.IndexFunc(keys, func(kf keyField) bool { return kf.name == k.Value })
			if i < 0 {
				in := "the top level"
				if path != "" {
					in = path
				}
				l.errf(k.Line, field, "unknown key (%s takes %s)", in, keyNames(keys))
				return
			}
			if keys[i].free {
				l.free(v, field)
				return
			}
			l.walk(v, keys[i].typ, field)
		})
		return
	case t.Kind() == reflect.Slice:
		switch n.Kind {
		case yaml.SequenceNode:
			for i, it := range n.Content {
				f := fmt.Sprintf("%s[%d]", path, i)
				l.lines[f] = it.Line
				l.walk(it, t.Elem(), f)
			}
		case yaml.ScalarNode:
			// A string may hold a comma-separated list ("a:9092,b:9092");
			// a number or a boolean is no list.
			if n.Tag != "!!str" {
				l.errf(n.Line, path, "expected a list (e.g. [%s]), found %s", n.Value, yamldoc.Kind(n))
			}
		default:
			l.errf(n.Line, path, "expected a list, found %s", yamldoc.Kind(n))
		}
		return
	}
	if n.Kind != yaml.ScalarNode {
		l.errf(n.Line, path, "expected a single value, found %s", yamldoc.Kind(n))
	}
}

// mapping calls fn for each key of mapping n, after checking that keys are
// plain scalars and unique, and recording their lines.
func (l *loader) mapping(n *yaml.Node, path string, fn func(k, v *yaml.Node, field string)) {
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := yamldoc.Resolve(n.Content[i]), yamldoc.Resolve(n.Content[i+1])
		if k.Kind != yaml.ScalarNode || k.Value == "<<" {
			l.errf(k.Line, path, "keys must be plain words, found %s", yamldoc.Kind(k))
			continue
		}
		field := joinField(path, k.Value)
		if line, dup := seen[k.Value]; dup {
			l.errf(k.Line, field, "duplicate key (also line %d)", line)
			continue
		}
		seen[k.Value] = k.Line
		l.lines[field] = k.Line
		fn(k, v, field)
	}
}

// free decodes the free-form section at field.
func (l *loader) free(n *yaml.Node, field string) {
	if yamldoc.IsNull(n) {
		return
	}
	switch field {
	case "input.attributes":
		if n.Kind != yaml.MappingNode {
			l.errf(n.Line, field, "expected a mapping of attribute names to types (amount: number), found %s", yamldoc.Kind(n))
			return
		}
		l.attributes = map[string]string{}
		l.mapping(n, field, func(k, v *yaml.Node, f string) {
			if v.Kind != yaml.ScalarNode || yamldoc.IsNull(v) {
				l.errf(v.Line, f, "expected a type (number or string), found %s", yamldoc.Kind(v))
				return
			}
			l.attributes[k.Value] = v.Value
		})
	case "alerts.per_query":
		if n.Kind != yaml.MappingNode {
			l.errf(n.Line, field, "expected a mapping of query names to {mode, rate_limit, rate_burst}, found %s", yamldoc.Kind(n))
			return
		}
		l.perQuery = map[string]QueryAlerts{}
		l.mapping(n, field, func(k, v *yaml.Node, f string) {
			l.perQuery[k.Value] = l.queryAlerts(v, f)
		})
	case "queries.inline":
		if n.Kind != yaml.SequenceNode {
			l.errf(n.Line, field, "expected a list of queries, found %s", yamldoc.Kind(n))
			return
		}
		for i, it := range n.Content {
			it = yamldoc.Resolve(it)
			f := fmt.Sprintf("%s[%d]", field, i)
			l.lines[f] = it.Line
			if it.Kind != yaml.MappingNode {
				l.errf(it.Line, f, "expected a query (a mapping with name, delta, edges, ...), found %s", yamldoc.Kind(it))
				continue
			}
			l.inline = append(l.inline, it)
		}
	}
}

var queryAlertKeys = []keyField{{name: "mode"}, {name: "rate_limit"}, {name: "rate_burst"}}

func (l *loader) queryAlerts(n *yaml.Node, field string) QueryAlerts {
	var qa QueryAlerts
	if yamldoc.IsNull(n) {
		return qa
	}
	if n.Kind != yaml.MappingNode {
		l.errf(n.Line, field, "expected a mapping {mode, rate_limit, rate_burst}, found %s", yamldoc.Kind(n))
		return qa
	}
	l.mapping(n, field, func(k, v *yaml.Node, f string) {
		if v.Kind != yaml.ScalarNode {
			l.errf(v.Line, f, "expected a single value, found %s", yamldoc.Kind(v))
			return
		}
		if yamldoc.IsNull(v) {
			return
		}
		switch k.Value {
		case "mode":
			qa.Mode = alerts.Mode(v.Value)
		case "rate_limit":
			x, err := strconv.ParseFloat(v.Value, 64)
			if err != nil {
				l.errf(v.Line, f, "%q is not a number", v.Value)
				return
			}
			qa.RateLimit = &x
		case "rate_burst":
			x, err := strconv.Atoi(v.Value)
			if err != nil {
				l.errf(v.Line, f, "%q is not an integer", v.Value)
				return
			}
			qa.RateBurst = &x
		default:
			l.errf(k.Line, f, "unknown key (%s takes %s)", field, keyNames(queryAlertKeys))
		}
	})
	return qa
}

// setDefaults registers every leaf of the defaults with viper (so that
// AutomaticEnv sees keys absent from the file) and returns their keys.
func setDefaults(v *viper.Viper, val reflect.Value, path string) []string {
	var keys []string
	for _, kf := range structKeys(val.Type()) {
		if kf.free {
			continue
		}
		key := joinField(path, kf.name)
		fv := val.Field(kf.index)
		if kf.typ.Kind() == reflect.Struct && kf.typ != durationType {
			keys = append(keys, setDefaults(v, fv, key)...)
			continue
		}
		v.SetDefault(key, fv.Interface())
		keys = append(keys, key)
	}
	return keys
}

// decodeHook converts what YAML and the environment give (strings from the
// environment, ints and strings from YAML) to the config's types, without
// mapstructure's weak typing (which would take true for 1 and truncate
// 1.5 to 1).
func decodeHook(from, to reflect.Type, data any) (any, error) {
	if data == nil {
		return nil, nil
	}
	if to == durationType {
		return toDuration(data)
	}
	if to == byteSizeType {
		return toByteSize(data)
	}
	s, isStr := data.(string)
	switch to.Kind() {
	case reflect.Slice:
		if isStr { // "a:9092, b:9092" (environment, or a YAML scalar)
			var out []string
			for _, part := range strings.Split(s, ",") {
				if part = strings.TrimSpace(part); part != "" {
					out = append(out, part)
				}
			}
			return out, nil
		}
	case reflect.String:
		switch data.(type) {
		case int, int64, uint64, float64, bool:
			return fmt.Sprint(data), nil
		}
	case reflect.Int, reflect.Int64:
		switch x := data.(type) {
		case string:
			n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%q is not an integer", x)
			}
			return n, nil
		case float64:
			if x != math.Trunc(x) || math.Abs(x) > 1<<62 {
				return nil, fmt.Errorf("%v is not an integer", x)
			}
			return int64(x), nil
		}
	case reflect.Float64:
		if isStr {
			f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				return nil, fmt.Errorf("%q is not a number", s)
			}
			return f, nil
		}
	case reflect.Bool:
		if isStr {
			b, err := strconv.ParseBool(strings.TrimSpace(s))
			if err != nil {
				return nil, fmt.Errorf("%q is not true or false", s)
			}
			return b, nil
		}
	}
	return data, nil
}

func toDuration(data any) (any, error) {
	switch x := data.(type) {
	case time.Duration:
		return x, nil
	case string:
		d, err := time.ParseDuration(strings.TrimSpace(x))
		if err != nil {
			if _, numErr := strconv.ParseFloat(strings.TrimSpace(x), 64); numErr == nil && strings.TrimSpace(x) != "0" {
				return nil, fmt.Errorf("%q is not a duration: give a unit (like 5s or 200ms)", x)
			}
			return nil, fmt.Errorf("%q is not a duration (like 5s, 200ms or 1m30s)", x)
		}
		return d, nil
	case int:
		if x == 0 {
			return time.Duration(0), nil
		}
	case float64:
		if x == 0 {
			return time.Duration(0), nil
		}
	}
	return nil, fmt.Errorf("%v is not a duration: give a unit (like 5s or 200ms)", data)
}

// decodeErr is a mapstructure error for one field.
type decodeErr struct {
	field string
	err   error
}

// flattenDecodeErrors lists the leaf errors of mapstructure's joined and
// nested DecodeErrors with the field each names.
func flattenDecodeErrors(err error, field string) []decodeErr {
	var de *mapstructure.DecodeError
	switch e := err.(type) {
	case interface{ Unwrap() []error }:
		var out []decodeErr
		for _, inner := range e.Unwrap() {
			out = append(out, flattenDecodeErrors(inner, field)...)
		}
		return out
	case *mapstructure.DecodeError:
		if inner := e.Unwrap(); errors.As(inner, &de) {
			return flattenDecodeErrors(inner, e.Name())
		}
		return []decodeErr{{field: e.Name(), err: e.Unwrap()}}
	case interface{ Unwrap() error }:
		// "decoding failed due to the following error(s)": the errors
		// themselves are inside.
		if errors.As(err, &de) {
			return flattenDecodeErrors(e.Unwrap(), field)
		}
	}
	return []decodeErr{{field: field, err: err}}
}

// decodeErr turns a decoding error into a *FieldError located by the
// field's origin, in the config's words rather than mapstructure's.
func (c *Config) decodeErr(e decodeErr) error {
	msg := e.err.Error()
	var pe *mapstructure.ParseError
	var ue *mapstructure.UnconvertibleTypeError
	switch {
	case errors.As(e.err, &pe):
		msg = fmt.Sprintf("%s is not %s", valueText(pe.Value), typeText(pe.Expected.Type()))
	case errors.As(e.err, &ue):
		msg = fmt.Sprintf("%s is not %s", valueText(ue.Value), typeText(ue.Expected.Type()))
	}
	if m := notSliceRE().FindStringSubmatch(msg); m != nil {
		// Set from the environment: a value the list type cannot take.
		msg = "expected a list, found " + m[1]
	}
	if rest, ok := strings.CutPrefix(msg, "has invalid keys: "); ok {
		msg = "unknown key(s) " + rest
	}
	return c.fieldErr(e.field, "%s", msg)
}

// notSliceRE matches mapstructure's words for a single value where a list
// belongs, which name Go kinds rather than the config's.
var notSliceRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`source data must be an array or slice, got (\w+)`)
})

func valueText(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	}
	return fmt.Sprint(v)
}

func typeText(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.Slice:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "a mapping"
	}
	return t.String()
}

// resolvePaths makes relative file paths that came from the file (not the
// environment) relative to dir, the config file's directory.
func (c *Config) resolvePaths(dir string) {
	fromFile := func(field string) bool {
		o := c.originOf(field)
		return o.env == "" && o.line > 0
	}
	fix := func(p *string, field string) {
		if *p != "" && !filepath.IsAbs(*p) && fromFile(field) {
			*p = filepath.Join(dir, *p)
		}
	}
	for i := range c.Queries.Files {
		fix(&c.Queries.Files[i], "queries.files")
	}
	fix(&c.Kafka.TLS.CAFile, "kafka.tls.ca_file")
	fix(&c.Kafka.TLS.CertFile, "kafka.tls.cert_file")
	fix(&c.Kafka.TLS.KeyFile, "kafka.tls.key_file")
	fix(&c.Kafka.Embedded.Dir, "kafka.embedded.dir")
}

// deletePath removes the dotted key path from nested maps.
func deletePath(m map[string]any, path string) {
	head, rest, nested := strings.Cut(path, ".")
	if !nested {
		delete(m, head)
		return
	}
	if sub, ok := m[head].(map[string]any); ok {
		deletePath(sub, rest)
	}
}

// dropNulls removes null values (a key written without a value means its
// default) from nested maps.
func dropNulls(m map[string]any) {
	for k, v := range m {
		switch x := v.(type) {
		case nil:
			delete(m, k)
		case map[string]any:
			dropNulls(x)
		}
	}
}
