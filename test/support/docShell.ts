/**
 * Running the shell examples of the documentation as a reader would paste
 * them: one bash session per page (variables carry over from block to
 * block, like a terminal), a fresh `$HOME` whose `~/.svc` is the gateway's
 * state, and a gateway on a free port instead of 8788 (`127.0.0.1:8788` and
 * `localhost:8788` in the examples, and in the answers they show, are
 * rewritten to it).
 *
 * `npm start` (with any `SVC_*` variables before it) starts the bundled CLI
 * (`dist/cli/main.mjs serve`, what `npm start` runs after building it) in the
 * background and returns once `/healthz` answers; a second `npm start`
 * restarts it. `npm install` and `npm run build` do nothing (the test runs
 * from a built checkout). Every failing command of a block is reported (an
 * ERR trap), not only the last one.
 *
 * Blocks: fenced `sh`/`bash` code. An HTML comment `<!-- doc-test: skip <reason> -->`
 * right before a block keeps the test from running it (a reason is required).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { MAIN } from "./cli.ts"

/** The repository root (`npx svc-gateway` runs its bin, as in a clone). The shell's working directory is `$HOME`. */
export const REPO = join(import.meta.dirname, "..", "..")

/** One fenced shell block of a page. */
export interface ShellBlock {
  readonly file: string
  /** 1-based line of the opening fence. */
  readonly line: number
  readonly code: string
  /** The reason given in a `doc-test: skip` comment. */
  readonly skip?: string | undefined
}

const SKIP = /^<!--\s*doc-test:\s*skip\s+(.+?)\s*-->$/

/** The `sh`/`bash` blocks of `markdown` (also indented ones, inside list items). */
export const shellBlocks = (file: string, markdown: string): Array<ShellBlock> => {
  const lines = markdown.split("\n")
  const blocks: Array<ShellBlock> = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(sh|bash)\s*$/.exec(lines[i]!)
    if (open === null) continue
    const indent = open[1]!.length
    const body: Array<string> = []
    let j = i + 1
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j]!); j++) body.push(lines[j]!.slice(Math.min(indent, lines[j]!.search(/\S|$/))))
    let k = i - 1
    while (k >= 0 && lines[k]!.trim() === "") k--
    const skip = k >= 0 ? SKIP.exec(lines[k]!.trim())?.[1] : undefined
    blocks.push({ file, line: i + 1, code: body.join("\n"), skip })
    i = j
  }
  return blocks
}

/** A free TCP port on 127.0.0.1. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port
      server.close(() => resolve(port))
    })
  })

/** What a block did. */
export interface BlockRun {
  readonly stdout: string
  readonly stderr: string
  /** Every command of the block that failed: `line: command (status)`. */
  readonly failures: ReadonlyArray<string>
  /** The HTTP status of every curl of the block, in order. */
  readonly httpStatuses: ReadonlyArray<number>
}

/** A bash session with its own `$HOME` and gateway port. */
export interface DocShell {
  readonly home: string
  readonly port: number
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  /** The examples' text with the default address replaced by this session's. */
  readonly localize: (code: string) => string
  /** Runs `code` (already localized) in the session. */
  readonly run: (code: string, timeoutMs?: number) => Promise<BlockRun>
  /** True while a gateway started by `npm start` runs. */
  readonly gatewayRunning: () => boolean
  /** The gateway's log so far. */
  readonly gatewayLog: () => string
  readonly close: () => Promise<void>
}

const PRELUDE = String.raw`
set -o pipefail
__svc_pid() { cat "$HOME/.svc-gateway.pid" 2>/dev/null; }
__svc_stop() {
  local pid; pid=$(__svc_pid) || return 0
  kill "$pid" 2>/dev/null
  local i; for i in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  kill -9 "$pid" 2>/dev/null; rm -f "$HOME/.svc-gateway.pid"
}
__svc_start() {
  __svc_stop
  node "$SVC_DOC_MAIN" serve "$@" >>"$HOME/gateway.log" 2>&1 </dev/null &
  local pid=$!
  echo "$pid" >"$HOME/.svc-gateway.pid"
  local i; for i in $(seq 1 600); do
    command curl -sf -o /dev/null "http://127.0.0.1:$SVC_PORT/healthz" && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "doc test: the gateway did not start" >&2; tail -n 30 "$HOME/gateway.log" >&2; return 1
}
# Every curl of a block reports the HTTP status it got on stderr (the test checks them); a -w of the block's own wins.
curl() { command curl -w '%{stderr}@@http-status %{http_code}\n' "$@"; }
# In a clone, npx svc-gateway runs the repository's bin (what npx resolves there), from the current directory.
npx() {
  if [ "$1" = svc-gateway ]; then shift; node "$SVC_DOC_REPO/bin/svc-gateway.mjs" "$@"; else command npx "$@"; fi
}
npm() {
  case "$1" in
    start) shift; __svc_start "$@" ;;
    install|ci) echo "doc test: npm $1 skipped (node_modules is installed)" ;;
    run) if [ "$2" = build ]; then echo "doc test: npm run build skipped (dist/ is built)"; else command npm "$@"; fi ;;
    *) command npm "$@" ;;
  esac
}
`

/**
 * Opens a session. `env` is added to the shell's environment (e.g. `SVC_LOG_LEVEL`); `SVC_PORT` is the session's
 * port, so `npm start` listens there.
 */
export const openDocShell = async (env: Record<string, string> = {}): Promise<DocShell> => {
  const home = mkdtempSync(join(tmpdir(), "svc-doc-"))
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const child: ChildProcess = spawn("bash", ["--noprofile", "--norc"], {
    cwd: home,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      LANG: "C.UTF-8",
      SVC_PORT: String(port),
      SVC_DOC_MAIN: MAIN,
      SVC_DOC_REPO: REPO,
      npm_config_update_notifier: "false",
      npm_config_offline: "true",
      ...env
    },
    stdio: ["pipe", "pipe", "pipe"]
  })
  let stdout = ""
  child.stdout!.on("data", (d) => (stdout += d))
  child.stderr!.on("data", () => {})
  child.stdin!.write(`${PRELUDE}\n`)
  let step = 0

  const run = async (code: string, timeoutMs = 120_000): Promise<BlockRun> => {
    step++
    const script = join(home, `.doc-block-${step}.sh`)
    const out = join(home, `.doc-block-${step}.out`)
    const err = join(home, `.doc-block-${step}.err`)
    const failures = join(home, `.doc-block-${step}.fail`)
    writeFileSync(script, `${code}\n`)
    writeFileSync(failures, "")
    const marker = `@@doc-block-${step}-done@@`
    child.stdin!.write(
      `trap 'echo "$LINENO: $BASH_COMMAND ($?)" >> ${failures}' ERR\n` +
        `source ${script} >${out} 2>${err} </dev/null\ntrap - ERR\necho ${marker}\n`
    )
    const deadline = Date.now() + timeoutMs
    while (!stdout.includes(marker)) {
      if (child.exitCode !== null) throw new Error(`the shell exited (${child.exitCode}) during a block:\n${code}`)
      if (Date.now() > deadline) throw new Error(`block still running after ${timeoutMs} ms:\n${code}`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const read = (path: string) => readFileSync(path, "utf8")
    const stderr = read(err)
    const httpStatuses = [...stderr.matchAll(/@@http-status (\d+)\n?/g)].map((m) => Number(m[1]))
    return {
      stdout: read(out),
      stderr: stderr.replace(/@@http-status \d+\n?/g, ""),
      failures: read(failures).split("\n").filter((l) => l !== ""),
      httpStatuses
    }
  }

  return {
    home,
    port,
    url,
    localize: (code) => code.replaceAll("127.0.0.1:8788", `127.0.0.1:${port}`).replaceAll("localhost:8788", `localhost:${port}`),
    run,
    gatewayRunning: () => {
      try {
        process.kill(Number(readFileSync(join(home, ".svc-gateway.pid"), "utf8")), 0)
        return true
      } catch {
        return false
      }
    },
    gatewayLog: () => {
      try {
        return readFileSync(join(home, "gateway.log"), "utf8")
      } catch {
        return ""
      }
    },
    close: async () => {
      if (child.exitCode === null) {
        // The gateway, and anything a block left running in the background (e.g. a demo node).
        await run("__svc_stop; kill $(jobs -p) 2>/dev/null; wait 2>/dev/null", 30_000).catch(() => undefined)
        child.stdin!.end("exit\n")
        await new Promise((resolve) => (child.exitCode !== null ? resolve(undefined) : child.on("exit", resolve)))
      }
      rmSync(home, { recursive: true, force: true })
    }
  }
}

// ---------------------------------------------------------------------------
// Documented answers
// ---------------------------------------------------------------------------

/**
 * Parses a documented answer: JSON where `…` stands for what is left out (`"plan-…"` is a string pattern; a bare
 * `…` as a member or element, or `,…`, drops it). Returns `undefined` when it is not JSON even so.
 */
export const parseDocumented = (text: string): unknown => {
  const cleaned = text
    .replace(/,\s*…(?=\s*[}\]])/g, "")
    .replace(/([[{,])\s*…\s*,/g, "$1")
    .replace(/([[{])\s*…\s*(?=[}\]])/g, "$1")
  try {
    return JSON.parse(cleaned)
  } catch {
    return undefined
  }
}

const globMatch = (pattern: string, value: string): boolean => {
  const parts = pattern.split("…").map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
  return new RegExp(`^${parts.join("[\\s\\S]*")}$`).test(value)
}

/**
 * Where `actual` differs from the documented answer (empty when it matches): every documented key is present with
 * a matching value; the elements of a documented array match elements of the answer in order; a documented string
 * with `…` is a pattern.
 */
export const documentedMismatches = (documented: unknown, actual: unknown, path = "$"): Array<string> => {
  if (typeof documented === "string" && documented.includes("…")) {
    return typeof actual === "string" && globMatch(documented, actual) ? [] : [`${path}: expected ${JSON.stringify(documented)}, got ${JSON.stringify(actual)}`]
  }
  if (Array.isArray(documented)) {
    if (!Array.isArray(actual)) return [`${path}: expected an array, got ${JSON.stringify(actual)}`]
    // The documented elements match elements of the answer, in order (others may come between and after).
    let from = 0
    for (const [i, element] of documented.entries()) {
      let found = -1
      for (let j = from; j < actual.length && found === -1; j++) if (documentedMismatches(element, actual[j]).length === 0) found = j
      if (found === -1) {
        const closest = actual[from] === undefined ? ["no element left"] : documentedMismatches(element, actual[from], `${path}[${from}]`)
        return [`${path}[${i}]: no element of the answer matches it (${closest.join("; ")})`]
      }
      from = found + 1
    }
    return []
  }
  if (typeof documented === "object" && documented !== null) {
    if (typeof actual !== "object" || actual === null || Array.isArray(actual)) return [`${path}: expected an object, got ${JSON.stringify(actual)}`]
    return Object.entries(documented).flatMap(([key, value]) =>
      key in actual ? documentedMismatches(value, (actual as Record<string, unknown>)[key], `${path}.${key}`) : [`${path}.${key}: missing`]
    )
  }
  return Object.is(documented, actual) ? [] : [`${path}: expected ${JSON.stringify(documented)}, got ${JSON.stringify(actual)}`]
}

/**
 * The last JSON value `stdout` ends with: commands print their answers one after another, often without a newline
 * (curl), and jq pretty-prints over several lines. `undefined` when it does not end with JSON.
 */
export const lastJsonValue = (stdout: string): unknown => {
  const text = stdout.trimEnd()
  for (let i = text.length - 1; i >= 0; i--) {
    const c = text[i]
    if (c !== "{" && c !== "[" && c !== "\"" && !(i === 0 || /\s/.test(text[i - 1]!))) continue
    try {
      return JSON.parse(text.slice(i))
    } catch {
      // not a whole value from here
    }
  }
  return undefined
}
