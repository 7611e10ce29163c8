import { defineConfig } from "vite";

// `npm run dev` serves the page on 5173 and its calls go to the gateway of
// `make run` (ramino gateway allows that origin with --allow-origin).
export default defineConfig({
  base: "./",
  build: { outDir: "dist", emptyOutDir: true, sourcemap: false, target: "es2022" },
});
