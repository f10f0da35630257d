package config

import (
	"bytes"
	"fmt"
	"reflect"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"
)

// Keys lists every configuration key as a dotted path, in the order of
// the Config struct: "kafka.brokers", "kafka.tls.ca_file", … The
// free-form sections (input.attributes, queries.inline, alerts.per_query)
// are listed by their own path.
func Keys() []string {
	return keysOf(reflect.TypeFor[Config](), "")
}

func keysOf(t reflect.Type, path string) []string {
	var keys []string
	for _, kf := range structKeys(t) {
		key := joinField(path, kf.name)
		typ := kf.typ
		if typ.Kind() == reflect.Pointer {
			typ = typ.Elem()
		}
		if !kf.free && typ.Kind() == reflect.Struct && typ != durationType {
			keys = append(keys, keysOf(typ, key)...)
			continue
		}
		keys = append(keys, key)
	}
	return keys
}

// DefaultsYAML renders DefaultConfig as a YAML configuration file: every
// key with its default value, in the order of the Config struct, in the
// notation a file would use (durations "5s", sizes "2GiB"). demo, whose
// default depends on kafka.brokers, is left null.
func DefaultsYAML() ([]byte, error) {
	root, err := yamlNode(reflect.ValueOf(DefaultConfig()).Elem())
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

// yamlNode renders a config value as a YAML node.
func yamlNode(v reflect.Value) (*yaml.Node, error) {
	scalar := func(s, tag string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: s, Tag: tag} }
	switch {
	case v.Type() == durationType:
		return scalar(durText(time.Duration(v.Int())), "!!str"), nil
	case v.Type() == byteSizeType:
		return scalar(ByteSize(v.Int()).String(), "!!str"), nil
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return scalar("null", "!!null"), nil
		}
		return yamlNode(v.Elem())
	case reflect.Struct:
		m := &yaml.Node{Kind: yaml.MappingNode}
		for _, kf := range structKeys(v.Type()) {
			val, err := yamlNode(v.Field(kf.index))
			if err != nil {
				return nil, err
			}
			m.Content = append(m.Content, scalar(kf.name, "!!str"), val)
		}
		return m, nil
	case reflect.Slice:
		s := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for i := range v.Len() {
			it, err := yamlNode(v.Index(i))
			if err != nil {
				return nil, err
			}
			s.Content = append(s.Content, it)
		}
		return s, nil
	case reflect.Map:
		m := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
		if v.Len() > 0 {
			return nil, fmt.Errorf("config: rendering a non-empty default map %v", v.Type())
		}
		return m, nil
	case reflect.String:
		return scalar(v.String(), "!!str"), nil
	case reflect.Bool:
		return scalar(strconv.FormatBool(v.Bool()), ""), nil
	case reflect.Int, reflect.Int64, reflect.Int32:
		return scalar(strconv.FormatInt(v.Int(), 10), ""), nil
	case reflect.Float64:
		return scalar(strconv.FormatFloat(v.Float(), 'f', -1, 64), ""), nil
	}
	return nil, fmt.Errorf("config: no YAML rendering for %v", v.Type())
}
