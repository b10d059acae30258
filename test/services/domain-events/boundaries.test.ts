/**
 * Cross-subsystem reactions go through the DomainEvents port
 * (docs/architecture.md "Cross-subsystem reactions: DomainEvents"): the
 * deciding subsystems publish `Decision` events instead of calling the audit
 * log, so no service folder but the audit's own imports `AuditLog`, auth and
 * the policy bundle import nothing of the audit subsystem, and the port
 * itself imports no subsystem.
 */
import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"

const ROOT = resolve(import.meta.dirname, "../../..")

const sources = (dir: string): Array<string> =>
  readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name)
    return statSync(join(ROOT, path)).isDirectory() ? sources(path) : name.endsWith(".ts") ? [path] : []
  })

const importsOf = (file: string): Array<string> =>
  [...readFileSync(join(ROOT, file), "utf8").matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)]
    .map((m) => relative(ROOT, resolve(ROOT, dirname(file), m[1])))

describe("DomainEvents boundaries", () => {
  it("no subsystem calls the audit log: none imports AuditLog outside services/audit/", () => {
    const files = sources("services").filter((f) => !f.startsWith("services/audit/"))
    const offending = files.flatMap((f) =>
      importsOf(f).filter((t) => t === "services/audit/AuditLog.ts" || t === "services/audit/chains.ts").map((t) => `${f} → ${t}`))
    expect(offending).toEqual([])
  })

  it("auth and the policy bundle import nothing of the audit subsystem (no audit↔auth, audit↔policy-bundle cycle)", () => {
    const files = [...sources("services/auth"), ...sources("services/policy-bundle")]
    const offending = files.flatMap((f) => importsOf(f).filter((t) => t.startsWith("services/audit/")).map((t) => `${f} → ${t}`))
    expect(offending).toEqual([])
  })

  it("the port imports no subsystem (only effect)", () => {
    const offending = sources("services/domain-events").flatMap((f) =>
      importsOf(f).filter((t) => !t.startsWith("services/domain-events/")).map((t) => `${f} → ${t}`))
    expect(offending).toEqual([])
  })
})
