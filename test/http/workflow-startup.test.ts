/**
 * Issue 12 §2: "the startup log says when the effective bundle escalates
 * every step". With the built-in bundle (no policy file) the gateway warns
 * at start; with a `$SVC_HOME/policy.yml` that allows Http steps it does not.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { StorageMemoryTest } from "../../src/app/gateway.ts"
import { startGateway, type StructuredLog } from "../support/gateway.ts"

const escalationWarnings = (logs: ReadonlyArray<StructuredLog>) =>
  logs.filter((l) => l.level === "WARN" && String(l.message).includes("escalates every step"))

const startWith = async (policy: string | undefined) => {
  const home = mkdtempSync(join(tmpdir(), "svc-wf-start-"))
  if (policy !== undefined) writeFileSync(join(home, "policy.yml"), policy)
  const logs: Array<StructuredLog> = []
  const gw = await startGateway({ home, logLevel: "Info" }, StorageMemoryTest, { logs })
  await gw.close()
  return logs
}

describe("workflow start-up log", () => {
  it("warns when the effective bundle pauses every step (the built-in bundle)", async () => {
    const logs = await startWith(undefined)
    expect(escalationWarnings(logs)).toHaveLength(1)
    expect(JSON.stringify(escalationWarnings(logs)[0])).toContain("docs/workflow.md")
  })

  it("stays quiet when policy.yml allows Http steps", async () => {
    const logs = await startWith(`v: 1\ntools:\n  allow: [tool.http.fetch]\nnetwork_egress:\n  allow: ["https://*"]\n`)
    expect(escalationWarnings(logs)).toHaveLength(0)
  })
})
