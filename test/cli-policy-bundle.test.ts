/**
 * `svc-gateway serve` with a deployment policy bundle (docs/policy-bundle.md
 * "Sources"): a bundle that is set but unreadable or invalid stops the start
 * with a message naming the path and the problem; a valid one is served.
 * Runs the bundled CLI (dist/cli/main.mjs, built by `npm test`).
 */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { home, run, started } from "./support/cli.ts"

describe("svc-gateway serve with SVC_POLICY_BUNDLE_PATH", () => {
  it.each([
    ["a missing file", (dir: string) => join(dir, "missing.yaml"), /cannot read the file/],
    ["an invalid bundle", (dir: string) => {
      const path = join(dir, "bundle.yaml")
      writeFileSync(path, "v: 1\ntools:\n  default: maybe\n")
      return path
    }, /invalid policy bundle: tools\.default: expected one of allow, require_approval, deny/]
  ])("exits non-zero on %s, naming the path and the problem", async (_name, make, problem) => {
    const dir = home()
    const path = make(dir)
    const r = run(["serve"], { SVC_HOME: dir, SVC_PORT: "0", SVC_POLICY_BUNDLE_PATH: path })
    const code = await r.exited
    expect(code).not.toBe(0)
    expect(r.stderr).toContain("svc-gateway: failed to start: PolicyBundleLoadError: deployment policy bundle")
    expect(r.stderr).toContain(path)
    expect(r.stderr).toMatch(problem)
    expect(r.stdout).not.toContain("svc-gateway listening")
  })

  it("serves a valid bundle given with --policy-bundle-path", async () => {
    const dir = home()
    const path = join(dir, "bundle.json")
    writeFileSync(path, JSON.stringify({ v: 1, tools: { allow: ["tool.http.get"] } }))
    const r = run(["serve", "--port", "0", "--policy-bundle-path", path], { SVC_HOME: dir })
    try {
      const info = await started(r)
      const token = readFileSync(join(dir, "admin-token"), "utf8").trim()
      const res = await fetch(`${info.url}/policy/bundle`, { headers: { authorization: `Bearer ${token}` } })
      expect(res.status).toBe(200)
      const body = await res.json() as { effective: { sources: { deployment: string }; bundle: { tools: { allow: Array<string> } } } }
      expect(body.effective.sources.deployment).toBe(path)
      expect(body.effective.bundle.tools.allow).toEqual(["tool.http.get"])
    } finally {
      r.child.kill("SIGKILL")
    }
  })
})
