/** Admin token resolution: env wins; else $SVC_HOME/admin-token, generated 0600 on first start. */
import { NodeServices } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { resolveAdminToken } from "../../../services/auth/adminToken.ts"

const fresh = () => join(mkdtempSync(join(tmpdir(), "svc-admin-")), "home")

describe("resolveAdminToken", () => {
  it.effect("generates 64 hex characters with mode 0600 and reuses them", () =>
    Effect.gen(function*() {
      const home = fresh()
      const first = yield* resolveAdminToken({ configured: Option.none(), home })
      expect(first.source).toBe("generated")
      expect(Redacted.value(first.token)).toMatch(/^[0-9a-f]{64}$/)
      const file = join(home, "admin-token")
      expect(first.path).toBe(file)
      expect(statSync(file).mode & 0o777).toBe(0o600)
      expect(readFileSync(file, "utf8").trim()).toBe(Redacted.value(first.token))
      const second = yield* resolveAdminToken({ configured: Option.none(), home })
      expect(second.source).toBe("file")
      expect(Redacted.value(second.token)).toBe(Redacted.value(first.token))
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("prefers the configured token and writes nothing", () =>
    Effect.gen(function*() {
      const home = fresh()
      const resolved = yield* resolveAdminToken({ configured: Option.some(Redacted.make("from-env")), home })
      expect(resolved.source).toBe("environment")
      expect(Redacted.value(resolved.token)).toBe("from-env")
      expect(() => statSync(join(home, "admin-token"))).toThrow()
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("fails closed on an empty token file", () =>
    Effect.gen(function*() {
      const home = mkdtempSync(join(tmpdir(), "svc-admin-"))
      writeFileSync(join(home, "admin-token"), "\n")
      const error = yield* Effect.flip(resolveAdminToken({ configured: Option.none(), home }))
      expect(error._tag).toBe("AdminTokenError")
      expect(error.message).toMatch(/empty/)
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("replaces a zero-length file (left by an interrupted write of an older version) with a new token", () =>
    Effect.gen(function*() {
      const home = mkdtempSync(join(tmpdir(), "svc-admin-"))
      const file = join(home, "admin-token")
      writeFileSync(file, "")
      const resolved = yield* resolveAdminToken({ configured: Option.none(), home })
      expect(resolved.source).toBe("generated")
      expect(Redacted.value(resolved.token)).toMatch(/^[0-9a-f]{64}$/)
      expect(readFileSync(file, "utf8")).toBe(`${Redacted.value(resolved.token)}\n`)
      expect(statSync(file).mode & 0o777).toBe(0o600)
      expect(readdirSync(home)).toEqual(["admin-token"])
    }).pipe(Effect.provide(NodeServices.layer)))

  it.effect("concurrent first starts agree on one token", () =>
    Effect.gen(function*() {
      const home = fresh()
      const all = yield* Effect.all(Array.from({ length: 8 }, () => resolveAdminToken({ configured: Option.none(), home })), {
        concurrency: "unbounded"
      })
      const tokens = new Set(all.map((r) => Redacted.value(r.token)))
      expect(tokens.size).toBe(1)
      expect(readFileSync(join(home, "admin-token"), "utf8").trim()).toBe([...tokens][0])
    }).pipe(Effect.provide(NodeServices.layer)))

  it("never prints the token when the Redacted value is logged", () => {
    expect(String(Redacted.make("secret-value"))).not.toContain("secret-value")
  })
})
