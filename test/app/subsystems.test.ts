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
import { DECLARED_SETTINGS, SETTINGS_GROUPS } from "../../src/app/settings.ts"
import { CoreSettings } from "../../layers/coreSettings.ts"
import { Setting, type SettingsGroup } from "../../layers/settings.ts"
import { deriveSettings } from "../../layers/config.ts"
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

  it("a new subsystem's settings join the CLI's list after the existing ones, from its descriptor alone", () => {
    const MemorySettings = Setting.group("memory", {
      memoryMaxItems: Setting.integer({ env: "SVC_MEMORY_MAX_ITEMS", flag: "memory-max-items", default: 1000, summary: "Most items", doc: "Most items." })
    })
    const derived = deriveSettings([...SETTINGS_GROUPS, MemorySettings])
    expect(derived.DECLARED_SETTINGS.map((d) => d.key)).toEqual([...DECLARED_SETTINGS.map((d) => d.key), "memoryMaxItems"])
    expect(derived.DECLARED_SETTINGS.at(-1)?.subsystem).toBe("memory")
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

/** What each subsystem is needed by outside services/ (see below), pinned. */
const PINNED_NEEDS: Record<string, ReadonlyArray<string>> = {
  approvals: ["src/app/gateway.ts", "src/contracts/index.ts", "src/ws/api/initiated.ts"],
  audit: ["src/app/gateway.ts", "src/http/authentication.ts", "src/ws/dispatch.ts"],
  auth: ["src/app/gateway.ts", "src/client/errors.ts", "src/client/transport.ts", "src/contracts/index.ts", "src/http/api/security.ts", "src/http/authentication.ts", "src/http/authorization.ts", "src/http/credentials.ts", "src/ws/connection.ts", "src/ws/credentials.ts", "src/ws/dispatch.ts", "src/ws/server.ts"],
  "auth-profiles": ["src/app/gateway.ts", "src/contracts/index.ts"],
  // The cluster's cross-field rules (layers/config.ts) and what SVC_ROLE switches in the graph (src/app/gateway.ts).
  cluster: ["layers/config.ts", "src/app/gateway.ts"],
  diagnostics: ["layers/config.ts", "src/app/gateway.ts", "src/serve.ts"],
  nodes: ["src/app/gateway.ts", "src/contracts/index.ts", "src/ws/api/initiated.ts"],
  pairing: ["src/app/gateway.ts", "src/contracts/index.ts", "src/ws/connection.ts", "src/ws/server.ts"],
  planner: ["src/contracts/index.ts"],
  playbooks: ["src/app/gateway.ts"],
  // `svc-gateway plugins lock <id>` (src/commands.ts loads it on demand).
  plugins: ["src/pluginsLock.ts"],
  policy: ["src/app/gateway.ts", "src/contracts/index.ts"],
  "policy-bundle": ["src/app/gateway.ts", "src/contracts/index.ts"],
  secrets: ["src/app/gateway.ts"],
  snapshots: ["src/app/gateway.ts", "src/app/tables.ts", "src/contracts/index.ts", "src/snapshot.ts"],
  watchers: ["src/app/gateway.ts"],
  workflow: ["scripts/apiReference.ts"],
  "ws-sessions": ["scripts/apiReference.ts", "src/app/gateway.ts", "src/client/GatewayClientCore.ts", "src/client/demoNode.ts", "src/client/deviceKey.ts", "src/client/encoding.ts", "src/client/envelopes.ts", "src/client/errors.ts", "src/client/identity.ts", "src/client/index.ts", "src/client/transport.ts", "src/client/types.ts", "src/client/wire.ts", "src/contracts/index.ts", "src/subsystem/contract.ts", "src/ws/api/message.ts", "src/ws/connection.ts", "src/ws/credentials.ts", "src/ws/dispatch.ts", "src/ws/server.ts"],
}

/**
 * The other direction: the files outside services/ that need a subsystem's folder (they import from it), besides
 * the root's two lists (src/app/subsystems.ts, src/app/contracts.ts). A file named here would be edited when a
 * subsystem like it is added, so each is a use of that one subsystem, not a list: the WS transport and the client
 * speak the sessions protocol (ws-sessions), authenticate (auth), use the node/pairing/approval initiated requests
 * and a few of their records; the package entry re-exports services and schemas for programs that compose the
 * gateway; the snapshot CLI and the derived table set use the snapshots service. A new subsystem appears nowhere here
 * (the test fails on any folder not pinned): one folder, its descriptor's line and its contract's line.
 */
describe("the files outside services/ that need a subsystem", () => {
  const ROOT_LISTS = new Set(["src/app/subsystems.ts", "src/app/contracts.ts"])
  const outside = [...sources("src"), ...sources("layers"), ...sources("scripts")]
  const folderOf = (target: string) => /^services\/([^/]+)\//.exec(target)?.[1]

  it("are the root's two lists and the pinned uses below, nothing else", () => {
    const needs: Record<string, Array<string>> = {}
    for (const file of outside.filter((f) => !ROOT_LISTS.has(f))) {
      for (const target of importsOf(file)) {
        const folder = folderOf(target)
        if (folder === undefined || SHARED.some((p) => target.startsWith(p))) continue
        ;(needs[folder] ??= []).includes(file) || needs[folder]!.push(file)
      }
    }
    for (const files of Object.values(needs)) files.sort()
    expect(needs).toEqual(PINNED_NEEDS)
  })
})
