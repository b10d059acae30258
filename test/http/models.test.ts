/**
 * The model catalog over HTTP on a real gateway (gateway-api.md "Model
 * catalog"; reference §7.6; docs/models.md), on SQLite and PostgreSQL (when
 * SVC_TEST_DATABASE_URL is set): with fetching disabled (no network) every
 * route answers from the bundled snapshot and a refresh says fetching is
 * disabled; against a local models.dev the background refresh at start and
 * `POST /models/refresh` serve its catalog; envelopes `{status: "ok",
 * models_dev, …}`; 404 `not_found` for an unknown provider; device tokens:
 * operator.read reads but may not refresh (operator.admin).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { StorageMemoryTest } from "../../src/app/gateway.ts"
import { FETCH_DISABLED } from "../../services/models/Models.ts"
import { postgres } from "../support/databases.ts"
import { eventually } from "../support/eventually.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { acmeCatalog, type FakeModelsDev, startFakeModelsDev } from "../services/models/support.ts"

const databases = [
  { name: "sqlite", storage: () => StorageMemoryTest },
  ...(postgres === undefined ? [] : [{ name: "postgresql", storage: () => postgres!.make() }])
]

const get = (gw: TestGateway, path: string, token = gw.adminToken) => gw.fetch(path, { headers: { authorization: `Bearer ${token}` } })
const getJson = async (gw: TestGateway, path: string, token = gw.adminToken) => {
  const res = await get(gw, path, token)
  return { status: res.status, body: await readJson(res) }
}
const refresh = async (gw: TestGateway, token = gw.adminToken) => {
  const res = await postJson(gw, "/models/refresh", "", token)
  return { status: res.status, body: await readJson(res) }
}
const issue = async (gw: TestGateway, scopes: ReadonlyArray<string>) => {
  const device_id = `dev-${Math.random().toString(36).slice(2)}`
  const res = await postJson(gw, "/auth/device-tokens/issue", { device_id, role: "client", scopes }, gw.adminToken)
  expect(res.status).toBe(201)
  return ((await readJson(res)) as { token: string }).token
}

for (const database of databases) {
  describe(`the model catalog over HTTP on ${database.name}, offline`, () => {
    let gw: TestGateway
    beforeAll(async () => {
      gw = await startGateway({ modelsDevUrl: "http://127.0.0.1:9", modelsDevDisableFetch: true }, database.storage())
    })
    afterAll(() => gw.close())

    it("answers every route from the bundled snapshot", async () => {
      const status = await getJson(gw, "/models/status")
      expect(status.status).toBe(200)
      expect(status.body).toMatchObject({
        status: "ok",
        models_dev: { source: "bundled", fetched_at: null, updated_at: null, etag: null, last_error: null, provider_count: 3 }
      })
      expect(status.body.models_dev.sha256).toMatch(/^[0-9a-f]{64}$/)

      const providers = await getJson(gw, "/models/providers")
      expect(providers.status).toBe(200)
      expect(providers.body.models_dev).toEqual(status.body.models_dev)
      expect(providers.body.providers.map((p: { id: string }) => p.id)).toEqual(["anthropic", "builtin", "openai"])
      expect(providers.body.providers[2]).toEqual({
        id: "openai",
        name: "OpenAI",
        npm: "@ai-sdk/openai",
        api: null,
        env: ["OPENAI_API_KEY"],
        doc: "https://platform.openai.com/docs/models",
        model_count: 7
      })

      const openai = await getJson(gw, "/models/providers/openai")
      expect(openai.status).toBe(200)
      expect(openai.body.provider).toMatchObject({ id: "openai", name: "OpenAI", env: ["OPENAI_API_KEY"] })
      expect(openai.body.provider.models["gpt-4.1-mini"]).toMatchObject({ cost: { input: 0.4, output: 1.6 }, limit: { context: 1047576 } })

      const builtin = await getJson(gw, "/models/providers/builtin/models")
      expect(builtin.status).toBe(200)
      expect(builtin.body.provider).toMatchObject({ id: "builtin", model_count: 2, api: null })
      expect(builtin.body.models.map((m: { id: string; cost: unknown }) => [m.id, m.cost])).toEqual([
        ["echo", { input: 0, output: 0 }],
        ["scripted", { input: 0, output: 0 }]
      ])

      for (const path of ["/models/providers/nope", "/models/providers/nope/models", "/models/providers/constructor"]) {
        const missing = await getJson(gw, path)
        expect(missing, path).toMatchObject({ status: 404, body: { error: "not_found" } })
      }
      expect((await getJson(gw, "/models/providers/nope")).body.message).toBe("provider 'nope' not found")
    })

    it("says a refresh is disabled, and keeps refresh to operator.admin", async () => {
      const refreshed = await refresh(gw)
      expect(refreshed).toMatchObject({ status: 200, body: { status: "ok", models_dev: { source: "bundled", last_error: FETCH_DISABLED } } })

      const reader = await issue(gw, ["operator.read"])
      expect((await getJson(gw, "/models/status", reader)).status).toBe(200)
      expect((await getJson(gw, "/models/providers/openai/models", reader)).status).toBe(200)
      expect(await refresh(gw, reader)).toMatchObject({ status: 403, body: { error: "forbidden" } })
      const writer = await issue(gw, ["operator.write"])
      expect((await refresh(gw, writer)).status).toBe(403)
      const admin = await issue(gw, ["operator.admin"])
      expect((await refresh(gw, admin)).status).toBe(200)
    })
  })

  describe(`the model catalog over HTTP on ${database.name}, against a local models.dev`, () => {
    let gw: TestGateway
    let fake: FakeModelsDev
    beforeAll(async () => {
      fake = await startFakeModelsDev()
      fake.answer = { status: 200, body: acmeCatalog(), etag: "\"v1\"", conditional: true }
      gw = await startGateway({ modelsDevUrl: fake.url, modelsDevDisableFetch: false }, database.storage())
    })
    afterAll(async () => {
      await gw.close()
      await fake.close()
    })

    it("refreshes in the background at start, then on POST /models/refresh (304)", async () => {
      await eventually(async () => (await getJson(gw, "/models/status")).body.models_dev.source === "remote", "the background refresh")
      const providers = await getJson(gw, "/models/providers")
      expect(providers.body.providers.map((p: { id: string }) => p.id)).toEqual(["acme", "builtin"])
      expect(providers.body.providers[0]).toMatchObject({ npm: "@ai-sdk/openai-compatible", api: "https://api.acme.example/v1", model_count: 2 })

      // (A refresh asked for while the start-up one is still finishing joins it: ask until a second request is made.)
      let refreshed = await refresh(gw)
      await eventually(async () => fake.requests.length === 2 || ((refreshed = await refresh(gw)), fake.requests.length === 2), "a second fetch")
      expect(refreshed.status).toBe(200)
      expect(refreshed.body.models_dev).toMatchObject({ source: "remote", etag: "\"v1\"", provider_count: 2, model_count: 4, last_error: null })
      expect(fake.requests).toEqual([undefined, "\"v1\""])

      fake.answer = { status: 503, body: "down" }
      const failed = await refresh(gw)
      expect(failed.body.models_dev).toMatchObject({ source: "cache", provider_count: 2, last_error: `${fake.url}/api.json answered status 503` })
      expect((await getJson(gw, "/models/providers/acme/models")).body.models.map((m: { id: string }) => m.id)).toEqual(["rocket-1", "rocket-mini"])
      expect((await getJson(gw, "/models/providers/openai")).status).toBe(404)
    })
  })
}
