/**
 * Durability across a real crash: a child process starts a run that
 * suspends at a Confirm step and is killed with SIGKILL; a second process on
 * the same database resumes it; the steps finished before the kill are not
 * executed again (the fake executor appends every call to a shared file).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bundleFixture } from "../../../support/bundleFixture.ts"
import { eventually } from "../../../support/eventually.ts"
import { postgresUrl } from "../../../support/databases.ts"
import { postgresSchemaDatabase } from "./support.ts"

let bundle = ""

let work: string
const children: Array<ChildProcess> = []
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "svc-wf-kill-"))
  bundle = await bundleFixture("test/services/workflow/engine/fixtures/runProcess.ts", "svc-workflow-engine-test")
}, 60_000)
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  rmSync(work, { recursive: true, force: true })
  rmSync(bundle, { force: true })
})

interface Child {
  readonly process: ChildProcess
  output: string
  exit: Promise<number | null>
}

const startChild = (env: Record<string, string>): Child => {
  const child = spawn(process.execPath, [bundle], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
  children.push(child)
  const handle: Child = { process: child, output: "", exit: new Promise((resolve) => child.on("exit", (code) => resolve(code))) }
  child.stdout!.on("data", (chunk) => (handle.output += String(chunk)))
  child.stderr!.on("data", (chunk) => (handle.output += String(chunk)))
  return handle
}

const backends: Array<{ name: string; env: () => Promise<{ env: Record<string, string>; drop: () => Promise<void> }> }> = [
  {
    name: "sqlite (file)",
    env: async () => ({ env: { WF_DB_KIND: "sqlite", WF_DB: join(work, `${randomUUID()}.db`) }, drop: async () => {} })
  },
  ...(postgresUrl === undefined ? [] : [{
    name: "postgresql",
    env: async () => {
      const db = await postgresSchemaDatabase(postgresUrl!)
      return { env: { WF_DB_KIND: "postgres", WF_DB: postgresUrl!, WF_DB_SCHEMA: db.schema! }, drop: db.drop }
    }
  }])
]

for (const backend of backends) {
  describe(`durability across SIGKILL on ${backend.name}`, () => {
    it("resumes in a new process without re-running finished steps", async () => {
      const { env, drop } = await backend.env()
      const run_id = `run_${randomUUID()}`
      const callsFile = join(work, `${run_id}.calls`)
      const base = { ...env, WF_RUN_ID: run_id, WF_CALLS_FILE: callsFile }
      const calls = () => {
        try {
          return readFileSync(callsFile, "utf8").trim().split("\n").filter((l) => l !== "").map((l) => Number(l.split(" ")[1]))
        } catch {
          return []
        }
      }
      try {
        const first = startChild({ ...base, WF_MODE: "start" })
        await eventually(
          () => first.output.includes("STATUS") || first.process.exitCode !== null,
          "the first process to report its run",
          30_000
        )
        expect(first.output).toContain("STATUS suspended")
        first.process.kill("SIGKILL")
        expect(await first.exit).toBe(null)
        expect(calls()).toEqual([0, 1])

        const second = startChild({ ...base, WF_MODE: "resume" })
        const code = await Promise.race([
          second.exit,
          new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 60_000))
        ])
        if (code === "timeout") second.process.kill("SIGKILL")
        expect(second.output).toContain("BEFORE suspended")
        expect(second.output).toContain("STATUS succeeded")
        expect(code).toBe(0)
        expect(calls()).toEqual([0, 1, 3])
      } finally {
        await drop()
      }
    }, 90_000)
  })
}
