// Rewrites README.md's configuration table from the settings declarations (scripts/settingsTable.ts):
// `npm run docs:settings`. `--check` writes nothing and exits 1 when README.md differs (test/config-readme.test.ts
// does the same). esbuild bundles the TypeScript into a temporary module first, as scripts/gen-api-docs.mjs does.
import { build } from "esbuild"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const target = join(root, "README.md")
const temp = mkdtempSync(join(root, ".settings-table-"))
try {
  const outfile = join(temp, "settingsTable.mjs")
  await build({
    absWorkingDir: root,
    entryPoints: ["scripts/settingsTable.ts"],
    outfile,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    logLevel: "warning"
  })
  const { withSettingsTable } = await import(pathToFileURL(outfile).href)
  const current = readFileSync(target, "utf8")
  const rendered = withSettingsTable(current)
  if (process.argv.includes("--check")) {
    if (current !== rendered) {
      console.error("README.md's settings table is out of date: run `npm run docs:settings`")
      process.exitCode = 1
    }
  } else {
    writeFileSync(target, rendered)
    console.log(`wrote ${target}`)
  }
} finally {
  rmSync(temp, { recursive: true, force: true })
}
