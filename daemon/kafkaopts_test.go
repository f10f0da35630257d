package daemon

import (
	"reflect"
	"testing"
	"time"

	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/kafka"
)

// TestKafkaClientOptions: every connection setting of the kafka section
// reaches kafka's own options; TLS off and no SASL mechanism are nil
// (plain TCP, no login) even where other keys of those sections are set.
func TestKafkaClientOptions(t *testing.T) {
	on := config.Kafka{ClientID: "mw-1", MetadataRefresh: 2 * time.Second,
		TLS:  config.TLS{Enabled: true, CAFile: "ca.pem", CertFile: "c.pem", KeyFile: "k.pem", InsecureSkipVerify: true, ServerName: "kafka.internal"},
		SASL: config.SASL{Mechanism: config.SASLScramSHA256, Username: "u", Password: "p", AllowInsecure: true}}
	off := config.Kafka{ClientID: "mw-2", TLS: config.TLS{ServerName: "ignored"}, SASL: config.SASL{Username: "ignored"}}
	for _, c := range []struct {
		name string
		in   config.Kafka
		want kafka.ClientOptions
	}{
		{"on", on, kafka.ClientOptions{ClientID: "mw-1", MetadataRefresh: 2 * time.Second, Security: kafka.Security{
			TLS:  &kafka.TLS{CAFile: "ca.pem", CertFile: "c.pem", KeyFile: "k.pem", InsecureSkipVerify: true, ServerName: "kafka.internal"},
			SASL: &kafka.SASL{Mechanism: kafka.SASLScramSHA256, Username: "u", Password: "p"}}}},
		{"off", off, kafka.ClientOptions{ClientID: "mw-2"}},
	} {
		if got := KafkaClientOptions(&c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: KafkaClientOptions = %+v (TLS %+v, SASL %+v); want %+v", c.name, got, got.Security.TLS, got.Security.SASL, c.want)
		}
	}
	// config's mechanism names are kafka's.
	for _, m := range []string{config.SASLPlain, config.SASLScramSHA256, config.SASLScramSHA512} {
		k := config.Kafka{SASL: config.SASL{Mechanism: m, Username: "u", Password: "p"}}
		if _, _, err := kafka.Clients(KafkaClientOptions(&k)); err != nil {
			t.Errorf("kafka.Clients of kafka.sasl.mechanism %s = %v", m, err)
		}
	}
}
