// Builds the operator console (ui/, Preact + Vite) into dist/ui and reports its
// JavaScript budget (issue 23: initial JavaScript ≤ 200 KiB gzipped), from
// Vite's manifest: the entry with everything it imports statically, plus the
// start page (approvals) with its static imports, each file counted once and
// gzipped at level 9. Writes dist/ui/budget.json last (the stamp that
// scripts/build-if-stale.mjs compares) and exits 1 when over budget.
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"
import { build } from "vite"

const root = fileURLToPath(new URL("..", import.meta.url))
const out = join(root, "dist", "ui")
const BUDGET_BYTES = 200 * 1024
const START_PAGE = "src/pages/approvals/index.tsx"

await build({ configFile: join(root, "ui", "vite.config.ts"), logLevel: "warn" })

const manifest = JSON.parse(readFileSync(join(out, ".vite", "manifest.json"), "utf8"))
const entryKey = Object.keys(manifest).find((key) => manifest[key].isEntry)
const closure = (keys) => {
  const seen = new Set()
  const visit = (key) => {
    if (seen.has(key) || manifest[key] === undefined) return
    seen.add(key)
    for (const next of manifest[key].imports ?? []) visit(next)
  }
  for (const key of keys) visit(key)
  return [...seen].map((key) => manifest[key].file)
}
const measure = (files) => {
  let raw = 0
  let gzip = 0
  for (const file of new Set(files)) {
    const bytes = readFileSync(join(out, file))
    raw += bytes.length
    gzip += gzipSync(bytes, { level: 9 }).length
  }
  return { files: [...new Set(files)].length, raw_bytes: raw, gzip_bytes: gzip }
}
const shell = measure(closure([entryKey]))
const initial = measure(closure([entryKey, START_PAGE]))
const all = measure(Object.values(manifest).map((chunk) => chunk.file).filter((file) => file.endsWith(".js")))
const report = {
  budget_gzip_bytes: BUDGET_BYTES,
  shell,
  initial_with_start_page: initial,
  all_javascript: all,
  within_budget: initial.gzip_bytes <= BUDGET_BYTES
}
if (!existsSync(join(out, "index.html"))) throw new Error("vite build wrote no dist/ui/index.html")
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`
console.log(
  `svc-gateway console: dist/ui built; initial JavaScript ${kib(initial.gzip_bytes)} gzipped ` +
    `(shell ${kib(shell.gzip_bytes)}, all pages ${kib(all.gzip_bytes)}; budget ${kib(BUDGET_BYTES)})`
)
writeFileSync(join(out, "budget.json"), JSON.stringify(report, null, 2) + "\n")
if (!report.within_budget) {
  console.error(`svc-gateway console: initial JavaScript ${kib(initial.gzip_bytes)} gzipped is over the ${kib(BUDGET_BYTES)} budget`)
  process.exit(1)
}
