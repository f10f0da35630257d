package config

import "time"

// GPM configures the periodic static-GPM snapshot job: every Every, the
// window's live edges become an undirected graph (directions and times
// dropped) whose k-cliques or k-motifs are counted exactly; the counts are
// exported as the motifwatch_gpm_pattern_count metric and, when Topic is
// set, written to that Kafka topic as one JSON record per snapshot.
type GPM struct {
	// Every is the snapshot interval; 0 (the default) turns the job off.
	Every time.Duration `mapstructure:"every"`
	// App is clique or motif; K the subgraph size in vertices. They are
	// plain values here: which apps and sizes exist is the gpm engine's to
	// say, and the daemon checks them against it (daemon.Check), so that
	// config imports no engine.
	App string `mapstructure:"app"`
	K   int    `mapstructure:"k"`
	// Topic receives the snapshot records; "" means metrics only.
	Topic string `mapstructure:"topic"`
	// Workers is the counting goroutines (they run beside the pipeline,
	// on a snapshot); 0 = one per CPU.
	Workers int `mapstructure:"workers"`
}

// DefaultGPM is the job's configuration when the file leaves it out: off,
// and when switched on with just `every`, 4-vertex motifs with one worker.
func DefaultGPM() GPM { return GPM{App: "motif", K: 4, Workers: 1} }

// gpm checks the snapshot job; its settings matter only when it is on.
// App and K are the engine's: daemon.Check checks them.
func (v *validator) gpm() {
	g := &v.c.GPM
	if g.Every < 0 {
		v.fail("gpm.every", "%s must not be negative (0 = off)", durText(g.Every))
	}
	if g.Every == 0 {
		return
	}
	if g.Every < time.Second {
		v.fail("gpm.every", "%s is below the minimum of 1s (each snapshot copies the window)", durText(g.Every))
	}
	if g.Workers < 0 {
		v.fail("gpm.workers", "%d must not be negative (0 = one per CPU)", g.Workers)
	}
	if g.Topic == "" {
		return
	}
	if !validTopic(g.Topic) {
		v.fail("gpm.topic", "%q is not a Kafka topic name (1 to 249 of a-z A-Z 0-9 . _ -)", g.Topic)
	}
	k := &v.c.Kafka
	for _, t := range []struct{ field, name string }{
		{"kafka.edge_topic", k.EdgeTopic}, {"kafka.alert_topic", k.AlertTopic}, {"kafka.dead_letter_topic", k.DeadLetterTopic},
	} {
		if t.name == g.Topic {
			v.fail("gpm.topic", "%q is also %s: each topic has one role", g.Topic, t.field)
		}
	}
}
