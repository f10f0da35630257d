package daemon

import (
	"github.com/segmentio/kafka-go"

	"github.com/motifwatch/motifwatch/config"
)

// KafkaClients returns the transport (writers, admin calls) and dialer
// (readers) for a configuration's kafka section, with its TLS and SASL
// settings: what the daemon uses, for subcommands that talk to the same
// cluster (monitor alerts --config).
func KafkaClients(k *config.Kafka) (*kafka.Transport, *kafka.Dialer, error) { return clients(k) }
