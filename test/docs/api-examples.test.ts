/**
 * Every HTTP example of docs/api.md works as written: one bash session runs
 * the page's setup (files in a fresh `~/.svc`, the gateway started with
 * `npm start` as the page says: the bundled CLI), then each example in the
 * page's order, as its curl command (or shell recipe). Each must exit 0,
 * answer the documented status and the documented JSON (the fields shown;
 * `…` matches anything), and a 2xx JSON answer must decode with the
 * endpoint's declared success schema.
 *
 * The only help from outside the page is one fixture: the resume token of a
 * paused run, which the gateway hands out only in the `run.paused`
 * WebSocket event (a test peer listens for it; the example says so).
 *
 * Needs the bundle in dist/ (`npm run build`; `npm test` builds it) and `jq`.
 */
import { Result } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { EXAMPLE_SETUP, EXAMPLE_START, orderedEndpoints } from "../../scripts/apiReference.ts"
import { makeDecoder } from "../../services/shared/decode.ts"
import { type DocumentedEndpoint, exampleCommand } from "../../src/http/api/examples.ts"
import { type DocShell, documentedMismatches, openDocShell } from "../support/docShell.ts"
import { connectPeer, type TestPeer } from "../support/wsPeer.ts"

const STATUS = "@@status "

/** The example's command with the status of its last curl printed after its answer. */
const withStatus = (command: string): string => {
  const at = command.lastIndexOf("curl -s")
  if (at === -1) return command
  return `${command.slice(0, at)}curl -s -w '\\n${STATUS}%{http_code}\\n'${command.slice(at + "curl -s".length)}`
}

/** The answer and status of the example's last curl. */
const answerOf = (stdout: string): { status: number; body: string } | undefined => {
  const at = stdout.lastIndexOf(STATUS)
  if (at === -1) return undefined
  const status = Number(stdout.slice(at + STATUS.length).trim().split("\n")[0])
  const before = stdout.slice(0, at).replace(/\n$/, "")
  return { status, body: before }
}

const lastJsonLine = (body: string): unknown => {
  const lines = body.split("\n").filter((l) => l.trim() !== "")
  for (let i = lines.length - 1; i >= 0; i--) {
    try {
      return JSON.parse(lines[i]!)
    } catch {
      // not JSON
    }
  }
  return undefined
}

const globText = (pattern: string, text: string): boolean =>
  new RegExp(`^${pattern.split("…").map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("[\\s\\S]*")}`).test(text)

describe("docs/api.md examples", () => {
  let shell: DocShell
  let peer: TestPeer | undefined
  const endpoints = orderedEndpoints()

  beforeAll(async () => {
    shell = await openDocShell({ SVC_LOG_LEVEL: "Warn" })
    for (const block of [EXAMPLE_SETUP, EXAMPLE_START, "GW=http://127.0.0.1:8788\nTOKEN=$(cat ~/.svc/admin-token)"]) {
      const run = await shell.run(shell.localize(block))
      if (run.failures.length > 0) throw new Error(`setup failed: ${run.failures.join("; ")}\n${run.stderr}\n${shell.gatewayLog()}`)
    }
  }, 120_000)
  afterAll(async () => {
    peer?.ws.close()
    await shell?.close()
  }, 60_000)

  /** Work the page cannot do with curl, before the example named by the key. */
  const fixtures: Record<string, () => Promise<void>> = {
    // An operator client listening for run.paused, before the run that pauses is started.
    "workflow.run": async () => {
      const token = (await shell.run("cat ~/.svc/admin-token")).stdout.trim()
      peer = (await connectPeer(shell.url, token)).peer
    },
    "workflow.resume": async () => {
      const paused = await peer!.next((m) => m.type === "run.paused" && typeof m.payload?.resume_token === "string", 30_000)
      await shell.run(`RESUME_TOKEN=${paused.payload.resume_token}`)
    }
  }

  const check = async (endpoint: DocumentedEndpoint): Promise<Array<string>> => {
    const example = endpoint.example
    if (example === undefined) return ["no example"]
    await fixtures[`${endpoint.group}.${endpoint.name}`]?.()
    const command = exampleCommand(endpoint.method, endpoint.path, endpoint.access, example)
    const code = shell.localize([example.setup ?? "", withStatus(command)].join("\n"))
    const run = await shell.run(code)
    const problems = run.failures.map((f) => `command failed: ${f}`)
    const answer = answerOf(run.stdout)
    if (answer === undefined) return [...problems, `no answer (stdout: ${run.stdout.slice(0, 500)}; stderr: ${run.stderr.slice(0, 500)})`]
    const expected = example.status ?? endpoint.successStatus
    if (answer.status !== expected) problems.push(`status ${answer.status}, documented ${expected}: ${answer.body.slice(0, 500)}`)
    if (example.text !== undefined && !globText(example.text, answer.body)) {
      problems.push(`answer ${JSON.stringify(answer.body.slice(0, 300))} does not start with ${JSON.stringify(example.text)}`)
    }
    const json = example.text === undefined ? lastJsonLine(answer.body) : undefined
    if (example.response !== undefined) {
      problems.push(...documentedMismatches(example.response, json).map((m) => `${m} (answer: ${answer.body.slice(0, 400)})`))
    }
    if (answer.status === expected && expected >= 200 && expected < 300 && json !== undefined) {
      for (const schema of endpoint.successes.get(expected) ?? []) {
        const decoded = makeDecoder(schema as never, { label: "answer" })(json)
        if (Result.isFailure(decoded)) problems.push(`the answer does not decode with the declared success schema: ${decoded.failure}`)
      }
    }
    return problems
  }

  it("runs every example in the page's order, as written", async () => {
    const problems: Array<string> = []
    for (const endpoint of endpoints) {
      const found = await check(endpoint)
      if (found.length > 0) problems.push(`${endpoint.method} ${endpoint.path}:\n    ${found.join("\n    ")}`)
    }
    expect(problems, problems.join("\n")).toEqual([])
  }, 600_000)
})
