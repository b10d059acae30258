/**
 * `svc-gateway serve` and the secrets master key (docs/secrets.md): the key
 * is generated on first start (mode 0600); a restart with another key stops
 * the start with a message naming the key file and both key ids (and never
 * serves garbage). Runs the bundled CLI (dist/cli/main.mjs, built by `npm test`).
 */
import { describe, expect, it } from "@effect/vitest"
import { createHash, randomBytes } from "node:crypto"
import { readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { home, run, started } from "./support/cli.ts"

const keyIdOf = (hex: string) => createHash("sha256").update(Buffer.from(hex.trim(), "hex")).digest("hex").slice(0, 16)

describe("svc-gateway serve with the db secret provider", () => {
  it("generates the master key, then refuses to start with another key, naming the file and both key ids", async () => {
    const dir = home()
    const keyFile = join(dir, "secrets.master.key")
    const first = run(["serve"], { SVC_HOME: dir, SVC_PORT: "0" })
    let originalId: string
    try {
      const info = await started(first)
      expect(statSync(keyFile).mode & 0o777).toBe(0o600)
      originalId = keyIdOf(readFileSync(keyFile, "utf8"))
      const token = readFileSync(join(dir, "admin-token"), "utf8").trim()
      const res = await fetch(`${info.url}/secrets`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ scope: "cli", value: "cli-secret-value-123" })
      })
      expect(res.status).toBe(201)
    } finally {
      first.child.kill("SIGTERM")
      await first.exited
    }
    expect(first.stdout + first.stderr).not.toContain("cli-secret-value-123")

    const other = randomBytes(32).toString("hex")
    writeFileSync(keyFile, `${other}\n`, { mode: 0o600 })
    const second = run(["serve"], { SVC_HOME: dir, SVC_PORT: "0" })
    const code = await second.exited
    expect(code).not.toBe(0)
    expect(second.stderr).toContain("svc-gateway: failed to start: SecretsKeyMismatch: secrets master key")
    expect(second.stderr).toContain(keyFile)
    expect(second.stderr).toContain(originalId)
    expect(second.stderr).toContain(keyIdOf(other))
    expect(second.stdout).not.toContain("svc-gateway listening")

    // A zero-length key file counts as missing: with sealed secrets in the database, no new key is generated.
    writeFileSync(keyFile, "")
    const third = run(["serve"], { SVC_HOME: dir, SVC_PORT: "0" })
    expect(await third.exited).toBe(1)
    expect(third.stderr).toContain(`svc-gateway: failed to start: SecretsKeyMismatch: secrets master key ${keyFile} is empty, but the database holds secrets`)
    expect(statSync(keyFile).size).toBe(0)
  })
})
