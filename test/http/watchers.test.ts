/**
 * Watcher CRUD over HTTP on a real gateway (issue 13 §2; gateway-api.md
 * "Watchers"), on SQLite and on PostgreSQL when SVC_TEST_DATABASE_URL is
 * set: 201 `{id, plan_id, trigger_type}`; 400 naming the field for each
 * trigger type's config (a webhook's secret handle must exist: one made
 * with `POST /secrets` passes); the list holds active watchers with their
 * stored config; PATCH deactivates and reactivates, DELETE removes for good;
 * ids that are not positive integers are 400, unknown ones 404; device
 * tokens need operator.read to list and operator.write for the rest.
 * Firing is tested in watchers-firing.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { StorageMemoryTest } from "../../src/app/gateway.ts"
import { postgres } from "../support/databases.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"

const databases = [
  { name: "sqlite", storage: () => StorageMemoryTest },
  ...(postgres === undefined ? [] : [{ name: "postgresql", storage: () => postgres!.make() }])
]

for (const database of databases) describe(`watchers CRUD (${database.name})`, () => {
  let gw: TestGateway

  beforeAll(async () => {
    gw = await startGateway({ rateLimitMax: 10_000 }, database.storage())
  })
  afterAll(() => gw?.close())

  const call = async (method: string, path: string, body?: unknown, token = gw.adminToken) => {
    const res = await gw.fetch(path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) })
    })
    return { status: res.status, body: await readJson(res) }
  }
  const create = (body: unknown, token?: string) => call("POST", "/watchers", body, token)
  const list = async () => (await call("GET", "/watchers")).body.watchers as Array<any>
  const expectInvalid = async (body: unknown, message: string | RegExp) => {
    const res = await create(body)
    expect(res.status, JSON.stringify(body)).toBe(400)
    expect(res.body.error).toBe("invalid_request")
    if (typeof message === "string") expect(res.body.message).toBe(message)
    else expect(res.body.message).toMatch(message)
  }

  it("creates watchers of each trigger type: 201 {id, plan_id, trigger_type}", async () => {
    const periodic = await create({ plan_id: "plan-crud", trigger_type: "periodic", trigger_config: { intervalMs: 60_000, note: "dropped" } })
    expect(periodic.status).toBe(201)
    expect(periodic.body).toEqual({ id: expect.any(Number), plan_id: "plan-crud", trigger_type: "periodic" })

    const done = await create({ plan_id: "plan-crud", trigger_type: "plan_complete" })
    expect(done.status).toBe(201)
    expect(done.body).toEqual({ id: periodic.body.id + 1, plan_id: "plan-crud", trigger_type: "plan_complete" })

    const secret = await postJson(gw, "/secrets", { scope: "webhook-key", value: "s3cret" }, gw.adminToken)
    expect(secret.status).toBe(201)
    const handle = (await readJson(secret)).handle.handle_id as string
    const hook = await create({
      plan_id: "plan-crud",
      trigger_type: "webhook",
      trigger_config: { secret_handle: handle, max_skew_ms: 60_000, steps: [{ type: "Confirm" }], lane: "main" }
    })
    expect(hook.status).toBe(201)

    const listed = await list()
    const mine = listed.filter((w) => [periodic.body.id, done.body.id, hook.body.id].includes(w.id))
    expect(mine).toEqual([
      {
        id: periodic.body.id,
        plan_id: "plan-crud",
        trigger_type: "periodic",
        trigger_config: { interval_ms: 60_000 },
        active: true,
        created_at: expect.any(String),
        updated_at: expect.any(String)
      },
      { id: done.body.id, plan_id: "plan-crud", trigger_type: "plan_complete", active: true, created_at: expect.any(String), updated_at: expect.any(String) },
      {
        id: hook.body.id,
        plan_id: "plan-crud",
        trigger_type: "webhook",
        trigger_config: {
          secret_handle: handle,
          max_skew_ms: 60_000,
          steps: [{ type: "Confirm", args: {}, max_attempts: 3, timeout_ms: 60_000 }],
          lane: "main"
        },
        active: true,
        created_at: expect.any(String),
        updated_at: expect.any(String)
      }
    ])
  })

  it("answers 400 naming the field for a bad body or a config that does not fit its trigger type", async () => {
    await expectInvalid({ trigger_type: "periodic" }, "plan_id: missing required field")
    await expectInvalid({ plan_id: "", trigger_type: "periodic" }, /^plan_id: /)
    await expectInvalid({ plan_id: "p".repeat(129), trigger_type: "periodic" }, /^plan_id: /)
    await expectInvalid({ plan_id: "p", trigger_type: "hourly" }, /^trigger_type: expected a trigger type: one of periodic, plan_complete, webhook/)
    await expectInvalid({ plan_id: "p", trigger_type: "plan_complete", trigger_config: [1] }, /^trigger_config: /)
    await expectInvalid({ plan_id: "p", trigger_type: "plan_complete", trigger_config: "every hour" }, /^trigger_config: /)
    await expectInvalid("{not json", /^malformed JSON/)
    // periodic
    await expectInvalid({ plan_id: "p", trigger_type: "periodic" }, /^trigger_config\.interval_ms: missing required field/)
    await expectInvalid({ plan_id: "p", trigger_type: "periodic", trigger_config: { interval_ms: 999 } }, /^trigger_config\.interval_ms: expected an integer of at least 1000/)
    await expectInvalid({ plan_id: "p", trigger_type: "periodic", trigger_config: { interval_ms: "60000" } }, /^trigger_config\.interval_ms: /)
    // webhook
    await expectInvalid({ plan_id: "p", trigger_type: "webhook" }, "trigger_config.secret_handle: missing required field")
    await expectInvalid({ plan_id: "p", trigger_type: "webhook", trigger_config: { secret_handle: "sec_nope" } }, "trigger_config.secret_handle: no secret handle sec_nope")
    await expectInvalid({ plan_id: "p", trigger_type: "webhook", trigger_config: { secret_handle: "sec_nope", max_skew_ms: 1_800_001 } }, /^trigger_config\.max_skew_ms: /)
    // what to run, any type
    await expectInvalid({ plan_id: "p", trigger_type: "plan_complete", trigger_config: { steps: [] } }, /^trigger_config\.steps: expected at least one step/)
    await expectInvalid({ plan_id: "p", trigger_type: "plan_complete", trigger_config: { steps: [{ type: "Teleport" }] } }, /^trigger_config\.steps\[0\]\.type: /)
    await expectInvalid({ plan_id: "p", trigger_type: "plan_complete", trigger_config: { key: "main" } }, /^trigger_config\.key: /)
    await expectInvalid({ plan_id: "p", trigger_type: "plan_complete", trigger_config: { lane: "fast" } }, /^trigger_config\.lane: /)
    await expectInvalid(
      { plan_id: "p", trigger_type: "plan_complete", trigger_config: { playbook_id: "daily", steps: [{ type: "Confirm" }] } },
      "trigger_config: playbook_id and steps are exclusive (give one of them)"
    )
    expect((await list()).some((w) => w.plan_id === "p")).toBe(false)
  })

  it("PATCH deactivates and reactivates; DELETE removes for good; bad ids 400, unknown 404", async () => {
    const { body: created } = await create({ plan_id: "plan-patch", trigger_type: "plan_complete" })
    const id = created.id as number
    const listedIds = async () => (await list()).map((w) => w.id)

    expect(await call("PATCH", `/watchers/${id}`, { active: false })).toEqual({ status: 200, body: { id, updated: true } })
    expect(await listedIds()).not.toContain(id)
    expect(await call("PATCH", `/watchers/${id}`, {})).toEqual({ status: 200, body: { id, updated: true } })
    expect(await listedIds()).not.toContain(id)
    expect(await call("PATCH", `/watchers/${id}`, { active: true })).toEqual({ status: 200, body: { id, updated: true } })
    expect(await listedIds()).toContain(id)
    const wrongType = await call("PATCH", `/watchers/${id}`, { active: "no" })
    expect(wrongType.status).toBe(400)
    expect(wrongType.body.message).toMatch(/^active: /)

    for (const bad of ["abc", "0", "-3", "1.5", "01"]) {
      for (const [method, body] of [["PATCH", { active: false }], ["DELETE", undefined]] as const) {
        expect(await call(method, `/watchers/${bad}`, body), `${method} ${bad}`).toEqual({
          status: 400,
          body: { error: "invalid_request", message: "invalid watcher id" }
        })
      }
    }
    expect((await call("PATCH", "/watchers/999999", { active: false })).status).toBe(404)
    expect((await call("PATCH", "/watchers/999999", {})).status).toBe(404)
    expect((await call("DELETE", "/watchers/999999")).body.error).toBe("not_found")

    expect(await call("DELETE", `/watchers/${id}`)).toEqual({ status: 200, body: { id, deleted: true } })
    expect(await listedIds()).not.toContain(id)
    expect((await call("DELETE", `/watchers/${id}`)).status).toBe(404)
    expect((await call("PATCH", `/watchers/${id}`, { active: true })).status).toBe(404)
    expect((await call("PATCH", `/watchers/${id}`, {})).status).toBe(404)
    expect(await listedIds()).not.toContain(id)
  })

  it("GET /watchers?state= lists active (default), inactive (paused) or all watchers that are not deleted", async () => {
    const ids = async (query: string) => ((await call("GET", `/watchers${query}`)).body.watchers as Array<any>).map((w) => [w.id, w.active])
    const paused = (await create({ plan_id: "plan-state", trigger_type: "plan_complete" })).body.id as number
    const running = (await create({ plan_id: "plan-state", trigger_type: "plan_complete" })).body.id as number
    const gone = (await create({ plan_id: "plan-state", trigger_type: "plan_complete" })).body.id as number
    expect((await call("PATCH", `/watchers/${paused}`, { active: false })).status).toBe(200)
    expect((await call("DELETE", `/watchers/${gone}`)).status).toBe(200)

    for (const query of ["", "?state=active"]) {
      expect(await ids(query), query).toContainEqual([running, true])
      expect((await ids(query)).map(([id]) => id), query).not.toContain(paused)
    }
    expect(await ids("?state=inactive")).toContainEqual([paused, false])
    expect((await ids("?state=inactive")).every(([, active]) => active === false)).toBe(true)
    const all = await ids("?state=all")
    expect(all).toEqual(expect.arrayContaining([[paused, false], [running, true]]))
    expect(all.map(([id]) => id)).not.toContain(gone)
    expect(all.map(([id]) => id)).toEqual([...all.map(([id]) => id)].sort((a, b) => a - b))

    const bad = await call("GET", "/watchers?state=paused")
    expect(bad.status).toBe(400)
    expect(bad.body.message).toMatch(/^state: expected one of active, inactive, all/)
  })

  it("the webhook route is served: a bad id is 400, an unknown watcher 404", async () => {
    const post = (path: string) => gw.fetch(path, { method: "POST", headers: { authorization: `Bearer ${gw.adminToken}` }, body: "{}" })
    expect((await post("/watchers/abc/trigger/webhook")).status).toBe(400)
    const unknown = await post("/watchers/999999/trigger/webhook")
    expect(unknown.status).toBe(404)
    expect((await readJson(unknown)).error).toBe("not_found")
  })

  it("device tokens: operator.read lists, operator.write creates, updates and deletes", async () => {
    const issue = async (scopes: ReadonlyArray<string>) =>
      (await readJson(await postJson(gw, "/auth/device-tokens/issue", {
        device_id: `dev-${Math.random().toString(36).slice(2)}`,
        role: "client",
        scopes
      }, gw.adminToken))).token as string
    const reader = await issue(["operator.read"])
    const writer = await issue(["operator.write"])
    const body = { plan_id: "plan-scopes", trigger_type: "plan_complete" }

    expect((await call("GET", "/watchers", undefined, reader)).status).toBe(200)
    expect((await call("POST", "/watchers", body, reader)).status).toBe(403)
    expect((await call("PATCH", "/watchers/1", { active: true }, reader)).status).toBe(403)
    expect((await call("DELETE", "/watchers/1", undefined, reader)).status).toBe(403)

    expect((await call("GET", "/watchers", undefined, writer)).status).toBe(403)
    const created = await call("POST", "/watchers", body, writer)
    expect(created.status).toBe(201)
    expect((await call("PATCH", `/watchers/${created.body.id}`, { active: false }, writer)).status).toBe(200)
    expect((await call("DELETE", `/watchers/${created.body.id}`, undefined, writer)).status).toBe(200)
  })
})
