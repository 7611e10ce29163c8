package ramino_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	ramino "github.com/ramino/ramino/clients/go"
)

// scratchModule is a new Go module in a temp dir that requires the SDK as a
// user would, a replace directive pointing at this folder, with main.go.
func scratchModule(t *testing.T, main string) string {
	t.Helper()
	sdk, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := fmt.Sprintf("module example.com/ramino-user\n\ngo 1.26.0\n\n"+
		"require github.com/ramino/ramino/clients/go v0.0.0\n\n"+
		"replace github.com/ramino/ramino/clients/go => %s\n", sdk)
	write(t, filepath.Join(dir, "go.mod"), gomod)
	write(t, filepath.Join(dir, "main.go"), main)
	run(t, dir, nil, "go", "mod", "tidy")
	return dir
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// readmeExample is the README's n-th Go block (from 0).
func readmeExample(t *testing.T, n int) string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	body := string(b)
	for i := 0; ; i++ {
		start := strings.Index(body, "```go\n")
		if start < 0 {
			t.Fatalf("README.md has no ```go block %d", n)
		}
		body = body[start+len("```go\n"):]
		end := strings.Index(body, "```")
		if end < 0 {
			t.Fatalf("README.md's ```go block %d does not end", i)
		}
		if i == n {
			return body[:end]
		}
		body = body[end+len("```"):]
	}
}

// Installed the way users install it: a scratch module requiring the SDK
// builds cmd/ramino-bot, which creates a game against a server bot and
// plays it to the end, and joins a game someone else created.
func TestAScratchModuleBuildsAndPlaysWithRaminoBot(t *testing.T) {
	dir := scratchModule(t, "package main\n\nimport _ \"github.com/ramino/ramino/clients/go/bot\"\n\nfunc main() {}\n")
	bin := filepath.Join(t.TempDir(), "ramino-bot")
	run(t, dir, nil, "go", "build", "-o", bin, "github.com/ramino/ramino/clients/go/cmd/ramino-bot")
	run(t, dir, nil, "go", "build", "./...")

	out := run(t, dir, nil, bin, "-server", shared.Address(), "-variant", "gin", "-bots", "greedy")
	if !strings.Contains(out, "finished: status GAME_STATUS_FINISHED") || !strings.Contains(out, "round 1:") {
		t.Fatalf("ramino-bot's output:\n%s", out)
	}

	ctx := testCtx(t)
	client := dial(t, shared)
	game, err := client.CreateGame(ctx, ramino.GameSpec{Variant: "rami51", Seats: []ramino.SeatSpec{ramino.Random(), ramino.Person("")}})
	if err != nil {
		t.Fatal(err)
	}
	out = run(t, dir, nil, bin, "-server", shared.Address(), "-game", game.ID(), "-name", "gobot")
	if !strings.Contains(out, "joined "+game.GetName()+" as seat 1") || !strings.Contains(out, "GAME_STATUS_FINISHED") {
		t.Fatalf("ramino-bot's output:\n%s", out)
	}
	view, err := client.GetGame(ctx, game.GetName())
	if err != nil || view.GetSeats()[1].GetPlayerName() != "gobot" || len(view.GetWinners()) == 0 {
		t.Fatalf("the joined game: %v %v", view, err)
	}
}

func TestReadmeExamplesRunAsWritten(t *testing.T) {
	for n, wants := range [][]string{
		{", seat 0, hand ", "refused: NotFound GAME_NOT_FOUND", "round 1 ended:", "finished: GAME_STATUS_FINISHED winners"},
		{"finished: GAME_STATUS_FINISHED winners", "overtaken 0"},
	} {
		dir := scratchModule(t, readmeExample(t, n))
		out := run(t, dir, []string{"RAMINO_SERVER=" + shared.Address()}, "go", "run", ".")
		for _, want := range wants {
			if !strings.Contains(out, want) {
				t.Errorf("example %d's output lacks %q:\n%s", n, want, out)
			}
		}
	}
}
