// The build step of `npm install` (`prepare`) and `npm start` (`prestart`):
// builds what is missing or older than one of its inputs, so `npm start` on an
// up-to-date checkout starts the gateway at once instead of rebuilding it:
// - the CLI bundle (scripts/bundle.mjs → dist/cli/; stamp dist/cli/help.json,
//   the last file it writes): inputs src/, services/, layers/, scripts/;
// - the operator console (scripts/build-ui.mjs → dist/ui/; stamp
//   dist/ui/budget.json, the last file it writes): inputs ui/, src/, services/.
// Both also depend on package.json, package-lock.json, tsconfig.json and the
// installed dependencies' node_modules/.package-lock.json (rewritten by npm
// when they change). A build that failed half-way leaves no stamp.
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
const COMMON_FILES = ["package.json", "package-lock.json", "tsconfig.json", join("node_modules", ".package-lock.json")]
const TARGETS = [
  {
    what: "the CLI",
    out: "dist/cli",
    stamp: join(root, "dist", "cli", "help.json"),
    directories: ["src", "services", "layers", "scripts"],
    script: "bundle.mjs",
    tool: "esbuild"
  },
  {
    what: "the operator console",
    out: "dist/ui",
    stamp: join(root, "dist", "ui", "budget.json"),
    directories: ["ui", "src", "services"],
    script: "build-ui.mjs",
    tool: "vite"
  }
]

/** The most recently modified input of `target`: `{ path, mtimeMs }`. */
const newestInput = (target) => {
  let newest = { path: "", mtimeMs: 0 }
  const consider = (path) => {
    const { mtimeMs } = statSync(path)
    if (mtimeMs > newest.mtimeMs) newest = { path, mtimeMs }
  }
  for (const directory of target.directories) {
    const base = join(root, directory)
    if (!existsSync(base)) continue
    for (const entry of readdirSync(base, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) consider(join(entry.parentPath ?? entry.path, entry.name))
    }
  }
  for (const file of COMMON_FILES) if (existsSync(join(root, file))) consider(join(root, file))
  return newest
}

/** Why `target` must be built, or `undefined` when it is up to date. */
const staleReason = (target) => {
  if (!existsSync(target.stamp)) return `${target.out} is missing`
  const built = statSync(target.stamp).mtimeMs
  const newest = newestInput(target)
  return newest.mtimeMs > built ? `${relative(root, newest.path)} is newer than ${target.out}` : undefined
}

const args = new Set(process.argv.slice(2))
const due = TARGETS.map((target) => ({ target, reason: staleReason(target) })).filter((t) => t.reason !== undefined)
if (args.has("--check")) {
  for (const target of TARGETS) {
    const reason = staleReason(target)
    console.log(reason === undefined ? `${target.out} is up to date` : `build due: ${reason}`)
  }
  process.exit(due.length === 0 ? 0 : 1)
}
for (const { target, reason } of due) {
  try {
    createRequire(import.meta.url).resolve(target.tool)
  } catch {
    const message = `svc-gateway: cannot build ${target.what} (${reason}): the devDependencies (${target.tool}) are not installed; run npm install`
    if (args.has("--optional")) {
      console.warn(`${message} (skipped)`)
      continue
    }
    console.error(message)
    process.exit(1)
  }
  console.error(`svc-gateway: building ${target.what} (${reason})`)
  const build = spawnSync(process.execPath, [join(root, "scripts", target.script)], { stdio: "inherit" })
  if (build.status !== 0) process.exit(build.status ?? 1)
}
