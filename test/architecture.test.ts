/**
 * The dependency direction of the code base (docs/architecture.md "Layout"):
 * transports (src/) import services and infrastructure; services
 * (services/) import other services and shared infrastructure (the
 * settings, storage and the rate-limit store) only; infrastructure (layers/, but the composition root)
 * imports neither; only the composition root (layers/gateway.ts) and the
 * CLI's serve command import the whole graph; the client SDK and the API
 * declarations load no server code (schemas and pure helpers only).
 */
import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"

const ROOT = resolve(import.meta.dirname, "..")

const sources = (dir: string): Array<string> =>
  readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name)
    return statSync(join(ROOT, path)).isDirectory() ? sources(path) : name.endsWith(".ts") ? [path] : []
  })

/** Every relative import of a file (static `import`/`export … from`, and dynamic `import()`), as repository paths. */
const importsOf = (file: string): Array<string> => {
  const text = readFileSync(join(ROOT, file), "utf8")
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)].map((m) => m[1])
  return specifiers.map((s) => relative(ROOT, resolve(ROOT, dirname(file), s)))
}

const all = [...sources("src"), ...sources("services"), ...sources("layers")]

const violations = (files: ReadonlyArray<string>, allowed: (target: string) => boolean): Array<string> =>
  files.flatMap((file) => importsOf(file).filter((target) => !allowed(target)).map((target) => `${file} → ${target}`))

/** Modules the client SDK and the declarations may load: schemas (error classes are schemas too) and pure helpers. */
const isSchemaOnly = (target: string): boolean =>
  // A subsystem's schema files, also one folder down (services/workflow/runs/schema.ts).
  /^services\/[^/]+(\/[^/]+)?\/(schema|events|errors|GatewayEvent|deviceIdentity)\.ts$/.test(target) ||
  /^services\/shared\/(decode|json|errors|schemas|privateFile)\.ts$/.test(target)

/**
 * A subsystem's settings declarations (`services/<x>/settings.ts`: data and pure decoders, importing only
 * layers/settings.ts), which the settings root (layers/config.ts) lists.
 */
const isSettingsDeclaration = (target: string): boolean => /^services\/[^/]+\/settings\.ts$/.test(target)

/** Pure helpers (no Effect service, no server code) that infrastructure may use too: writing a private file atomically, SHA-256. */
const isPureHelper = (target: string): boolean =>
  target === "services/shared/privateFile.ts" || target === "services/shared/sha256.ts"

describe("dependency direction", () => {
  it("services import only services and shared infrastructure (settings, storage, rate-limit store, secret providers)", () => {
    const files = all.filter((f) => f.startsWith("services/"))
    expect(files.length).toBeGreaterThan(10)
    const sharedInfrastructure = (t: string) =>
      t === "layers/config.ts" || t === "layers/settings.ts" || t.startsWith("layers/storage/") || t.startsWith("layers/ratelimit/") ||
      t.startsWith("layers/secrets/")
    expect(violations(files, (t) => t.startsWith("services/") || sharedInfrastructure(t))).toEqual([])
  })

  it("infrastructure (layers/, not the composition root) imports neither services nor transports", () => {
    const files = all.filter((f) => f.startsWith("layers/") && f !== "layers/gateway.ts")
    expect(violations(files, (t) => t.startsWith("layers/") || isPureHelper(t) || isSettingsDeclaration(t))).toEqual([])
    // The declarations themselves load nothing but the declaration helper (and effect).
    const declarations = all.filter(isSettingsDeclaration)
    expect(declarations.length).toBeGreaterThan(5)
    expect(violations(declarations, (t) => t === "layers/settings.ts")).toEqual([])
  })

  it("only the composition root and the serve command import the whole graph", () => {
    const importers = all.filter((f) => importsOf(f).includes("layers/gateway.ts"))
    expect(importers).toEqual(["src/serve.ts"])
  })

  it("transports do not import each other's handlers (HTTP ↔ WS), except shared credential helpers", () => {
    const http = all.filter((f) => f.startsWith("src/http/"))
    const ws = all.filter((f) => f.startsWith("src/ws/"))
    expect(violations(http, (t) => !t.startsWith("src/ws/"))).toEqual([])
    expect(violations(ws, (t) => !t.startsWith("src/http/") || t === "src/http/credentials.ts" || t === "src/http/origin.ts" || t === "src/http/path.ts"))
      .toEqual([])
  })

  it("the client SDK and the API declarations load schemas only, never server code", () => {
    const files = all.filter((f) => f.startsWith("src/client/") || f.startsWith("src/http/api/") || f.startsWith("src/ws/api/"))
    expect(files.length).toBeGreaterThan(10)
    const allowed = (t: string) =>
      t.startsWith("src/client/") || t.startsWith("src/http/api/") || t.startsWith("src/ws/api/") || isSchemaOnly(t)
    expect(violations(files, allowed)).toEqual([])
  })
})
