// The build step of `npm install` (`prepare`) and `npm start` (`prestart`):
// bundles the CLI (scripts/bundle.mjs → dist/cli/) only when it is missing or
// older than one of its inputs, so `npm start` on an up-to-date checkout
// starts the gateway at once instead of rebuilding it.
//
// Inputs: every file under src/, services/, layers/ and scripts/, plus
// package.json, package-lock.json, tsconfig.json and the installed
// dependencies' node_modules/.package-lock.json (rewritten by npm when they
// change). The bundle's timestamp is dist/cli/help.json, the last file
// scripts/bundle.mjs writes (a build that failed half-way leaves none).
//
// `--check`: only report; exit 0 when up to date, 1 when a build is due.
// `--optional` (prepare): when the build tools (devDependencies) are not
// installed, say so and succeed instead of failing the install.
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, statSync } from "node:fs"
import { createRequire } from "node:module"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const STAMP = join(root, "dist", "cli", "help.json")
const INPUT_DIRECTORIES = ["src", "services", "layers", "scripts"]
const INPUT_FILES = ["package.json", "package-lock.json", "tsconfig.json", join("node_modules", ".package-lock.json")]

/** The most recently modified input: `{ path, mtimeMs }`. */
const newestInput = () => {
  let newest = { path: "", mtimeMs: 0 }
  const consider = (path) => {
    const { mtimeMs } = statSync(path)
    if (mtimeMs > newest.mtimeMs) newest = { path, mtimeMs }
  }
  for (const directory of INPUT_DIRECTORIES) {
    const base = join(root, directory)
    if (!existsSync(base)) continue
    for (const entry of readdirSync(base, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) consider(join(entry.parentPath ?? entry.path, entry.name))
    }
  }
  for (const file of INPUT_FILES) if (existsSync(join(root, file))) consider(join(root, file))
  return newest
}

/** Why a build is due, or `undefined` when dist/cli is up to date. */
const staleReason = () => {
  if (!existsSync(STAMP)) return "dist/cli is missing"
  const built = statSync(STAMP).mtimeMs
  const newest = newestInput()
  return newest.mtimeMs > built ? `${relative(root, newest.path)} is newer than dist/cli` : undefined
}

const args = new Set(process.argv.slice(2))
const reason = staleReason()
if (args.has("--check")) {
  console.log(reason === undefined ? "dist/cli is up to date" : `build due: ${reason}`)
  process.exit(reason === undefined ? 0 : 1)
}
if (reason !== undefined) {
  let buildTools = true
  try {
    createRequire(import.meta.url).resolve("esbuild")
  } catch {
    buildTools = false
  }
  if (!buildTools) {
    const message = `svc-gateway: cannot build the CLI (${reason}): the devDependencies (esbuild) are not installed; run npm install`
    if (args.has("--optional")) {
      console.warn(`${message} (skipped)`)
      process.exit(0)
    }
    console.error(message)
    process.exit(1)
  }
  console.error(`svc-gateway: building the CLI (${reason})`)
  const build = spawnSync(process.execPath, [join(root, "scripts", "bundle.mjs")], { stdio: "inherit" })
  process.exit(build.status ?? 1)
}
