/**
 * The root's two lists (docs/architecture.md "Subsystems"): the descriptors
 * (src/app/subsystems.ts) and their schema-only twin, the contracts
 * (src/app/contracts.ts), agree; the snapshot table set and the settings
 * groups are exactly the descriptors' tables and settings; and what each
 * subsystem's folder imports from outside it is shared machinery or another
 * subsystem, never a registry it would have to edit.
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { SETTINGS_GROUPS } from "../../src/app/settings.ts"
import { CoreSettings } from "../../layers/coreSettings.ts"
import type { SettingsGroup } from "../../layers/settings.ts"
import { Contracts, GatewayApi, WsMessages } from "../../src/app/contracts.ts"
import { Subsystems } from "../../src/app/subsystems.ts"
import { GatewayTableSet } from "../../src/app/tables.ts"

const ROOT = resolve(import.meta.dirname, "../..")

describe("the subsystem list", () => {
  it("lists each subsystem once, with its contract at the same position of the contract list", () => {
    expect(Subsystems.map((s) => s.contract.name)).toEqual(Contracts.map((c) => c.name))
    Subsystems.forEach((s, i) => expect(s.contract).toBe(Contracts[i]))
    expect(new Set(Subsystems.map((s) => s.contract.name)).size).toBe(Subsystems.length)
  })

  it("GatewayApi and the WS types are exactly the contracts' groups and types", () => {
    expect(Object.keys(GatewayApi.groups).sort()).toEqual(Contracts.flatMap((c) => c.http.map((g) => g.identifier)).sort())
    expect(WsMessages.map((m) => m.type)).toEqual(Contracts.flatMap((c) => c.ws.map((m) => m.type)))
  })

  it("serves an HTTP handler layer for every group it declares", () => {
    for (const s of Subsystems) expect(s.http.length).toBe(s.contract.http.length)
  })

  it("the snapshot set is derived from exactly the descriptors' tables", () => {
    const declared = (list: ReadonlyArray<{ readonly name: string }>) => list.map((t) => t.name).sort()
    expect(declared([...GatewayTableSet.tables, ...GatewayTableSet.excluded])).toEqual(declared(Subsystems.flatMap((s) => s.tables)))
  })

  it("the settings groups are the core settings and exactly the descriptors' settings", () => {
    expect(SETTINGS_GROUPS).toEqual([CoreSettings, ...Subsystems.flatMap((s) => s.settings)])
  })

  it("every settings declaration file's group is in the root's list and enters the settings type (SettingsRegistry) under its name", async () => {
    const files = ["layers/coreSettings.ts", ...sources("services").filter((f) => f.endsWith("/settings.ts"))]
    const listed = new Set<unknown>(SETTINGS_GROUPS)
    for (const file of files) {
      const exported: Record<string, unknown> = await import(join(ROOT, file))
      const groups = Object.values(exported).filter((v): v is SettingsGroup =>
        typeof v === "object" && v !== null && "subsystem" in v && "settings" in v
      )
      expect(groups.length, file).toBe(1)
      expect(listed.has(groups[0]), `${file} is not in the settings of a descriptor of src/app/subsystems.ts`).toBe(true)
      const entry = new RegExp(`interface SettingsRegistry \\{\\s*readonly "?${groups[0]!.subsystem}"?: typeof \\w+\\.settings\\s*\\}`)
      expect(readFileSync(join(ROOT, file), "utf8"), `${file} enters its group into SettingsRegistry`).toMatch(entry)
    }
    expect(files.length).toBe(SETTINGS_GROUPS.length)
  })
})

/** Every relative import of a file, as repository paths. */
const importsOf = (file: string): Array<string> => {
  const text = readFileSync(join(ROOT, file), "utf8")
  return [...text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)].map((m) =>
    relative(ROOT, resolve(ROOT, dirname(file), m[1]!))
  )
}
const sources = (dir: string): Array<string> =>
  readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name)
    return statSync(join(ROOT, path)).isDirectory() ? sources(path) : name.endsWith(".ts") ? [path] : []
  })

/** Shared machinery a subsystem may use without the machinery knowing it: nothing there lists subsystems. */
const SHARED = [
  "services/shared/", "services/domain-events/", "services/metrics/", "services/backplane/", "layers/", "src/http/",
  "src/ws/", "src/subsystem/"
]
/** Registries that list subsystems (a subsystem that needed one would need it edited). */
const REGISTRIES = ["src/app/", "layers/config.ts"]

describe("what each subsystem's folder needs outside it", () => {
  const folders = readdirSync(join(ROOT, "services")).filter((d) => statSync(join(ROOT, "services", d)).isDirectory())
  const subsystemFolders = folders.filter((d) => {
    try {
      return statSync(join(ROOT, "services", d, "index.ts")).isFile()
    } catch {
      return false
    }
  })

  it("is shared machinery or another subsystem's folder, never a registry of subsystems", () => {
    expect(subsystemFolders.length).toBe(Subsystems.length - 2) // the root's own routes live in src/app/routes
    const report: Record<string, Array<string>> = {}
    for (const folder of subsystemFolders) {
      const outside = new Set<string>()
      for (const file of sources(join("services", folder))) {
        for (const target of importsOf(file)) {
          if (!target.startsWith(`services/${folder}/`)) outside.add(target)
        }
      }
      const registries = [...outside].filter((t) => REGISTRIES.some((r) => t.startsWith(r)))
      // layers/config.ts is read (GatewayConfig), never edited by a subsystem: its list is checked above.
      expect(registries.filter((t) => t !== "layers/config.ts"), folder).toEqual([])
      report[folder] = [...outside].filter((t) =>
        !SHARED.some((p) => t.startsWith(p)) && !subsystemFolders.some((f) => t.startsWith(`services/${f}/`))
      )
    }
    expect(Object.entries(report).filter(([, files]) => files.length > 0)).toEqual([])
  })
})
