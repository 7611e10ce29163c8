package ramino_test

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ramino/ramino/clients/go/internal/testserver"
)

// The committed gen/ is what `buf generate` with clients/go/buf.gen.yaml and
// the pinned plugins (`make go-tools`, in .venv/bin) makes of proto/ now:
// a proto change without `make proto-go` fails here.
func TestGeneratedCodeIsCurrent(t *testing.T) {
	root := testserver.RepoRoot(t)
	bufBin := filepath.Join(root, "node_modules", ".bin", "buf")
	tools := filepath.Join(root, ".venv", "bin")
	for _, p := range []string{bufBin, filepath.Join(tools, "protoc-gen-go"), filepath.Join(tools, "protoc-gen-go-grpc")} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s is missing: run `make node_modules/.bin/buf go-tools`", p)
		}
	}
	out := t.TempDir()
	cmd := exec.Command(bufBin, "generate", "--template", "clients/go/buf.gen.yaml", "-o", out)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "PATH="+tools+string(os.PathListSeparator)+os.Getenv("PATH"))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("buf generate: %v\n%s", err, b)
	}
	fresh := files(t, filepath.Join(out, "clients", "go", "gen"))
	committed := files(t, filepath.Join(root, "clients", "go", "gen"))
	if len(fresh) == 0 {
		t.Fatal("buf generate made no file")
	}
	for name, data := range fresh {
		old, ok := committed[name]
		if !ok {
			t.Errorf("gen/%s is not committed: run `make proto-go`", name)
		} else if !bytes.Equal(old, data) {
			t.Errorf("gen/%s is stale: run `make proto-go`", name)
		}
	}
	for name := range committed {
		if _, ok := fresh[name]; !ok {
			t.Errorf("gen/%s is no longer generated: run `make proto-go`", name)
		}
	}
}

func files(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		data, err := os.ReadFile(path)
		out[rel] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
