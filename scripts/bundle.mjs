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

// effect/http-api's HttpApiScalar and HttpApiSwagger load their UI bundles (about 5 MB of JavaScript) with a
// dynamic import; the gateway serves neither (only GET /openapi.json), so the bundle gets a stub in their place
// and the package ships only what runs. Using either layer would fail with the stub's message.
const noDocsUi = {
  name: "no-docs-ui",
  setup(build) {
    build.onResolve({ filter: /\/internal\/httpApi(Scalar|Swagger)\.js$/ }, (args) =>
      args.importer.includes("effect") ? { path: args.path, namespace: "no-docs-ui" } : undefined
    )
    build.onLoad({ filter: /.*/, namespace: "no-docs-ui" }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`svc-gateway: ${args.path} (Scalar/Swagger UI) is not bundled`)})`,
      loader: "js"
    }))
  }
}
// @effect/platform-node loads undici (about 730 KB) with a dynamic import, only for its Undici-backed HTTP client and
// the Kubernetes runner-health dispatcher, neither of which the gateway uses: the bundle leaves that import to the
// installed package (`@effect/platform-node/Undici`, a dependency) instead of shipping a copy of undici.
const undiciFromPackage = {
  name: "undici-from-package",
  setup(build) {
    build.onResolve({ filter: /^\.\/Undici\.js$/ }, (args) =>
      args.importer.includes("@effect/platform-node") ? { path: "@effect/platform-node/Undici", external: true } : undefined
    )
  }
}
const outdir = `${root}dist/cli`
rmSync(outdir, { recursive: true, force: true })

await build({
  absWorkingDir: root,
  // The plugin worker's program (services/plugins/worker/runner.ts) is a second entry: a plugin's thread runs it
  // (services/plugins/PluginWorker.ts finds it beside the chunks), sharing the chunks of effect with the CLI.
  entryPoints: { main: "src/cli.ts", "plugin-worker": "services/plugins/worker/runner.ts" },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  outExtension: { ".js": ".mjs" },
  sourcemap: true,
  minify: true,
  // libsql loads a native addon; pg and ws probe optional native helpers with require(). The AWS SDK (dependencies)
  // is loaded with a dynamic import by the S3 artifact store only (services/artifacts/s3Store.ts): it stays in
  // node_modules instead of adding megabytes of chunks to the package. So does `redis` (node-redis), loaded by the
  // shared rate-limit store only with SVC_CLUSTER=1 and SVC_REDIS_URL (layers/ratelimit/RedisStore.ts).
  external: ["libsql", "pg-native", "bufferutil", "utf-8-validate", "@aws-sdk/client-s3", "@aws-sdk/s3-request-presigner", "redis"],
  // Bundled CommonJS dependencies (pg, ws) call require(); give ES modules one.
  banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
  plugins: [noDocsUi, undiciFromPackage],
  logLevel: "warning"
})

// The static answers of the CLI (help and version), produced by the bundle itself, for src/cli.ts's fast path.
const { execFileSync } = await import("node:child_process")
const { writeFileSync } = await import("node:fs")
const answer = (...args) =>
  execFileSync(process.execPath, [`${outdir}/main.mjs`, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_CLI_NO_HELP_CACHE: "1" },
    encoding: "utf8"
  })
const answers = { help: answer("--help"), version: answer("--version") }
for (const command of ["serve", "node", "snapshot"]) answers[`${command} --help`] = answer(command, "--help")
writeFileSync(`${outdir}/help.json`, JSON.stringify(answers))
