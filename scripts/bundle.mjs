// Bundles the CLI (src/main.ts) into dist/cli/ with esbuild: a few ES module
// chunks instead of the hundreds of small modules of effect and the sources,
// so the process starts fast (`--help` loads only the CLI chunk; `serve`
// loads the server graph when it runs). Native and optional modules stay
// external (resolved from node_modules at run time). The library entry points
// (package.json `exports`) keep tsc's output, so consumers share one `effect`.
import { build } from "esbuild"
import { rmSync } from "node:fs"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const outdir = `${root}dist/cli`
rmSync(outdir, { recursive: true, force: true })

await build({
  absWorkingDir: root,
  entryPoints: { main: "src/cli.ts" },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  outExtension: { ".js": ".mjs" },
  sourcemap: true,
  // libsql loads a native addon; pg and ws probe optional native helpers with require().
  external: ["libsql", "pg-native", "bufferutil", "utf-8-validate"],
  // Bundled CommonJS dependencies (pg, ws) call require(); give ES modules one.
  banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
  logLevel: "warning"
})
