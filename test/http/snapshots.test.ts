/**
 * Snapshots over HTTP on real gateways (gateway-api.md "Snapshots";
 * docs/operations.md "Backup and restore", "Moving from SQLite to
 * PostgreSQL"): a SQLite gateway filled through every feature exports every
 * table; the bundle imports into a PostgreSQL gateway and back into SQLite
 * with identical rows both ways, and the same approvals, pairings, runs and
 * secrets are served there; ids continue above the imported ones; every
 * refusal (403 disabled before the body, 400s naming the problem, 500
 * import_refused); the registry covers every table a running gateway creates.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { StorageMemoryTest } from "../../src/app/gateway.ts"
import { SecretResolver } from "../../services/secrets/SecretStore.ts"
import { isExcludedTable, SNAPSHOT_TABLES } from "../../src/app/tables.ts"
import { postgres } from "../support/databases.ts"
import { type HttpTarget, startHttpTarget } from "../support/httpTarget.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { HTTP_POLICY, messengerSettings, type Populated, populate } from "../support/populate.ts"
import { connectPeer, makeIdentity } from "../support/wsPeer.ts"

/** Tables a gateway creates that a snapshot leaves out on purpose: the declared exclusions (src/app/tables.ts). */
const EXCLUDED = isExcludedTable

const homeWithPolicy = () => {
  const home = mkdtempSync(join(tmpdir(), "svc-snapshot-"))
  writeFileSync(join(home, "policy.yml"), HTTP_POLICY)
  return home
}

const get = async (gw: TestGateway, path: string, token = gw.adminToken) => {
  const res = await gw.fetch(path, { headers: { authorization: `Bearer ${token}` } })
  return { status: res.status, body: await readJson(res) }
}
const post = async (gw: TestGateway, path: string, body: unknown, token = gw.adminToken) => {
  const res = await postJson(gw, path, body, token)
  return { status: res.status, body: await readJson(res) }
}
const exportOf = async (gw: TestGateway, query = "") => {
  const res = await get(gw, `/snapshot/export${query}`)
  expect(res.status).toBe(200)
  return res.body
}
const tablesOf = (gw: TestGateway) =>
  gw.run(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql.onDialectOrElse({
      pg: () => sql<{ name: string }>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()`,
      orElse: () => sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table'`
    })
    return rows.map((r) => r.name).sort()
  }))

let http: HttpTarget
let target: string
let home: string
let a: TestGateway
let filled: Populated
let bundleA: any

beforeAll(async () => {
  http = await startHttpTarget()
  target = http.url
  home = homeWithPolicy()
  a = await startGateway({ rateLimitMax: 10_000, engineApiEnabled: true, agentEnabled: true, agentModel: "builtin/scripted", home, ...messengerSettings(target) })
  filled = await populate(a, target)
  bundleA = await exportOf(a)
}, 60_000)
afterAll(async () => {
  await a?.close()
  await http?.close()
})

describe("GET /snapshot/export", () => {
  it("exports every table of the snapshot set, each filled by the gateway's features, rows in primary-key order", () => {
    expect(bundleA).toMatchObject({ format: "svc.snapshot.v2", gateway_version: "0.1.0", db_kind: "sqlite" })
    expect(Object.keys(bundleA.tables)).toEqual(SNAPSHOT_TABLES.map((t) => t.name))
    // planner_events is the planner's legacy table: its rows move into the audit chain (services/audit/legacy.ts).
    const empty = SNAPSHOT_TABLES.filter((t) => bundleA.tables[t.name].rows.length === 0).map((t) => t.name)
    expect(empty.filter((name) => name !== "planner_events")).toEqual([])
    const ids = bundleA.tables.approvals.rows.map((r: any) => r.id)
    expect(ids).toEqual([...ids].sort((x, y) => x - y))
    const runs = bundleA.tables.workflow_runs.rows
    expect(runs.map((r: any) => r.status).sort()).toEqual(["paused", "queued", "succeeded"])
    // Values in their portable form: JSON parsed, integers as numbers, times ISO-8601 UTC.
    expect(bundleA.tables.auth_profiles.rows[0].labels).toEqual({ team: "ops" })
    expect(bundleA.tables.device_tokens.rows[0].scopes).toEqual(["operator.read"])
    expect(bundleA.tables.approvals.rows[0].created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  })

  it("lets secrets leave only as ciphertext and tokens only as digests", () => {
    const text = JSON.stringify(bundleA)
    expect(text).not.toContain(filled.secret.value)
    expect(text).not.toContain(a.adminToken)
    expect(bundleA.tables.secret_versions.rows[0]).toEqual({
      handle_id: filled.secret.handle_id,
      version: 1,
      key_id: expect.any(String),
      iv: expect.any(String),
      tag: expect.any(String),
      ciphertext: expect.any(String),
      created_at: expect.any(String)
    })
    expect(bundleA.tables.device_tokens.rows[0].token_digest).toMatch(/^[0-9a-f]{64}$/)
    expect(bundleA.tables.workflow_resume_tokens.rows[0].digest).toMatch(/^[0-9a-f]{64}$/)
  })

  it("exports the tables asked for; an unknown table or an empty list is 400 invalid_request", async () => {
    const some = await exportOf(a, "?tables=workflow_runs,%20approvals,approvals")
    expect(Object.keys(some.tables)).toEqual(["approvals", "workflow_runs"])
    expect(await get(a, "/snapshot/export?tables=approvals,facts")).toEqual({
      status: 400,
      body: { error: "invalid_request", message: "unknown table 'facts'" }
    })
    expect(await get(a, "/snapshot/export?tables=cluster_messages")).toEqual({
      status: 400,
      body: { error: "invalid_request", message: "unknown table 'cluster_messages'" }
    })
    expect(await get(a, "/snapshot/export?tables=,")).toEqual({
      status: 400,
      body: { error: "invalid_request", message: "tables: expected a comma-separated list of table names" }
    })
  })

  it("needs operator.admin", async () => {
    const issued = await post(a, "/auth/device-tokens/issue", { device_id: makeIdentity().deviceId, role: "client", scopes: ["operator.read", "operator.write"] })
    expect((await get(a, "/snapshot/export", issued.body.token)).status).toBe(403)
    expect((await post(a, "/snapshot/import", { confirm: "IMPORT", bundle: bundleA }, issued.body.token)).status).toBe(403)
    const admin = await post(a, "/auth/device-tokens/issue", { device_id: makeIdentity().deviceId, role: "client", scopes: ["operator.admin"] })
    expect((await get(a, "/snapshot/export?tables=plans", admin.body.token)).status).toBe(200)
  })

  it("the registry covers every table a running gateway creates (the rest are excluded on purpose)", async () => {
    const tables = await tablesOf(a)
    expect(tables.filter((t) => !EXCLUDED(t) && !SNAPSHOT_TABLES.some((s) => s.name === t))).toEqual([])
    expect(SNAPSHOT_TABLES.filter((s) => !tables.includes(s.name)).map((s) => s.name)).toEqual([])
    expect(tables.some((t) => t.startsWith("cluster_"))).toBe(true)
  })
})

describe("POST /snapshot/import refusals", () => {
  let d: TestGateway
  beforeAll(async () => {
    d = await startGateway({ rateLimitMax: 10_000, snapshotImportEnabled: true })
  })
  afterAll(() => d?.close())

  it("403 disabled unless SVC_SNAPSHOT_IMPORT_ENABLED=1, checked before the body", async () => {
    const disabled = { status: 403, body: { error: "disabled", message: "snapshot import is disabled (set SVC_SNAPSHOT_IMPORT_ENABLED=1)" } }
    expect(await post(a, "/snapshot/import", { confirm: "IMPORT", bundle: bundleA })).toEqual(disabled)
    expect(await post(a, "/snapshot/import", "{not json")).toEqual(disabled)
    expect(await post(a, "/snapshot/import", { confirm: "no" })).toEqual(disabled)
  })

  it("400 invalid_request for a bad body, a wrong confirm, an unknown format, unknown tables or columns", async () => {
    const bad = async (body: unknown, message: string | RegExp) => {
      const res = await post(d, "/snapshot/import", body)
      expect(res.status).toBe(400)
      expect(res.body.error).toBe("invalid_request")
      if (typeof message === "string") expect(res.body.message).toBe(message)
      else expect(res.body.message).toMatch(message)
    }
    await bad("{not json", /JSON/)
    await bad({ confirm: "IMPORT" }, /^bundle: missing required field/)
    await bad({ confirm: "import", bundle: bundleA }, "confirm: expected \"IMPORT\" to confirm the import")
    await bad({ confirm: "IMPORT", bundle: { ...bundleA, format: "svc.snapshot.v1" } }, "bundle.format: unknown format 'svc.snapshot.v1'; this gateway reads svc.snapshot.v2")
    await bad({ confirm: "IMPORT", bundle: { ...bundleA, tables: { ...bundleA.tables, legacy_items: { columns: [], rows: [] } } } }, "unknown table 'legacy_items'")
    const approvals = bundleA.tables.approvals
    await bad(
      { confirm: "IMPORT", bundle: { format: "svc.snapshot.v2", tables: { approvals: { columns: [...approvals.columns, "legacy"], rows: approvals.rows } } } },
      "bundle.tables.approvals.columns: unknown column 'legacy' in table 'approvals'"
    )
    await bad(
      { confirm: "IMPORT", bundle: { format: "svc.snapshot.v2", tables: { approvals: { ...approvals, rows: [{ ...approvals.rows[0], step_index: true }] } } } },
      /^bundle\.tables\.approvals\.rows\[0\]\.step_index: expected an integer/
    )
    // A table entry without columns: 400 naming the row and field (was 500, an SQL syntax error).
    await bad({ confirm: "IMPORT", bundle: { format: "svc.snapshot.v2", tables: { approvals: { columns: [], rows: [{}, {}] } } } }, /^bundle\.tables\.approvals\.rows\[0\]\.kind: expected /)
    // A row the gateway could not read back: a device token with an unknown role.
    const tokens = bundleA.tables.device_tokens
    await bad(
      { confirm: "IMPORT", bundle: { format: "svc.snapshot.v2", tables: { device_tokens: { ...tokens, rows: [{ ...tokens.rows[0], role: "god" }] } } } },
      /^bundle\.tables\.device_tokens\.rows\[0\]\.role: expected /
    )
    expect((await exportOf(d, "?tables=approvals")).tables.approvals.rows).toEqual([])
    expect((await exportOf(d, "?tables=device_tokens")).tables.device_tokens.rows).toEqual([])
  })

  it("500 import_refused when a target table holds rows; nothing is imported", async () => {
    const only = (name: string) => ({ format: "svc.snapshot.v2", tables: { [name]: bundleA.tables[name] } })
    expect((await post(d, "/snapshot/import", { confirm: "IMPORT", bundle: only("approvals") })).status).toBe(200)
    const refused = await post(d, "/snapshot/import", { confirm: "IMPORT", bundle: { format: "svc.snapshot.v2", tables: { ...only("plans").tables, ...only("approvals").tables } } })
    expect(refused).toEqual({
      status: 500,
      body: {
        error: "import_refused",
        message: "import refused: the target tables approvals are not empty (an import only fills empty tables; nothing was imported)"
      }
    })
    expect((await exportOf(d, "?tables=plans")).tables.plans.rows).toEqual([])
  })
})

describe.skipIf(postgres === undefined)("round trip SQLite → PostgreSQL → SQLite", () => {
  let b: TestGateway
  let c: TestGateway
  let bundleB: any
  beforeAll(async () => {
    // The PostgreSQL gateway reads the secrets with the SQLite gateway's master key (docs/operations.md).
    b = await startGateway(
      { rateLimitMax: 10_000, engineApiEnabled: true, snapshotImportEnabled: true, secretsMasterKeyPath: join(home, "secrets.master.key") },
      postgres!.make()
    )
    c = await startGateway({ rateLimitMax: 10_000, engineApiEnabled: true, snapshotImportEnabled: true, secretsMasterKeyPath: join(home, "secrets.master.key") }, StorageMemoryTest)
  }, 60_000)
  afterAll(async () => {
    await b?.close()
    await c?.close()
  })

  it("imports the SQLite bundle into a started PostgreSQL gateway and exports identical rows", async () => {
    const total = Object.values(bundleA.tables).reduce((n: number, t: any) => n + t.rows.length, 0)
    const imported = await post(b, "/snapshot/import", { confirm: "IMPORT", bundle: bundleA })
    expect(imported).toEqual({
      status: 200,
      body: {
        status: "ok",
        imported_at: expect.any(String),
        format: "svc.snapshot.v2",
        tables: SNAPSHOT_TABLES.map((t) => t.name),
        inserted_total: total,
        inserted_by_table: Object.fromEntries(SNAPSHOT_TABLES.map((t) => [t.name, bundleA.tables[t.name].rows.length]))
      }
    })
    bundleB = await exportOf(b)
    expect(bundleB.db_kind).toBe("postgres")
    expect(bundleB.tables).toEqual(bundleA.tables)
  })

  it("serves the same approvals, pairings, runs, routing and secrets as the SQLite gateway", async () => {
    for (const id of bundleA.tables.approvals.rows.map((r: any) => r.id)) expect(await get(b, `/approvals/${id}`)).toEqual(await get(a, `/approvals/${id}`))
    expect(await get(b, "/pairings")).toEqual(await get(a, "/pairings"))
    expect(filled.pairingIds.length).toBe(2)
    for (const run_id of Object.values(filled.runs)) {
      expect(await get(b, `/workflow/runs/${run_id}`)).toEqual(await get(a, `/workflow/runs/${run_id}`))
    }
    expect(await get(b, "/routing/config")).toEqual(await get(a, "/routing/config"))
    expect(await get(b, "/policy/overrides")).toEqual(await get(a, "/policy/overrides"))
    const resolved = await b.run(Effect.flatMap(SecretResolver, (r) => r.resolve(filled.secret.handle_id, "after-import")))
    expect(Redacted.value(resolved)).toBe(filled.secret.value)
  })

  it("refuses a second import (500 import_refused)", async () => {
    const again = await post(b, "/snapshot/import", { confirm: "IMPORT", bundle: bundleA })
    expect(again.status).toBe(500)
    expect(again.body.error).toBe("import_refused")
    expect(again.body.message).toMatch(/^import refused: the target tables policy_snapshots, plans, .*, watcher_firings(, [a-z_]+)* are not empty/)
  })

  it("imports the PostgreSQL bundle back into SQLite with identical rows", async () => {
    const imported = await post(c, "/snapshot/import", { confirm: "IMPORT", bundle: bundleB })
    expect(imported.status).toBe(200)
    const bundleC = await exportOf(c)
    expect(bundleC.db_kind).toBe("sqlite")
    expect(bundleC.tables).toEqual(bundleA.tables)
  })

  it("finds the imported memory items by keyword on PostgreSQL and SQLite (the search index follows the import)", async () => {
    for (const gw of [b, c]) {
      const { peer } = await connectPeer(gw.url, gw.adminToken)
      const found = await peer.request("memory.search", { v: 1, query: "kept" })
      expect(found.result.hits.map((h: any) => h.memory_item_id)).toEqual([bundleA.tables.memory_items.rows[0].memory_item_id])
      expect((await peer.request("memory.search", { v: 1, query: "deleted" })).result.hits).toEqual([])
      peer.ws.close()
    }
  })

  it("new ids continue above the imported ones (sequences repaired) on PostgreSQL and SQLite", async () => {
    const maxApproval = Math.max(...bundleA.tables.approvals.rows.map((r: any) => r.id))
    const maxPairing = Math.max(...bundleA.tables.node_pairings.rows.map((r: any) => r.pairing_id))
    const trigger = { channel: "telegram", thread_id: "t-2", message: { text: "again" } }
    for (const gw of [b, c]) {
      const escalated = await post(gw, "/plan", { request_id: "after-import", trigger })
      expect(escalated.status).toBe(200)
      expect(escalated.body.escalation.approval_id).toBe(maxApproval + 1)
      const operator = (await connectPeer(gw.url, gw.adminToken)).peer
      const identity = makeIdentity()
      const { peer } = await connectPeer(gw.url, gw.adminToken, { role: "node", identity, capabilities: [] })
      const requested = await operator.next((m) => m?.type === "pairing.requested" && m.payload.pairing.node.node_id === identity.deviceId)
      expect(requested.payload.pairing.pairing_id).toBe(maxPairing + 1)
      peer.ws.close()
      operator.ws.close()
    }
  })

  it("the registry covers every table of the PostgreSQL gateway too", async () => {
    const tables = await tablesOf(b)
    expect(tables.filter((t) => !EXCLUDED(t) && !SNAPSHOT_TABLES.some((s) => s.name === t))).toEqual([])
  })
})
