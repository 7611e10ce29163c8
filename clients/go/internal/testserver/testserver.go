// Package testserver starts a real `ramino serve` on a free loopback port
// for the Go SDK's tests: the server of the repository's .venv (`make
// build`), or the command in RAMINO_SERVE (split on spaces).
package testserver

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// TokenSecret signs seat tokens, the same across a restart so that tokens
// stay valid.
const TokenSecret = "go-sdk-test-secret-kept-across-restarts"

// Options of a server.
type Options struct {
	// Store is "memory" (default) or "sqlite:PATH".
	Store string
	// AllowBotGames hosts games whose seats are all bots.
	AllowBotGames bool
	// Extra arguments of `ramino serve`.
	Args []string
	// Creds reach a server started with TLS flags in Args (its readiness is
	// checked with them); plaintext when nil.
	Creds credentials.TransportCredentials
}

// Server is a running `ramino serve`.
type Server struct {
	t    fataler
	opts Options
	port int
	log  string
	cmd  *exec.Cmd
	done chan struct{}
}

// fataler is the part of testing.TB a server needs.
type fataler interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// panicker fails by panicking, for a server that outlives one test (TestMain).
type panicker struct{}

func (panicker) Helper()                           {}
func (panicker) Fatal(args ...any)                 { panic(fmt.Sprint(args...)) }
func (panicker) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

// Shared starts a server for a whole test binary (in TestMain), logging to
// a file under dir; the caller stops it. It panics if the server cannot start.
func Shared(dir string, opts Options) *Server {
	if opts.Store == "" {
		opts.Store = "memory"
	}
	s := &Server{t: panicker{}, opts: opts, port: FreePort(panicker{}), log: filepath.Join(dir, "server.log")}
	s.Start()
	return s
}

// RepoRoot is the repository's root: the first folder up from here with a
// Makefile and proto/.
func RepoRoot(t fataler) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if isFile(filepath.Join(dir, "Makefile")) && isDir(filepath.Join(dir, "proto", "ramino", "v1")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("testserver: no repository root (a folder with Makefile and proto/) above the working directory")
		}
		dir = parent
	}
}

func isFile(p string) bool { st, err := os.Stat(p); return err == nil && !st.IsDir() }
func isDir(p string) bool  { st, err := os.Stat(p); return err == nil && st.IsDir() }

// FreePort is a loopback port nobody listens on now.
func FreePort(t fataler) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Start starts a server and stops it when the test ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	if opts.Store == "" {
		opts.Store = "memory"
	}
	s := &Server{t: t, opts: opts, port: FreePort(t), log: filepath.Join(t.TempDir(), "server.log")}
	s.Start()
	t.Cleanup(s.Stop)
	return s
}

// Address is "127.0.0.1:PORT".
func (s *Server) Address() string { return fmt.Sprintf("127.0.0.1:%d", s.port) }

// Port is the server's port.
func (s *Server) Port() int { return s.port }

func (s *Server) command() []string {
	if c := os.Getenv("RAMINO_SERVE"); c != "" {
		return strings.Fields(c)
	}
	bin := filepath.Join(RepoRoot(s.t), ".venv", "bin", "ramino")
	if !isFile(bin) {
		s.t.Fatalf("testserver: %s is missing: run `make build` first", bin)
	}
	return []string{bin, "serve"}
}

// Start (re)starts the process on the same port and waits until it serves.
func (s *Server) Start() {
	s.t.Helper()
	args := append(s.command(), "--host", "127.0.0.1", "--port", fmt.Sprint(s.port),
		"--store", s.opts.Store, "--bot-delay", "0", "--grace", "1")
	if s.opts.AllowBotGames {
		args = append(args, "--allow-bot-games")
	}
	args = append(args, s.opts.Args...)
	out, err := os.OpenFile(s.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		s.t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Env = append(filterEnv(os.Environ()), "RAMINO_LOG_LEVEL=warning", "RAMINO_TOKEN_SECRET="+TokenSecret)
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("testserver: %v", err)
	}
	s.cmd, s.done = cmd, make(chan struct{})
	go func(done chan struct{}) { _ = cmd.Wait(); close(done) }(s.done)
	s.waitServing()
}

func filterEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		if strings.HasPrefix(kv, "RAMINO_") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func (s *Server) waitServing() {
	s.t.Helper()
	creds := s.opts.Creds
	if creds == nil {
		creds = insecure.NewCredentials()
	}
	conn, err := grpc.NewClient(s.Address(), grpc.WithTransportCredentials(creds))
	if err != nil {
		s.t.Fatal(err)
	}
	defer conn.Close()
	health := healthpb.NewHealthClient(conn)
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			s.t.Fatalf("testserver: the server exited:\n%s", s.Log())
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		r, err := health.Check(ctx, &healthpb.HealthCheckRequest{})
		cancel()
		if err == nil && r.GetStatus() == healthpb.HealthCheckResponse_SERVING {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Fatalf("testserver: %s did not come up:\n%s", s.Address(), s.Log())
}

// Kill ends the process with SIGKILL: no drain, no goodbye.
func (s *Server) Kill() { s.signal(syscall.SIGKILL) }

// Stop ends the process with SIGTERM (it drains for a second).
func (s *Server) Stop() { s.signal(syscall.SIGTERM) }

func (s *Server) signal(sig syscall.Signal) {
	if s.cmd == nil {
		return
	}
	select {
	case <-s.done:
	default:
		_ = s.cmd.Process.Signal(sig)
		select {
		case <-s.done:
		case <-time.After(15 * time.Second):
			_ = s.cmd.Process.Kill()
			<-s.done
		}
	}
	s.cmd = nil
}

// Log is the tail of the server's log.
func (s *Server) Log() string {
	b, _ := os.ReadFile(s.log)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}
