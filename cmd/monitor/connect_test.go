package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"

	"github.com/motifwatch/motifwatch/config"
	"github.com/motifwatch/motifwatch/daemon"
	"github.com/motifwatch/motifwatch/internal/testenv"
	"github.com/motifwatch/motifwatch/kafka"
	"github.com/motifwatch/motifwatch/kafka/kafkatest"
)

// connectingDaemon is a daemon started in the background that may not
// reach its brokers: its HTTP address is known as soon as it listens;
// started gets its Info once the pipeline starts.
type connectingDaemon struct {
	*testenv.Service[string]
	addr    string
	started chan daemon.Info
}

func startConnecting(t *testing.T, yaml string, logs io.Writer) *connectingDaemon {
	t.Helper()
	cfg, err := config.Parse([]byte(yaml), "connect.yaml")
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan daemon.Info, 1)
	s := testenv.Start(t, 30*time.Second, func(ctx context.Context, listening func(string)) error {
		return daemon.Run(ctx, daemon.Options{Config: cfg, Logger: newTestLogger(logs),
			Listening: listening, Started: func(i daemon.Info) { started <- i }})
	})
	return &connectingDaemon{Service: s, addr: s.Info, started: started}
}

func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	c := http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestStartWithBrokersUnreachable starts the daemon against a port where
// no broker listens (before, it logged nothing and its HTTP server did
// not listen until a broker answered): /healthz answers 200 at once,
// /readyz 503 "connecting: <the refusal>", /metrics counts the failed
// probes, the log says what fails. A broker started later on that port
// is picked up without a restart.
func TestStartWithBrokersUnreachable(t *testing.T) {
	port := testenv.FreePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	queries := writeQueries(t, "queries:\n  - {name: path-count, delta: 60, edges: [A -> B, B -> C]}\n")
	logs := &testenv.SyncBuffer{}
	d := startConnecting(t, e2eConfig([]string{addr}, "connect", queries, 0), logs)

	if code, body := httpGet(t, "http://"+d.addr+"/healthz"); code != http.StatusOK {
		t.Errorf("/healthz = %d %q; want 200", code, body)
	}
	waitReadiness(t, d.addr, false, "connecting: "+addr+": ")
	if _, body := readyz(d.addr); !strings.Contains(body, "dial tcp "+addr+": connect: connection refused") {
		t.Errorf("/readyz body %q; want the refused connection", body)
	}
	if !testenv.Poll(30*time.Second, 50*time.Millisecond, func() bool {
		_, m := httpGet(t, "http://"+d.addr+"/metrics")
		return regexp.MustCompile(`(?m)^motifwatch_kafka_errors_total\{operation="probe"\} [1-9]`).MatchString(m)
	}) {
		t.Errorf("/metrics never counted a failed probe")
	}
	if !testenv.Poll(30*time.Second, 50*time.Millisecond, func() bool {
		return strings.Contains(logs.String(), `level=WARN msg="kafka brokers not reachable; retrying" brokers=[`+addr+`] attempt=1 `)
	}) {
		t.Errorf("no log line for the first failed attempt; log:\n%s", testenv.Tail(logs.String(), 20))
	}
	select {
	case <-d.started:
		t.Fatal("the pipeline started without a broker")
	default:
	}

	emb := kafkatest.StartEmbedded(t, kafka.EmbeddedOptions{Port: port})
	defer emb.Close()
	select {
	case <-d.started:
	case <-time.After(60 * time.Second):
		t.Fatalf("the daemon did not start within 60s of the broker; log:\n%s", testenv.Tail(logs.String(), 20))
	}
	waitReadiness(t, d.addr, true, "")
	if !strings.Contains(logs.String(), `msg="kafka brokers answered"`) {
		t.Errorf("no line for the brokers' first answer; log:\n%s", testenv.Tail(logs.String(), 20))
	}
	if err := d.Stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
}

// TestStartWithWrongSASLPassword: a broker that refuses the daemon's
// login (a wrong password) is reported while the daemon keeps trying:
// /readyz says "connecting: … SASL Authentication Failed", the log has an
// error naming the mechanism and user, never the password; a stop ends
// the wait with that error.
func TestStartWithWrongSASLPassword(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ kfakeMech, mechanism, extra, logName string }{
		{"SCRAM-SHA-256", "scram-sha-256", "", "SASL SCRAM-SHA-256"},
		{"PLAIN", "plain", ", allow_insecure: true", "SASL PLAIN"},
	} {
		t.Run(c.mechanism, func(t *testing.T) {
			cluster := kafkatest.StartKfake(t, kfake.NumBrokers(1), kfake.EnableSASL(), kfake.Superuser(c.kfakeMech, saslUser, saslPassword))
			defer cluster.Close()
			queries := writeQueries(t, "queries:\n  - {name: path-count, delta: 60, edges: [A -> B, B -> C]}\n")
			cfg := e2eConfig(cluster.ListenAddrs(), "sasl", queries, 0)
			cfg = strings.Replace(cfg, "  group: sasl\n", fmt.Sprintf("  group: sasl\n  sasl: {mechanism: %s, username: %s, password: %q%s}\n",
				c.mechanism, saslUser, "wrong-"+saslPassword, c.extra), 1)
			logs := &testenv.SyncBuffer{}
			d := startConnecting(t, cfg, logs)
			waitReadiness(t, d.addr, false, "SASL Authentication Failed")
			_, body := readyz(d.addr)
			if !strings.Contains(body, "connecting: "+cluster.ListenAddrs()[0]+": ") {
				t.Errorf("/readyz body %q; want connecting: <broker>: <error>", body)
			}
			want := `level=ERROR msg="kafka ` + c.logName + ` authentication failed for user \"` + saslUser + `\"`
			if !testenv.Poll(30*time.Second, 50*time.Millisecond, func() bool { return strings.Contains(logs.String(), want) }) {
				t.Errorf("no log line %s; log:\n%s", want, testenv.Tail(logs.String(), 20))
			}
			if c.mechanism == "plain" && !strings.Contains(logs.String(), `kafka.sasl.allow_insecure: true: mechanism plain without kafka.tls sends the password to the brokers in clear text`) {
				t.Errorf("no warning for plain in clear text; log:\n%s", testenv.Tail(logs.String(), 20))
			}
			err := d.Stop()
			if err != nil {
				t.Errorf("Run after a stop while connecting = %v; want nil (a clean stop)", err)
			}
			stopped := `level=WARN msg="stopped before connecting to the kafka brokers"`
			if i := strings.Index(logs.String(), stopped); i < 0 || !strings.Contains(logs.String()[i:], "SASL Authentication Failed") {
				t.Errorf("no line %s with the last (authentication) error; log:\n%s", stopped, testenv.Tail(logs.String(), 20))
			}
			assertNoSecrets(t, "the log and error of a refused login", logs.String()+fmt.Sprint(err), "")
		})
	}
}

// TestSIGTERMWhileConnecting: `monitor run` stopped by SIGTERM while its
// brokers do not answer (a wrong address, Kafka not up yet) is a clean
// stop: exit status 0 and a line saying it stopped before connecting,
// with the last error. It used to exit 1 as if the run had failed, which
// a supervisor takes for a crash.
func TestSIGTERMWhileConnecting(t *testing.T) {
	t.Parallel()
	// Held refused for the whole test: a free port picked and closed
	// again was once the daemon's own metrics port (listen :0), which
	// answered the Kafka probe with HTTP instead of refusing it.
	addr := testenv.RefusedAddr(t)
	queries := writeQueries(t, "queries:\n  - {name: path-count, delta: 60, edges: [A -> B, B -> C]}\n")
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(e2eConfig([]string{addr}, "sigterm", queries, 0)), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "MONITOR_TEST_MAIN=1", "MONITOR_TEST_ARGS=run --config "+path)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var logs strings.Builder
	sc := bufio.NewScanner(stderr)
	signalled := false
	for sc.Scan() {
		fmt.Fprintln(&logs, sc.Text())
		if !signalled && strings.Contains(sc.Text(), `msg="kafka brokers not reachable; retrying"`) {
			cmd.Process.Signal(syscall.SIGTERM)
			signalled = true
		}
	}
	err = cmd.Wait()
	if !signalled {
		t.Fatalf("monitor run ended before its first failed attempt to connect: %v\n%s", err, logs.String())
	}
	if err != nil {
		t.Errorf("monitor run stopped by SIGTERM while connecting: %v; want exit status 0\n%s", err, logs.String())
	}
	want := `level=WARN msg="stopped before connecting to the kafka brokers" brokers=[` + addr + `]`
	if !strings.Contains(logs.String(), want) || !strings.Contains(logs.String(), "connection refused") {
		t.Errorf("no line %s with the last error; log:\n%s", want, logs.String())
	}
	if strings.Contains(logs.String(), "monitor: ") {
		t.Errorf("a clean stop printed an error; log:\n%s", logs.String())
	}
}
