package gatewaycheck

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/toolerr/toolerr/gatewaycheck/fake"
)

// EnvVar is the environment variable that carries the base URL of family f's
// fake upstream to a launched gateway: GWCHECK_OPENAI_URL,
// GWCHECK_ANTHROPIC_URL, GWCHECK_GEMINI_URL, GWCHECK_BEDROCK_URL. A LiteLLM
// proxy config reads them as api_base: os.environ/GWCHECK_ANTHROPIC_URL.
func EnvVar(f fake.Family) string { return "GWCHECK_" + strings.ToUpper(string(f)) + "_URL" }

// Env returns the KEY=value lines that point a gateway at the fakes of set.
func Env(set *fake.Set) []string {
	var env []string
	for _, f := range fake.Families() {
		env = append(env, EnvVar(f)+"="+set.URL(f))
	}
	return env
}

// Gateway is a gateway process the checker started.
type Gateway struct {
	cmd  *exec.Cmd
	done chan error
}

// Launch starts command (run by /bin/sh -c, in its own process group) with
// the fakes' URLs in its environment, its output to log, and waits until
// readyURL accepts TCP connections or readyTimeout passes. The caller stops
// it with Stop.
func Launch(ctx context.Context, command string, set *fake.Set, log io.Writer, readyURL string, readyTimeout time.Duration) (*Gateway, error) {
	host, err := dialHost(readyURL)
	if err != nil {
		return nil, err
	}
	// A gateway already listening there (one started by hand, say) would
	// take every request while the launched one fails to bind and exits:
	// the run would test the wrong gateway.
	if c, err := net.DialTimeout("tcp", host, 500*time.Millisecond); err == nil {
		c.Close()
		return nil, fmt.Errorf("gatewaycheck: something already listens on %s, so the gateway --gateway-cmd starts could not; stop it first, or give --base-url and the command another port", host)
	}
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Env = append(os.Environ(), Env(set)...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("gatewaycheck: starting the gateway: %w", err)
	}
	g := &Gateway{cmd: cmd, done: make(chan error, 1)}
	go func() { g.done <- cmd.Wait() }()
	deadline := time.Now().Add(readyTimeout)
	for {
		select {
		case err := <-g.done:
			g.done <- err
			return nil, fmt.Errorf("gatewaycheck: the gateway exited before it was ready: %v", err)
		case <-ctx.Done():
			g.Stop()
			return nil, ctx.Err()
		default:
		}
		if c, err := net.DialTimeout("tcp", host, 500*time.Millisecond); err == nil {
			c.Close()
			return g, nil
		}
		if time.Now().After(deadline) {
			g.Stop()
			return nil, fmt.Errorf("gatewaycheck: the gateway did not listen on %s within %s", host, readyTimeout)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// dialHost is the host:port a base URL's requests go to (port 80 or 443
// when the URL names none).
func dialHost(base string) (string, error) {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("gatewaycheck: cannot wait for %q: not a URL", base)
	}
	if u.Port() != "" {
		return u.Host, nil
	}
	port := "80"
	if u.Scheme == "https" {
		port = "443"
	}
	return net.JoinHostPort(u.Hostname(), port), nil
}

// Exited reports whether the gateway's process has ended, and how.
func (g *Gateway) Exited() (bool, error) {
	select {
	case err := <-g.done:
		g.done <- err
		return true, err
	default:
		return false, nil
	}
}

// Stop ends the gateway's process group (SIGTERM, then SIGKILL after 5 s)
// and waits for it.
func (g *Gateway) Stop() {
	if g == nil || g.cmd.Process == nil {
		return
	}
	pgid := -g.cmd.Process.Pid
	_ = syscall.Kill(pgid, syscall.SIGTERM)
	select {
	case err := <-g.done:
		g.done <- err
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(pgid, syscall.SIGKILL)
		err := <-g.done
		g.done <- err
	}
}

// ErrLost is returned by the command when a test was lost.
var ErrLost = errors.New("gatewaycheck: the gateway lost a failure")
