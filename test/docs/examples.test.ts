/**
 * Every shell example of the README and docs/ works when pasted (issue 20
 * "Done when"): each page's `sh` blocks run in order in one bash session
 * (test/support/docShell.ts: a fresh `$HOME`, `npm start` starts the bundled
 * CLI on a free port that replaces 8788 in the text). A block must run
 * without a failing command, and where the page shows the answer of a command
 * (`# {…}` on the next line or after the command) the command's JSON output
 * must match it (the fields shown; `…` stands for what is left out).
 *
 * A page whose block talks to a gateway without starting one gets a gateway
 * started as `npm start` would (the README's "Run it"), and `GW` and `TOKEN`
 * set as the README's "Use it" sets them. Blocks that cannot run here say why
 * in a `<!-- doc-test: skip <reason> -->` comment right before them;
 * `<!-- doc-test: needs <command> -->` runs a block only where the command
 * exists (promtool: always in CI, which installs it). Every curl's HTTP
 * status is checked too: an error status fails the block unless the page
 * shows that answer (`# {"error": …}`) or says `<!-- doc-test: status <code> -->`.
 *
 * docs/api.md's examples are run by test/docs/api-examples.test.ts (with
 * their page's setup). Needs dist/ (`npm run build`) and `jq`, `openssl`.
 */
import { spawnSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { documentedMismatches, lastJsonValue, openDocShell, parseDocumented, REPO, shellBlocks } from "../support/docShell.ts"

/** The pages whose shell blocks run here. */
const PAGES = [
  "README.md",
  ...readdirSync(join(REPO, "docs")).filter((f) => f.endsWith(".md") && f !== "api.md").map((f) => `docs/${f}`).sort(),
  "examples/compose/README.md"
]

const NEEDS = /<!--\s*doc-test:\s*needs\s+(\S+)\s*-->\s*$/
const STATUS = /<!--\s*doc-test:\s*status\s+(\d{3})\s*-->\s*$/

/** One command (or a few) of a block and the answer the page shows for it. */
interface Segment {
  readonly code: string
  readonly expected?: string | undefined
}

/** Splits a block after every command whose answer the page shows (`# {…}` below it or after it). */
const segments = (code: string): Array<Segment> => {
  const lines = code.split("\n")
  const out: Array<Segment> = []
  let current: Array<string> = []
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!
    if (/^#\s*[{[]/.test(line)) {
      const parts = [line.replace(/^#\s*/, "")]
      // An answer continues on `#` lines until its brackets balance.
      const open = (text: string) => (text.match(/[{[]/g)?.length ?? 0) - (text.match(/[}\]]/g)?.length ?? 0)
      while (open(parts.join("")) > 0 && i + 1 < lines.length && /^#\s/.test(lines[i + 1]!)) parts.push(lines[++i]!.replace(/^#\s*/, ""))
      out.push({ code: current.join("\n"), expected: parts.join("") })
      current = []
      continue
    }
    const inline = /^(\S.*?\S)\s+#\s*([{[].*)$/.exec(line)
    if (inline !== null && !line.startsWith("#")) {
      current.push(inline[1]!)
      out.push({ code: current.join("\n"), expected: inline[2] })
      current = []
      continue
    }
    current.push(line)
  }
  if (current.some((l) => l.trim() !== "")) out.push({ code: current.join("\n") })
  return out
}

const available = (command: string): boolean => spawnSync("sh", ["-c", `command -v ${command}`]).status === 0

describe("shell examples of the README and docs/", () => {
  for (const page of PAGES) {
    const markdown = readFileSync(join(REPO, page), "utf8")
    const blocks = shellBlocks(page, markdown)
    if (blocks.length === 0) continue
    it(`${page}: every shell block works when pasted`, async () => {
      const shell = await openDocShell({ SVC_LOG_LEVEL: "Warn" })
      const problems: Array<string> = []
      try {
        for (const block of blocks) {
          if (block.skip !== undefined) continue
          const before = markdown.split("\n").slice(0, block.line - 1).filter((l) => l.trim() !== "").at(-1) ?? ""
          const needs = NEEDS.exec(before)?.[1]
          const allowedStatus = Number(STATUS.exec(before)?.[1] ?? 0)
          if (needs !== undefined && !available(needs)) {
            if (needs === "promtool" && process.env.SVC_REQUIRE_PROMTOOL === "1") problems.push(`${page}:${block.line}: promtool is missing`)
            else console.warn(`${page}:${block.line}: skipped, ${needs} is not installed`)
            continue
          }
          if (!block.code.includes("npm start") && !shell.gatewayRunning()) {
            const started = await shell.run(shell.localize("npm start >/dev/null\n: \"${GW:=http://127.0.0.1:8788}\"\n: \"${TOKEN:=$(cat ~/.svc/admin-token)}\""))
            if (started.failures.length > 0) throw new Error(`${page}: the gateway did not start: ${started.stderr}\n${shell.gatewayLog()}`)
          }
          for (const segment of segments(block.code)) {
            const run = await shell.run(shell.localize(segment.code))
            const where = `${page}:${block.line}`
            for (const failure of run.failures) problems.push(`${where}: command failed: ${failure}\n    stderr: ${run.stderr.slice(0, 600)}`)
            const documented = segment.expected === undefined ? undefined : parseDocumented(shell.localize(segment.expected))
            // An error answer is a failure too, unless the page shows it (an answer with `error`, or a status comment).
            const showsError = typeof documented === "object" && documented !== null && "error" in documented
            for (const status of run.httpStatuses) {
              if (status >= 400 && !showsError && status !== allowedStatus) {
                problems.push(`${where}: a curl got HTTP ${status}: ${run.stdout.slice(-400)}\n    in: ${segment.code.slice(0, 300)}`)
              }
            }
            if (segment.expected === undefined) continue
            if (documented === undefined) {
              problems.push(`${where}: the documented answer is not JSON even with … removed: ${segment.expected}`)
              continue
            }
            const mismatches = documentedMismatches(documented, lastJsonValue(run.stdout))
            if (mismatches.length > 0) problems.push(`${where}: ${mismatches.join("; ")}\n    printed: ${run.stdout.slice(0, 600)}`)
          }
        }
      } finally {
        if (problems.length > 0) problems.push(`gateway log (tail): ${shell.gatewayLog().slice(-1500)}`)
        await shell.close()
      }
      expect(problems, problems.join("\n")).toEqual([])
    }, 300_000)
  }
})
