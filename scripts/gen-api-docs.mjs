// Writes docs/api.md, the API reference, from the declarations (scripts/apiReference.ts): `npm run docs:api`.
// `--check` writes nothing and exits 1 when docs/api.md differs (test/docs/api-reference.test.ts does the same).
// scripts/apiReference.ts is TypeScript: esbuild (a devDependency) bundles it into a temporary module first, so this
// runs on Node 20 without a TypeScript loader.
import { build } from "esbuild"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const target = join(root, "docs", "api.md")
// Inside the repository, so the bundle resolves effect from its node_modules; removed at the end.
const temp = mkdtempSync(join(root, ".api-docs-"))
try {
  const outfile = join(temp, "apiReference.mjs")
  await build({
    absWorkingDir: root,
    entryPoints: ["scripts/apiReference.ts"],
    outfile,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    logLevel: "warning"
  })
  const { renderApiReference } = await import(pathToFileURL(outfile).href)
  const page = renderApiReference()
  if (process.argv.includes("--check")) {
    let current = ""
    try {
      current = readFileSync(target, "utf8")
    } catch {}
    if (current !== page) {
      console.error("docs/api.md is out of date: run `npm run docs:api`")
      process.exitCode = 1
    }
  } else {
    writeFileSync(target, page)
    console.log(`wrote ${target}`)
  }
} finally {
  rmSync(temp, { recursive: true, force: true })
}
