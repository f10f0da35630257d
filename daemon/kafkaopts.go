package daemon

import (
	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/kafka"
)

// KafkaClientOptions translates the configuration's kafka section into
// the kafka package's client options: kafka knows no config (its options
// are its own), so this is where the two meet, for the daemon and for
// the subcommands that reach the daemon's cluster (monitor alerts
// --config). A disabled TLS section and an empty SASL mechanism become
// nil: plain TCP, no authentication.
func KafkaClientOptions(k *config.Kafka) kafka.ClientOptions {
	o := kafka.ClientOptions{ClientID: k.ClientID, MetadataRefresh: k.MetadataRefresh}
	if t := k.TLS; t.Enabled {
		o.Security.TLS = &kafka.TLS{CAFile: t.CAFile, CertFile: t.CertFile, KeyFile: t.KeyFile,
			InsecureSkipVerify: t.InsecureSkipVerify, ServerName: t.ServerName}
	}
	if s := k.SASL; s.Mechanism != "" {
		o.Security.SASL = &kafka.SASL{Mechanism: kafka.SASLMechanism(s.Mechanism), Username: s.Username, Password: s.Password}
	}
	return o
}
