/**
 * The package installed the way users install it: `npm pack`, the tarball
 * installed into a scratch project, and the README's example run there with
 * plain `node` against a live server.
 */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { REPO, ServerProcess, scratchDir } from "./support.js";

const PACKAGE = resolve(REPO, "clients/typescript");

let server: ServerProcess;
before(async () => {
  server = await ServerProcess.start();
});
after(async () => {
  await server.stop();
});

/** Every module that `entry` imports, following its relative imports inside `dir`. */
function importsReached(dir: string, entry: string): Set<string> {
  const seen = new Set<string>();
  const reached = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/(?:import|export)\s[^;]*?from\s*"([^"]+)"|import\s*"([^"]+)"/g)) {
      const spec = m[1] ?? m[2] ?? "";
      if (spec.startsWith(".")) visit(resolve(file, "..", spec));
      else reached.add(spec);
    }
  };
  visit(join(dir, entry));
  return reached;
}

/**
 * The word after a block's language that marks it a fragment (```` ```ts
 * fragment ````: a piece of a larger program, not meant to compile alone),
 * left out of the type check. Used sparingly: an example a user copies compiles.
 */
const FRAGMENT = "fragment";

/** The README's code blocks in these languages (a fence's first word), but the fragments. */
export function readmeBlocks(readme: string, languages: readonly string[]): { language: string; code: string }[] {
  const blocks = [];
  for (const m of readme.matchAll(/^```(\S*)([^\n]*)\n([\s\S]*?)^```/gm)) {
    const [, language = "", rest = "", code = ""] = m;
    if (languages.includes(language) && !rest.split(/\s+/).includes(FRAGMENT)) blocks.push({ language, code });
  }
  return blocks;
}

/**
 * Every ts and js block of the README, each a module of its own in the
 * scratch project that installed the package, passes `tsc --strict` (js
 * blocks with `--checkJs`) against the package as installed.
 */
function typeCheckReadme(project: string): void {
  const blocks = readmeBlocks(readFileSync(join(PACKAGE, "README.md"), "utf8"), ["ts", "typescript", "js", "javascript"]);
  assert.ok(blocks.length >= 4, `the README's blocks: ${blocks.length}`);
  const files = blocks.map(({ language, code }, i) => {
    const file = `readme${i}.${language.startsWith("t") ? "ts" : "mjs"}`;
    writeFileSync(join(project, file), code);
    return file;
  });
  const tsc = join(PACKAGE, "node_modules/typescript/bin/tsc");
  const options = ["--strict", "--noEmit", "--allowJs", "--checkJs", "--skipLibCheck", "--target", "es2022"];
  const modules = ["--module", "nodenext", "--moduleResolution", "nodenext", "--types", "node"];
  const typeRoots = ["--typeRoots", join(PACKAGE, "node_modules/@types")];
  try {
    execFileSync(process.execPath, [tsc, ...options, ...modules, ...typeRoots, ...files], { cwd: project, encoding: "utf8" });
  } catch (e) {
    const out = e as { stdout?: string };
    assert.fail(`the README's examples do not type-check:\n${out.stdout ?? String(e)}`);
  }
}

/** The ```js blocks of the README: the examples users copy (a game each). */
function readmeExamples(): string[] {
  const readme = readFileSync(join(PACKAGE, "README.md"), "utf8");
  const examples = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
  assert.ok(examples.length > 0, "the README has no js example");
  return examples;
}

test("the README's blocks are read, but fragments", () => {
  const readme = "```ts\nconst a = 1;\n```\n```\nnpm install\n```\n```ts fragment\nseat.play(m);\n```\n```js\nlet b;\n```\n";
  assert.deepEqual(readmeBlocks(readme, ["ts", "js"]), [
    { language: "ts", code: "const a = 1;\n" },
    { language: "js", code: "let b;\n" },
  ]);
});

test("the packed tarball installs into a scratch project, runs the README's examples with plain node, and type-checks them strictly", () => {
  const packs = scratchDir("pack");
  // dist/ is built by `npm test` before the tests run: pack it as it is.
  const packed = JSON.parse(
    execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", packs], {
      cwd: PACKAGE,
      encoding: "utf8",
    }),
  ) as { filename: string; files: { path: string }[] }[];
  const tarball = join(packs, packed[0]?.filename ?? "");
  const files = (packed[0]?.files ?? []).map((f) => f.path);
  assert.ok(files.includes("dist/node.js") && files.includes("dist/web.js") && files.includes("dist/gen/ramino/v1/game_pb.js"));
  assert.ok(!files.some((f) => f.startsWith("src/") || f.startsWith("test/")), files.join(" "));

  const project = scratchDir("project");
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "scratch", private: true, type: "module" }));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", tarball], {
    cwd: project,
    stdio: ["ignore", "pipe", "inherit"],
  });
  for (const [i, example] of readmeExamples().entries()) {
    writeFileSync(join(project, `example${i}.mjs`), example);
    const output = execFileSync(process.execPath, [`example${i}.mjs`], {
      cwd: project,
      encoding: "utf8",
      env: { ...process.env, RAMINO_SERVER: server.address },
      timeout: 120_000,
    });
    const lines = output.trim().split("\n");
    assert.match(lines[0] ?? "", /^games\/\S+: seat 0, hand \S+/);
    if (example.includes("for await")) {
      // The examples that follow the updates print each event.
      assert.ok(lines.some((l) => /^\d+ discarded$/.test(l)), `example ${i}: ${output}`);
      assert.ok(lines.some((l) => /^\d+ matchEnded$/.test(l)), `example ${i}: ${output}`);
    }
    assert.match(lines.at(-1) ?? "", /^winners: \d+(, \d+)*; scores: -?\d+\/-?\d+$/);
  }
  typeCheckReadme(project);

  // The browser entry, as installed, reaches no Node-only module.
  const installed = join(project, "node_modules/@ramino/client/dist");
  for (const entry of ["web.js", "index.js"]) {
    const reached = importsReached(installed, entry);
    assert.ok(reached.has("@connectrpc/connect-web") || entry === "index.js");
    const nodeOnly = [...reached].filter((m) => m.startsWith("node:") || m === "@connectrpc/connect-node");
    assert.deepEqual(nodeOnly, [], `${entry} imports ${nodeOnly.join(", ")}`);
  }
  assert.ok(importsReached(installed, "node.js").has("@connectrpc/connect-node"));
});
