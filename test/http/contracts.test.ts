/**
 * The JSON Schema catalog over HTTP (gateway-api.md "Runtime and
 * diagnostics"; docs/operations.md "Contracts"): the catalog's shape, every
 * listed file served as generated, 404 for unknown, unsafe or non-.json
 * names, operator.read for device tokens, generation once (memoised), and
 * 500 `contracts_unavailable` when generation fails. No storage is involved.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Layer, Result } from "effect"
import { TestClock } from "effect/testing"
import { GATEWAY_VERSION } from "../../layers/config.ts"
import { makeContractCatalog } from "../../src/app/routes/catalogSchemas.ts"
import { ContractCatalogGenerator } from "../../src/app/routes/catalog.ts"
import { postJson, readJson, startGateway, type StructuredLog, type TestGateway } from "../support/gateway.ts"

const get = (gw: TestGateway, path: string, token: string | null = gw.adminToken) =>
  gw.fetch(path, token === null ? {} : { headers: { authorization: `Bearer ${token}` } })

describe("GET /contracts/jsonschema/*", () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startGateway({}, undefined, { clock: "test" })
  })
  afterAll(() => gw.close())

  it("catalog.json lists every document; each listed file is served as generated", async () => {
    await gw.run(TestClock.adjust("90 seconds"))
    const res = await get(gw, "/contracts/jsonschema/catalog.json")
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toContain("application/json")
    const catalog = await readJson(res)
    expect(catalog).toMatchObject({
      format: "svc.contracts.jsonschema.catalog.v1",
      generated_at: "1970-01-01T00:01:30.000Z",
      package: { name: "svc-gateway", version: GATEWAY_VERSION }
    })
    const expected = makeContractCatalog({ version: GATEWAY_VERSION, generatedAtMs: 90_000 })
    if (Result.isFailure(expected)) throw new Error(expected.failure)
    expect(catalog).toEqual(expected.success.catalog)
    for (const entry of catalog.schemas) {
      const file = await get(gw, `/contracts/jsonschema/${entry.file}`)
      expect([entry.file, file.status]).toEqual([entry.file, 200])
      expect(await readJson(file)).toEqual(expected.success.files.get(entry.file))
    }
    const plan = await readJson(await get(gw, "/contracts/jsonschema/PlanRequest.json"))
    expect(plan).toMatchObject({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $id: `https://schemas.svc-gateway.dev/${GATEWAY_VERSION}/PlanRequest.json`,
      title: "PlanRequest",
      type: "object",
      required: ["request_id", "trigger"]
    })
  })

  it("is generated once: generated_at does not move with the clock", async () => {
    const first = (await readJson(await get(gw, "/contracts/jsonschema/catalog.json"))).generated_at
    await gw.run(TestClock.adjust("2 minutes"))
    expect((await readJson(await get(gw, "/contracts/jsonschema/catalog.json"))).generated_at).toBe(first)
  })

  it("404 not_found for unknown, unsafe and non-.json names", async () => {
    for (const name of [
      "Nope.json",
      "..%2Fpackage.json",
      "..%2F..%2Fpackage.json",
      "%2E%2E",
      "..",
      "PlanRequest",
      "PlanRequest.txt",
      "PlanRequest.json.bak",
      "Plan%20Request.json",
      "%2Fetc%2Fpasswd.json",
      "..%5CPlanRequest.json"
    ]) {
      const res = await get(gw, `/contracts/jsonschema/${name}`)
      expect([name, res.status]).toEqual([name, 404])
      expect((await readJson(res)).error).toBe("not_found")
    }
    for (const path of ["/contracts/jsonschema/a/PlanRequest.json", "/contracts/jsonschema/../package.json", "/contracts/jsonschema/"]) {
      expect([path, (await get(gw, path)).status]).toEqual([path, 404])
    }
    // An encoded dot still names the catalog, never a file beside it.
    expect((await readJson(await get(gw, "/contracts/jsonschema/catalog%2Ejson"))).format).toBe("svc.contracts.jsonschema.catalog.v1")
  })

  it("device tokens need operator.read (403 otherwise); no token → 401", async () => {
    const issue = async (scopes: ReadonlyArray<string>) =>
      (await readJson(await postJson(gw, "/auth/device-tokens/issue", { device_id: `dev-${scopes.join("-") || "none"}`, role: "client", scopes }, gw.adminToken)))
        .token as string
    const reader = await issue(["operator.read"])
    const writer = await issue(["operator.write", "operator.admin"])
    for (const path of ["/contracts/jsonschema/catalog.json", "/contracts/jsonschema/PlanRequest.json"]) {
      expect((await get(gw, path, reader)).status).toBe(200)
      const denied = await get(gw, path, writer)
      expect(denied.status).toBe(403)
      expect((await readJson(denied)).error).toBe("forbidden")
      expect((await get(gw, path, null)).status).toBe(401)
    }
  })
})

describe("when the documents cannot be generated", () => {
  const logs: Array<StructuredLog> = []
  let gw: TestGateway
  let calls = 0
  beforeAll(async () => {
    gw = await startGateway({}, undefined, {
      logs,
      // A reference provides nothing new to the graph (`Layer<never>`); widen it to the option's type.
      override: Layer.succeed(ContractCatalogGenerator, () => {
        calls++
        return Result.fail("Broken: two different schemas carry this identifier")
      }) as Layer.Layer<any, never, never>
    })
  })
  afterAll(() => gw.close())

  it("answers 500 contracts_unavailable (files too, after the name check), generating and logging once", async () => {
    for (const path of ["/contracts/jsonschema/catalog.json", "/contracts/jsonschema/PlanRequest.json", "/contracts/jsonschema/catalog.json"]) {
      const res = await get(gw, path)
      expect(res.status).toBe(500)
      const body = await readJson(res)
      expect(body.error).toBe("contracts_unavailable")
      expect(body.message).toContain("Broken: two different schemas carry this identifier")
    }
    expect((await get(gw, "/contracts/jsonschema/..%2Fpackage.json")).status).toBe(404)
    expect(calls).toBe(1)
    expect(logs.filter((entry) => JSON.stringify(entry.message).includes("JSON Schema catalog unavailable"))).toHaveLength(1)
  })
})
