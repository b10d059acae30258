/**
 * `svc-gateway plugins lock <id>` as a user runs it (the bundled CLI; issue
 * 26 §1; docs/plugins.md "Lock file and integrity"): it records
 * `plugin.lock.json` (`svc.plugin.lock.v1`, the manifest's version, the
 * digest of the files), a gateway then loads the plugin as verified, and
 * every refusal is one line on stderr with exit code 1.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { chmodSync, cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { integrityOf } from "../services/plugins/integrity.ts"
import { home, run } from "./support/cli.ts"
import { ECHO_EXAMPLE } from "./support/pluginHome.ts"

const lock = async (args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const r = run(["plugins", "lock", ...args], env)
  return { code: await r.exited, stdout: r.stdout, stderr: r.stderr }
}

const withEcho = () => {
  const h = home()
  mkdirSync(join(h, "plugins"), { mode: 0o755 })
  cpSync(ECHO_EXAMPLE, join(h, "plugins", "echo"), { recursive: true })
  return h
}

describe("svc-gateway plugins lock", () => {
  it("records the lock of $SVC_HOME/plugins/<id>", async () => {
    const h = withEcho()
    const result = await lock(["echo", "--source", "examples/plugins/echo"], { SVC_HOME: h })
    expect(result).toMatchObject({ code: 0, stderr: "" })
    const dir = join(h, "plugins", "echo")
    const written = JSON.parse(readFileSync(join(dir, "plugin.lock.json"), "utf8"))
    const digest = await Effect.runPromise(integrityOf(dir))
    expect(written).toEqual({
      format: "svc.plugin.lock.v1",
      recorded_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      source: "examples/plugins/echo",
      pinned_version: "1.0.0",
      integrity_sha256: digest
    })
    expect(result.stdout).toBe(`locked plugin echo 1.0.0: integrity_sha256 ${digest} (${join(dir, "plugin.lock.json")})\n`)
    // --home works like SVC_HOME; a second lock replaces the first.
    writeFileSync(join(dir, "index.mjs"), "export default { tools: {}, commands: {}, rpc: {} }\n")
    expect((await lock(["echo", "--home", h])).code).toBe(0)
    expect(JSON.parse(readFileSync(join(dir, "plugin.lock.json"), "utf8")).integrity_sha256).not.toBe(digest)
  })

  it("refuses an unknown or invalid id, an invalid manifest and an unsafe directory, in one line", async () => {
    const h = withEcho()
    const missing = await lock(["ghost"], { SVC_HOME: h })
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/^svc-gateway: plugins lock: refused: cannot read .*ghost \(ENOENT\)\n$/)
    expect((await lock(["Bad!"], { SVC_HOME: h })).stderr).toMatch(/invalid plugin id "Bad!"/)
    writeFileSync(join(h, "plugins", "echo", "plugin.yml"), "id: echo\nname: Echo\nversion: '1'\nconfig_schema: {}\ncolour: blue\n")
    const invalid = await lock(["echo"], { SVC_HOME: h })
    expect(invalid.code).toBe(1)
    expect(invalid.stderr).toMatch(/plugin\.yml:5: .*colour/)
    chmodSync(join(h, "plugins", "echo"), 0o777)
    expect((await lock(["echo"], { SVC_HOME: h })).stderr).toMatch(/refused: .* is world-writable/)
    chmodSync(join(h, "plugins", "echo"), 0o755)
  })
})
