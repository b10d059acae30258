/**
 * Signed webhooks on a real gateway (issue 13 §3; gateway-api.md "Watchers",
 * "Limits"; docs/automation.md), on SQLite and on PostgreSQL when
 * SVC_TEST_DATABASE_URL is set, with "now" set by `TestClock`: a valid call
 * fires the watcher once (`watcher.fired`); each header missing or malformed;
 * a tampered body or timestamp; the window's edges (default and custom, in
 * seconds and in milliseconds); a replayed nonce (409, also after a restart
 * on the same database); an upper-case signature; a body whose JSON keys are
 * in another order; unknown, non-webhook, inactive and deleted watchers
 * (404); a revoked secret handle (503); bearer scopes before the signature;
 * a run started with `SVC_AUTOMATION_ENABLED=1`; and docs/automation.md's
 * files and signing recipe, run as written.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Clock, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { spawn, spawnSync } from "node:child_process"
import { randomBytes, randomUUID } from "node:crypto"
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { StorageMemoryTest } from "../../src/app/gateway.ts"
import * as PgClient from "../../layers/storage/PgClient.ts"
import { storageLayer } from "../../layers/storage/Storage.ts"
import { nonceDigest, signWebhook } from "../../services/watchers/webhook/signature.ts"
import { postgres, postgresUrl } from "../support/databases.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { connectPeer, makeIdentity, type TestPeer } from "../support/wsPeer.ts"
import { BODY, BODY_REORDERED, SIG_REORDERED, SIG_S } from "../services/watchers/webhook/vectors.ts"

/**
 * Time. On SQLite the gateways read a `TestClock`, set to {@link START}:
 * `TestClock` starts at the epoch, and moving it years ahead would wake each
 * periodic loop of the gateway once per period since 1970, so these tests
 * stay near the epoch and send zero-padded timestamps (10 digits of seconds,
 * 13 of milliseconds, as the envelope allows); the window's edges are hit to
 * the millisecond. On PostgreSQL the gateways keep the live clock (a moved
 * `TestClock` also fires the pool's and the cluster's timeouts while their
 * queries are in flight), timestamps are real, and the window tests keep
 * {@link LIVE_SLACK} away from the edges. The 2023 fixed vectors run in the
 * service's unit tests.
 */
const START = 1_000_000
/** How far from a window's edge the live-clock tests stay (ms): far more than a request takes. */
const LIVE_SLACK = 10_000
/** A 13-digit milliseconds timestamp. */
const ms = (t: number) => String(t).padStart(13, "0")
/** A 10-digit seconds timestamp: the second holding `t` (ms). */
const sec = (t: number) => String(Math.floor(t / 1000)).padStart(10, "0")
const SECRET = `whsec-${randomBytes(12).toString("hex")}`

const ENVELOPE = { error: "unauthorized", message: "missing or invalid webhook signature envelope" }
const WINDOW = { error: "unauthorized", message: "webhook timestamp outside allowed replay window" }
const SIGNATURE = { error: "unauthorized", message: "invalid webhook signature" }
const REPLAY = { error: "replay_detected", message: "webhook nonce has already been processed" }
const NOT_FOUND = { error: "not_found", message: "webhook watcher not found" }

interface Delivery {
  readonly body?: string
  readonly timestamp?: string
  readonly nonce?: string
  /** The secret the sender signs with (default {@link SECRET}). */
  readonly secret?: string
  /** Header overrides, applied after signing (`undefined` removes the header). */
  readonly set?: Record<string, string | undefined>
  readonly token?: string
}

/** Signs and sends one delivery to watcher `id`; the answer's status and JSON body. */
const deliver = async (gw: TestGateway, id: number | string, d: Delivery = {}) => {
  const body = d.body ?? BODY
  const timestamp = d.timestamp ?? ms(await now(gw))
  const nonce = d.nonce ?? randomUUID()
  const headers: Record<string, string | undefined> = {
    "x-svc-webhook-signature": signWebhook(d.secret ?? SECRET, timestamp, nonce, body),
    "x-svc-webhook-timestamp": timestamp,
    "x-svc-webhook-nonce": nonce,
    ...d.set
  }
  const sent = Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => e[1] !== undefined))
  const res = await postJson(gw, `/watchers/${id}/trigger/webhook`, body, d.token ?? gw.adminToken, sent)
  return { status: res.status, body: await readJson(res), nonce }
}

const now = (gw: TestGateway) => gw.run(Clock.currentTimeMillis)

/** The signature header for a delivery (the spec's `<timestamp>.<nonce>.<body>`: it names no watcher). */
const signFor = (_id: number, timestamp: string, nonce: string, body: string, secret = SECRET) => signWebhook(secret, timestamp, nonce, body)

const call = async (gw: TestGateway, method: string, path: string, body?: unknown) => {
  const res = body === undefined
    ? await gw.fetch(path, { method, headers: { authorization: `Bearer ${gw.adminToken}` } })
    : method === "POST"
    ? await postJson(gw, path, body, gw.adminToken)
    : await gw.fetch(path, { method, headers: { authorization: `Bearer ${gw.adminToken}`, "content-type": "application/json" }, body: JSON.stringify(body) })
  return { status: res.status, body: await readJson(res) }
}

/** Stores `value` with `POST /secrets`; its handle id. */
const storeSecret = async (gw: TestGateway, value = SECRET): Promise<string> => {
  const res = await call(gw, "POST", "/secrets", { scope: "webhook:test", value })
  expect(res.status).toBe(201)
  return res.body.handle.handle_id
}

/** Creates a watcher with `POST /watchers`; its id. */
const createWatcher = async (gw: TestGateway, trigger_type: string, trigger_config: Record<string, unknown>): Promise<number> => {
  const res = await call(gw, "POST", "/watchers", { plan_id: "plan-hooked", trigger_type, trigger_config })
  expect(res.status).toBe(201)
  return res.body.id
}

const issueToken = async (gw: TestGateway, scopes: ReadonlyArray<string>): Promise<string> => {
  const res = await call(gw, "POST", "/auth/device-tokens/issue", { device_id: makeIdentity().deviceId, role: "client", scopes })
  expect(res.status).toBe(201)
  return res.body.token
}

/** Each database, with the clock its gateways read (see {@link START}). */
const databases: ReadonlyArray<{ name: string; storage: () => Layer.Layer<any, any>; clock: "test" | "live" }> = [
  { name: "sqlite", storage: () => StorageMemoryTest, clock: "test" },
  ...(postgres === undefined ? [] : [{ name: "postgresql", storage: () => postgres!.make(), clock: "live" as const }])
]

/** Starts a gateway on `database`; with a `TestClock`, set to {@link START}. */
const start = async (database: (typeof databases)[number], overrides: Parameters<typeof startGateway>[0] = {}, storage = database.storage()) => {
  const gw = await startGateway({ rateLimitMax: 100_000, ...overrides }, storage, { clock: database.clock })
  if (database.clock === "test") await gw.run(TestClock.setTime(START))
  return gw
}

for (const database of databases) {
  describe(`POST /watchers/:id/trigger/webhook on ${database.name}`, () => {
    let gw: TestGateway
    let peer: TestPeer
    let handle: string
    let hook: number
    let custom: number

    beforeAll(async () => {
      gw = await start(database)
      handle = await storeSecret(gw)
      hook = await createWatcher(gw, "webhook", { secret_handle: handle })
      custom = await createWatcher(gw, "webhook", { secret_handle: handle, max_skew_ms: 60_000 })
      peer = (await connectPeer(gw.url, gw.adminToken)).peer
    })
    afterAll(async () => {
      peer?.ws.close()
      await gw?.close()
    })

    it("a valid call → 200 {ok, firing_id}; the firing is announced as watcher.fired (recorded, no run)", async () => {
      const fired = peer.next((m) => m.type === "watcher.fired" && m.payload?.watcher_id === hook)
      const res = await deliver(gw, hook)
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ ok: true, firing_id: expect.stringMatching(/^firing-/) })
      const event = await fired
      expect(event.payload).toMatchObject({
        firing_id: res.body.firing_id,
        watcher_id: hook,
        plan_id: "plan-hooked",
        trigger_type: "webhook",
        nonce_digest: nonceDigest(res.nonce),
        status: "recorded",
        run_id: null
      })
      expect(event.scope).toEqual({ kind: "watcher", watcher_id: hook })
    })

    it.each([
      ["x-svc-webhook-signature"],
      ["x-svc-webhook-timestamp"],
      ["x-svc-webhook-nonce"]
    ])("%s missing → 401 envelope", async (header) => {
      expect(await deliver(gw, hook, { set: { [header]: undefined } })).toMatchObject({ status: 401, body: ENVELOPE })
    })

    it.each([
      ["another prefix", (sig: string) => ({ "x-svc-webhook-signature": sig.replace("sha256=", "sha512=") })],
      ["no prefix", (sig: string) => ({ "x-svc-webhook-signature": sig.slice("sha256=".length) })],
      ["63 hex digits", (sig: string) => ({ "x-svc-webhook-signature": sig.slice(0, -1) })],
      ["a non-hex digit", (sig: string) => ({ "x-svc-webhook-signature": `${sig.slice(0, -1)}z` })],
      ["an 11-digit timestamp", () => ({ "x-svc-webhook-timestamp": "00000001000" })],
      ["a 9-digit timestamp", () => ({ "x-svc-webhook-timestamp": "000001000" })],
      ["a nonce with /", () => ({ "x-svc-webhook-nonce": "abc/def" })],
      ["a 257-character nonce", () => ({ "x-svc-webhook-nonce": "n".repeat(257) })]
    ])("%s → 401 envelope", async (_, malformed) => {
      const timestamp = ms(await now(gw))
      const nonce = randomUUID()
      const sig = signFor(hook, timestamp, nonce, BODY)
      expect(await deliver(gw, hook, { timestamp, nonce, set: malformed(sig) })).toMatchObject({ status: 401, body: ENVELOPE })
    })

    it("a 256-character base64url nonce is accepted", async () => {
      expect((await deliver(gw, hook, { nonce: randomBytes(192).toString("base64url") })).status).toBe(200)
    })

    it("a tampered body or timestamp → 401 invalid webhook signature", async () => {
      const timestamp = ms(await now(gw))
      const nonce = randomUUID()
      const signature = signFor(hook, timestamp, nonce, BODY)
      const tamperedBody = await deliver(gw, hook, { body: BODY.replace("main", "prod"), timestamp, nonce, set: { "x-svc-webhook-signature": signature } })
      expect(tamperedBody).toMatchObject({ status: 401, body: SIGNATURE })
      const tamperedTime = await deliver(gw, hook, { timestamp, nonce, set: { "x-svc-webhook-timestamp": ms(Number(timestamp) - 1) } })
      expect(tamperedTime).toMatchObject({ status: 401, body: SIGNATURE })
      // A wrong secret, too; none of these used up the nonce.
      expect(await deliver(gw, hook, { timestamp, nonce, secret: `${SECRET}x` })).toMatchObject({ status: 401, body: SIGNATURE })
      expect((await deliver(gw, hook, { timestamp, nonce })).status).toBe(200)
    })

    it("the bytes are what is signed: the same JSON with its keys in another order → 401", async () => {
      const timestamp = ms(await now(gw))
      const nonce = randomUUID()
      const signature = signFor(hook, timestamp, nonce, BODY)
      expect(await deliver(gw, hook, { body: BODY_REORDERED, timestamp, nonce, set: { "x-svc-webhook-signature": signature } }))
        .toMatchObject({ status: 401, body: SIGNATURE })
      expect(await deliver(gw, hook, { body: `${BODY}\n`, timestamp, nonce, set: { "x-svc-webhook-signature": signature } }))
        .toMatchObject({ status: 401, body: SIGNATURE })
      expect(SIG_REORDERED).not.toBe(SIG_S)
    })

    it("a signature in upper case (hex and prefix) is accepted", async () => {
      const timestamp = ms(await now(gw))
      const nonce = randomUUID()
      const upper = signFor(hook, timestamp, nonce, BODY).toUpperCase()
      expect(upper).toMatch(/^SHA256=[0-9A-F]{64}$/)
      expect((await deliver(gw, hook, { timestamp, nonce, set: { "x-svc-webhook-signature": upper } })).status).toBe(200)
    })

    const clocked = database.clock === "test"
    /** Distance from a window's edge: 0 with the TestClock (the edge itself), else LIVE_SLACK. */
    const slack = clocked ? 0 : LIVE_SLACK

    it("default window (300000 ms), milliseconds: inside both ways → 200, outside → 401 (on the TestClock: the edge, and 1 ms past it)", async () => {
      const t = await now(gw)
      expect((await deliver(gw, hook, { timestamp: ms(t - 300_000 + slack) })).status).toBe(200)
      expect((await deliver(gw, hook, { timestamp: ms(t + 300_000 - slack) })).status).toBe(200)
      expect(await deliver(gw, hook, { timestamp: ms(t - 300_001 - slack) })).toMatchObject({ status: 401, body: WINDOW })
      expect(await deliver(gw, hook, { timestamp: ms(t + 300_001 + slack) })).toMatchObject({ status: 401, body: WINDOW })
    })

    it("default window, seconds: inside → 200, outside → 401", async () => {
      const t = await now(gw)
      expect((await deliver(gw, hook, { timestamp: sec(t - 300_000 + slack + 999) })).status).toBe(200)
      expect((await deliver(gw, hook, { timestamp: sec(t + 300_000 - slack) })).status).toBe(200)
      expect(await deliver(gw, hook, { timestamp: sec(t - 301_000 - slack) })).toMatchObject({ status: 401, body: WINDOW })
      expect(await deliver(gw, hook, { timestamp: sec(t + 302_000 + slack) })).toMatchObject({ status: 401, body: WINDOW })
    })

    it.runIf(clocked)("default window, seconds, on the TestClock: the edge second → 200; 1 ms later on the clock → 401", async () => {
      await gw.run(TestClock.setTime(Math.floor((await now(gw)) / 1000) * 1000 + 1000))
      const t = await now(gw)
      expect((await deliver(gw, hook, { timestamp: sec(t - 300_000) })).status).toBe(200)
      expect((await deliver(gw, hook, { timestamp: sec(t + 300_000) })).status).toBe(200)
      await gw.run(TestClock.adjust(1))
      expect(await deliver(gw, hook, { timestamp: sec(t - 300_000) })).toMatchObject({ status: 401, body: WINDOW })
      expect((await deliver(gw, hook, { timestamp: sec(t + 300_000) })).status).toBe(200)
    })

    it("a watcher's max_skew_ms (60000) in milliseconds and in seconds; 120 s ago is inside the default window only", async () => {
      const t = await now(gw)
      const edge = clocked ? 0 : 5_000
      expect((await deliver(gw, custom, { timestamp: ms(t - 60_000 + edge) })).status).toBe(200)
      expect((await deliver(gw, custom, { timestamp: ms(t + 60_000 - edge) })).status).toBe(200)
      expect(await deliver(gw, custom, { timestamp: ms(t - 60_001 - edge) })).toMatchObject({ status: 401, body: WINDOW })
      expect(await deliver(gw, custom, { timestamp: ms(t + 60_001 + edge) })).toMatchObject({ status: 401, body: WINDOW })
      expect((await deliver(gw, custom, { timestamp: sec(t - 59_000 + edge) })).status).toBe(200)
      expect(await deliver(gw, custom, { timestamp: sec(t - 61_000 - edge) })).toMatchObject({ status: 401, body: WINDOW })
      expect((await deliver(gw, hook, { timestamp: ms(t - 120_000) })).status).toBe(200)
      expect(await deliver(gw, custom, { timestamp: ms(t - 120_000) })).toMatchObject({ status: 401, body: WINDOW })
    })

    it("a replayed nonce → 409 replay_detected, re-signed with a new timestamp too, and at another watcher sharing the secret", async () => {
      const first = await deliver(gw, hook)
      expect(first.status).toBe(200)
      expect(await deliver(gw, hook, { nonce: first.nonce })).toEqual({ status: 409, body: REPLAY, nonce: first.nonce })
      if (clocked) await gw.run(TestClock.adjust(5_000))
      expect(await deliver(gw, hook, { nonce: first.nonce, timestamp: ms((await now(gw)) + 1_000) })).toMatchObject({ status: 409, body: REPLAY })
      expect(await deliver(gw, custom, { nonce: first.nonce })).toMatchObject({ status: 409, body: REPLAY })
    })

    it("unknown, non-webhook, inactive and deleted watchers → 404; a bad id → 400", async () => {
      expect(await deliver(gw, 987_654)).toMatchObject({ status: 404, body: NOT_FOUND })
      const periodicLess = await createWatcher(gw, "plan_complete", {})
      expect(await deliver(gw, periodicLess)).toMatchObject({ status: 404, body: NOT_FOUND })
      const paused = await createWatcher(gw, "webhook", { secret_handle: handle })
      expect((await call(gw, "PATCH", `/watchers/${paused}`, { active: false })).status).toBe(200)
      expect(await deliver(gw, paused)).toMatchObject({ status: 404, body: NOT_FOUND })
      expect((await call(gw, "PATCH", `/watchers/${paused}`, { active: true })).status).toBe(200)
      expect((await deliver(gw, paused)).status).toBe(200)
      const deleted = await createWatcher(gw, "webhook", { secret_handle: handle })
      expect((await call(gw, "DELETE", `/watchers/${deleted}`)).status).toBe(200)
      expect(await deliver(gw, deleted)).toMatchObject({ status: 404, body: NOT_FOUND })
      expect((await deliver(gw, "abc")).status).toBe(400)
    })

    it("a revoked secret handle → 503 misconfigured", async () => {
      const revoked = await storeSecret(gw)
      const id = await createWatcher(gw, "webhook", { secret_handle: revoked })
      expect((await deliver(gw, id)).status).toBe(200)
      expect((await call(gw, "DELETE", `/secrets/${revoked}`)).status).toBe(200)
      const res = await deliver(gw, id)
      expect(res).toMatchObject({ status: 503, body: { error: "misconfigured", message: "webhook secret handle cannot be resolved" } })
    })

    it("a rotated secret: the watcher follows the new handle; only the new value signs", async () => {
      const rotating = await storeSecret(gw)
      const id = await createWatcher(gw, "webhook", { secret_handle: rotating })
      const fresh = `${SECRET}-rotated`
      const rotated = await call(gw, "POST", `/secrets/${rotating}/rotate`, { value: fresh })
      expect(rotated.status).toBe(201)
      const listed = (await call(gw, "GET", "/watchers")).body.watchers.find((w: { id: number }) => w.id === id)
      expect(listed.trigger_config.secret_handle).toBe(rotated.body.handle.handle_id)
      expect((await deliver(gw, id, { secret: fresh })).status).toBe(200)
      expect(await deliver(gw, id)).toMatchObject({ status: 401, body: SIGNATURE })
    })

    it("a delivery accepted by one watcher is a replay (409) at another that shares its secret: a nonce is unique per secret", async () => {
      const a = await createWatcher(gw, "webhook", { secret_handle: handle })
      const b = await createWatcher(gw, "webhook", { secret_handle: handle })
      const timestamp = ms(await now(gw))
      const nonce = randomUUID()
      expect((await deliver(gw, a, { timestamp, nonce })).status).toBe(200)
      expect(await deliver(gw, b, { timestamp, nonce })).toMatchObject({ status: 409, body: REPLAY })
      const firings = (id: number) => call(gw, "GET", `/watchers/${id}/firings`).then((r) => r.body.firings.length)
      expect(await firings(a)).toBe(1)
      expect(await firings(b)).toBe(0)
      // A watcher with another secret is another nonce space: the same nonce, signed with its own secret, fires it.
      const other = await createWatcher(gw, "webhook", { secret_handle: await storeSecret(gw, `${SECRET}-other`) })
      expect((await deliver(gw, other, { timestamp, nonce, secret: `${SECRET}-other` })).status).toBe(200)
    })

    it("50 forged deliveries write no secret resolution and no secret.resolved event; a valid one writes one of each", async () => {
      const forged = await storeSecret(gw)
      const id = await createWatcher(gw, "webhook", { secret_handle: forged })
      const resolutions = () =>
        gw.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM secret_resolutions WHERE handle_id = ${forged}`))
          .then((rows) => Number(rows[0]!.n))
      const resolvedEvents = async () => {
        const res = await gw.fetch("/audit/export/gateway.secrets", { headers: { authorization: `Bearer ${gw.adminToken}` } })
        return (await readJson(res)).events.filter((e: any) => e.action?.type === "secret.resolved" && e.action.handle_id === forged).length
      }
      const [rowsBefore, eventsBefore] = [await resolutions(), await resolvedEvents()]
      for (let i = 0; i < 50; i++) {
        const res = await deliver(gw, id, { set: { "x-svc-webhook-signature": `sha256=${randomBytes(32).toString("hex")}` } })
        expect(res).toMatchObject({ status: 401, body: SIGNATURE })
      }
      expect(await resolutions()).toBe(rowsBefore)
      expect(await resolvedEvents()).toBe(eventsBefore)
      expect((await deliver(gw, id)).status).toBe(200)
      expect(await resolutions()).toBe(rowsBefore + 1)
      expect(await resolvedEvents()).toBe(eventsBefore + 1)
    })

    it("bearer first: no token → 401 unauthorized; operator.read → 403; operator.write → 200", async () => {
      const none = await gw.fetch(`/watchers/${hook}/trigger/webhook`, { method: "POST", body: BODY })
      expect(none.status).toBe(401)
      expect((await readJson(none)).error).toBe("unauthorized")
      const reader = await deliver(gw, hook, { token: await issueToken(gw, ["operator.read"]) })
      expect(reader).toMatchObject({ status: 403, body: { error: "forbidden" } })
      // The forbidden call did not use its nonce up.
      expect((await deliver(gw, hook, { nonce: reader.nonce })).status).toBe(200)
      expect((await deliver(gw, hook, { token: await issueToken(gw, ["operator.write"]) })).status).toBe(200)
    })
  })
}

/**
 * A database that outlives one gateway: file SQLite in a temporary home, or a
 * PostgreSQL schema of its own (dropped at the end).
 */
const restartStores = [
  {
    name: "file SQLite",
    clock: "test" as const,
    open: () => {
      const home = mkdtempSync(join(tmpdir(), "svc-webhook-restart-"))
      return { home, storage: () => storageLayer({ kind: "sqlite", filename: join(home, "gateway.db") }), drop: async () => {} }
    }
  },
  ...(postgresUrl === undefined ? [] : [{
    name: "PostgreSQL",
    clock: "live" as const,
    open: () => {
      const home = mkdtempSync(join(tmpdir(), "svc-webhook-restart-"))
      const schema = `svc_test_${randomBytes(6).toString("hex")}`
      const admin = (statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
        Effect.runPromise(Effect.flatMap(SqlClient.SqlClient, statement).pipe(
          Effect.provide(PgClient.layer({ url: postgresUrl!, maxConnections: 1 }))
        ))
      const created = admin((sql) => sql`CREATE SCHEMA ${sql(schema)}`)
      return {
        home,
        storage: () => Layer.unwrap(Effect.promise(() => created).pipe(Effect.as(storageLayer({ kind: "postgres", url: postgresUrl!, searchPath: schema })))),
        drop: () => created.then(() => admin((sql) => sql`DROP SCHEMA IF EXISTS ${sql(schema)} CASCADE`))
      }
    }
  }])
]

for (const store of restartStores) {
  describe(`a replay after a restart on the same database (${store.name})`, () => {
    it("the nonce accepted before the restart is still a replay (409); a new one fires", async () => {
      const { home, storage, drop } = store.open()
      try {
        const first = await start({ ...store, storage }, { home })
        let id: number
        let nonce: string
        try {
          id = await createWatcher(first, "webhook", { secret_handle: await storeSecret(first) })
          const accepted = await deliver(first, id)
          expect(accepted.status).toBe(200)
          nonce = accepted.nonce
        } finally {
          await first.close()
        }
        const second = await start({ ...store, storage }, { home })
        try {
          if (store.clock === "test") await second.run(TestClock.adjust(10_000))
          expect(await deliver(second, id, { nonce })).toMatchObject({ status: 409, body: REPLAY })
          expect((await deliver(second, id)).status).toBe(200)
        } finally {
          await second.close()
        }
      } finally {
        await drop()
      }
    })
  })
}

for (const database of databases) {
  describe(`a firing starts a run with SVC_AUTOMATION_ENABLED=1 (${database.name})`, () => {
    let gw: TestGateway
    beforeAll(async () => {
      gw = await start(database, { automationEnabled: true, engineApiEnabled: true })
    })
    afterAll(() => gw?.close())

    it("→ 200 {ok, firing_id, run_id}; the run exists, on a hook: key in the cron lane", async () => {
      const id = await createWatcher(gw, "webhook", { secret_handle: await storeSecret(gw), steps: [{ type: "Confirm" }] })
      const res = await deliver(gw, id)
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ ok: true, firing_id: expect.stringMatching(/^firing-/), run_id: expect.any(String) })
      const run = await call(gw, "GET", `/workflow/runs/${res.body.run_id}`)
      expect(run.status).toBe(200)
      expect(run.body.run).toMatchObject({ run_id: res.body.run_id, key: expect.stringMatching(/^hook:[0-9a-f-]{36}$/), lane: "cron" })
      // The replay starts nothing.
      expect(await deliver(gw, id, { nonce: res.nonce })).toMatchObject({ status: 409, body: REPLAY })
      // A watcher with nothing to run is recorded only.
      const bare = await createWatcher(gw, "webhook", { secret_handle: await storeSecret(gw) })
      expect((await deliver(gw, bare)).body).toEqual({ ok: true, firing_id: expect.any(String) })
      // GET /watchers/:id/firings: newest first, with the run and the nonce's digest (never the nonce).
      const second = await deliver(gw, id)
      const listed = await call(gw, "GET", `/watchers/${id}/firings`)
      expect(listed.status).toBe(200)
      const firings = listed.body.firings as ReadonlyArray<{ firing_id: string; created_at: string }>
      expect(firings.map((f) => f.firing_id).sort()).toEqual([second.body.firing_id, res.body.firing_id].sort())
      expect(firings[0]!.created_at >= firings[1]!.created_at).toBe(true)
      expect(firings.find((f) => f.firing_id === res.body.firing_id)).toMatchObject({
        watcher_id: id,
        trigger_type: "webhook",
        status: "enqueued",
        run_id: res.body.run_id,
        nonce_digest: nonceDigest(res.nonce),
        slot: null
      })
      expect((await call(gw, "GET", `/watchers/${id}/firings?limit=1`)).body.firings).toHaveLength(1)
      expect((await call(gw, "GET", `/watchers/${id}/firings?limit=0`)).status).toBe(400)
      expect((await call(gw, "GET", "/watchers/987654/firings")).status).toBe(404)
    })
  })
}

/**
 * docs/automation.md, run as written so it cannot drift: its playbook and
 * policy files become the gateway's home, and its signing recipe and replay
 * blocks run in `bash` with `openssl` and `curl` (skipped where one is
 * missing), against a gateway on the live clock (`date +%s`).
 */
describe("docs/automation.md: the worked example's files and signing recipe", () => {
  const doc = readFileSync(join(import.meta.dirname, "../../docs/automation.md"), "utf8")
  /** The first ```sh block after `marker`. */
  const blockAfter = (marker: string): string => {
    const at = doc.indexOf(marker)
    if (at < 0) throw new Error(`docs/automation.md: no ${marker}`)
    const block = /```sh\n([\s\S]*?)\n```/.exec(doc.slice(at))
    if (block === null) throw new Error(`docs/automation.md: no sh block after ${marker}`)
    return block[1]!
  }
  /** The body of the heredoc that writes `file`. */
  const heredoc = (file: string): string => {
    const match = new RegExp(`cat > ${file.replace(/[.*+?^${}()|[\]\\/~]/g, "\\$&")} <<'YAML'\\n([\\s\\S]*?)\\nYAML\\n`).exec(doc)
    if (match === null) throw new Error(`docs/automation.md: no heredoc for ${file}`)
    return `${match[1]}\n`
  }
  const has = (tool: string) => spawnSync("sh", ["-c", `command -v ${tool}`]).status === 0
  /**
   * Runs `script` in bash without blocking the event loop (the gateway under
   * test answers the script's curl calls from this process), killed after 30 s.
   */
  const bash = (script: string, options: { cwd: string; env: Record<string, string | undefined> }) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      // --norc: bash reads ~/.bashrc when it guesses a remote shell (a socket on stdin).
      const child = spawn("bash", ["--norc", "--noprofile", "-c", script], { ...options, stdio: ["ignore", "pipe", "pipe"], timeout: 30_000 })
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (d) => (stdout += d))
      child.stderr.on("data", (d) => (stderr += d))
      child.on("error", reject)
      child.on("close", (status) => resolve({ status, stdout, stderr }))
    })
  const tools = ["bash", "openssl", "curl", "awk"].every(has)

  it("the documented timestamp, nonce and body are what signWebhook signs", () => {
    const recipe = blockAfter("<!-- signing recipe")
    expect(recipe).toContain("printf '%s' \"$TS.$NONCE.\"; cat body.json")
    expect(recipe).toContain("openssl dgst -sha256 -hmac \"$SECRET\"")
    expect(recipe).toContain("x-svc-webhook-signature: sha256=$SIG")
    expect(recipe).toContain("--data-binary @body.json")
    expect(blockAfter("<!-- replay")).toBe(recipe.split("\n").slice(recipe.split("\n").findIndex((l) => l.startsWith("curl"))).join("\n"))
  })

  it.runIf(tools)("the recipe's openssl line computes signWebhook's signature (fixed vector)", async () => {
    const line = blockAfter("<!-- signing recipe").split("\n").find((l) => l.startsWith("SIG="))!
    const dir = mkdtempSync(join(tmpdir(), "svc-doc-sign-"))
    writeFileSync(join(dir, "body.json"), BODY)
    const out = await bash(`set -euo pipefail; ${line}; printf '%s' "$SIG"`, {
      cwd: dir,
      env: { PATH: process.env.PATH, TS: "1700000000", NONCE: "0b6f6c1e-8d0c-4f7e-9a53-2c1d4f0e9b7a", SECRET: "whsec-example-secret" }
    })
    expect(out.stderr).toBe("")
    expect(`sha256=${out.stdout}`).toBe(signWebhook("whsec-example-secret", "1700000000", "0b6f6c1e-8d0c-4f7e-9a53-2c1d4f0e9b7a", BODY))
    expect(out.stdout).toBe(SIG_S)
  })

  describe.runIf(tools)("end to end", () => {
    let gw: TestGateway
    const secret = randomBytes(32).toString("hex")
    beforeAll(async () => {
      const home = mkdtempSync(join(tmpdir(), "svc-doc-home-"))
      mkdirSync(join(home, "playbooks", "hello"), { recursive: true })
      writeFileSync(join(home, "playbooks", "hello", "playbook.yml"), heredoc("~/.svc/playbooks/hello/playbook.yml"))
      writeFileSync(join(home, "policy.yml"), heredoc("~/.svc/policy.yml"))
      gw = await startGateway({ home, rateLimitMax: 10_000, engineApiEnabled: true, automationEnabled: true })
    })
    afterAll(() => gw?.close())

    it("the playbook loads; the signed call fires it (200 with a run), the same call again is 409", async () => {
      const listed = await call(gw, "GET", "/playbooks")
      expect(listed.body).toMatchObject({ playbooks: [{ id: "hello", step_count: 1 }], errors: [] })
      const id = await createWatcher(gw, "webhook", { secret_handle: await storeSecret(gw, secret), playbook_id: "hello" })
      const script = [
        "set -euo pipefail",
        blockAfter("<!-- signing recipe"),
        "echo",
        blockAfter("<!-- replay"),
        "echo",
        "printf '%s %s %s' \"$TS\" \"$NONCE\" \"$SIG\""
      ].join("\n")
      const out = await bash(script, {
        cwd: mkdtempSync(join(tmpdir(), "svc-doc-call-")),
        env: { PATH: process.env.PATH, GW: gw.url, TOKEN: gw.adminToken, WATCHER: String(id), SECRET: secret }
      })
      expect(out.stderr).toBe("")
      expect(out.status).toBe(0)
      const [fired, replayed, sent] = out.stdout.split("\n")
      expect(JSON.parse(fired!)).toEqual({ ok: true, firing_id: expect.stringMatching(/^firing-/), run_id: expect.stringMatching(/^run-/) })
      expect(JSON.parse(replayed!)).toEqual(REPLAY)
      const [ts, nonce, sig] = sent!.split(" ")
      expect(ts).toMatch(/^\d{10}$/)
      expect(nonce).toMatch(/^[0-9a-f]{32}$/)
      expect(`sha256=${sig}`).toBe(signWebhook(secret, ts!, nonce!, "{\"event\":\"deploy\",\"ref\":\"main\"}"))
      const run = await call(gw, "GET", `/workflow/runs/${JSON.parse(fired!).run_id}`)
      expect(run.body.run).toMatchObject({ key: expect.stringMatching(/^hook:/), lane: "cron", plan_id: "plan-hooked" })
    })
  })
})
