// Prints the size of the production build (dist/), raw and gzipped.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else yield path;
  }
}

let raw = 0;
let gzip = 0;
for (const path of files("dist")) {
  const data = readFileSync(path);
  raw += data.length;
  gzip += gzipSync(data).length;
  console.log(`  ${path}  ${(data.length / 1024).toFixed(1)} KiB`);
}
console.log(`bundle: ${(raw / 1024).toFixed(1)} KiB, ${(gzip / 1024).toFixed(1)} KiB gzipped`);
