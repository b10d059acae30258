/**
 * The JSON Schema catalog is one source of truth with the gateway's
 * validation (issue 14 §1, §5): (a) every request schema of the HttpApi
 * (params, query, JSON body) and of the WebSocket table is in the catalog,
 * found by walking the declarations; (b) each document, run by a real JSON
 * Schema validator (ajv, draft 2020-12), accepts and rejects generated and
 * mutated samples exactly as the gateway's decoder does, except where the
 * document itself marks a check it cannot express (`x-decoder-only`); those
 * marks are listed below with the reason they cannot be JSON Schema.
 */
import { Result, type Schema, SchemaIssue, SchemaParser } from "effect"
import { HttpApi, type HttpApiGroup } from "effect/http-api"
import { Ajv2020 } from "ajv/dist/2020.js"
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { GATEWAY_VERSION } from "../../layers/config.ts"
import { type ContractCatalog, makeContractCatalog } from "../../src/app/routes/catalogSchemas.ts"
import { DECODER_ONLY_KEYWORD, type DecoderOnlyCheck, JSON_SCHEMA_DIALECT } from "../../src/contracts/jsonSchema.ts"
import { GatewayApi } from "../../src/app/contracts.ts"
import { WsMessages } from "../../src/app/contracts.ts"
import { makeDecoder } from "../../services/shared/decode.ts"
import { generatedSamples, handWrittenSamples, mutations } from "./samples.ts"

/**
 * Checks without a JSON Schema form (reason `custom-check` or
 * `custom-decoder`), by the text the document shows. Keep this list short:
 * prefer a check with a JSON Schema form (`Schema.isPattern`, `isMaxLength`…).
 */
const KNOWN_GAPS: ReadonlyArray<readonly [RegExp, string]> = [
  [/^JSON nested at most \d+ deep, at most \d+ bytes$/, "depth and serialized size of free-form JSON (services/shared/json.ts `bounded`)"],
  [/^a key \(agent:<id>:…, cron:<jobId>, hook:<uuid> or node:<nodeId>\)$/, "the workflow key grammar is a function (services/workflow/runs/keys.ts)"],
  [/^ttl_seconds not combined with persistent: true$/, "a rule across two fields of DeviceTokenIssueRequest"],
  [/^a request_id that is not blank$/, "PlanRequest.request_id must not be whitespace only"],
  [
    /^a plan id not starting with gateway\.$/,
    "workflow plan ids may not take the audit's reserved `gateway.` prefix (a `Schema.isPattern(/^(?!gateway\\.)/)` would export it)"
  ],
  [/^an ISO 8601 date-time with a time zone/, "a date-time is parsed and its year range checked (policy override expires_at)"],
  [
    /^entries whose keys are checked \(a custom check\)$/,
    "RoutingConfig is strict: any key but the declared ones is an error (a record over the other keys)"
  ],
  [/^a custom check$/, "RoutingConfig thread ids are checked on the whole map so that the bad key is named"]
]

/**
 * Checks that run on the decoded side of a transformation (a query or path
 * number parsed from its string, a trimmed string): the document describes the
 * wire form (`{"type": "string"}`) and cannot state what must hold after
 * parsing or trimming. Accepted as a category, not one by one.
 */
const AFTER_DECODING_REASON = "checks on a value parsed or trimmed from its wire form"

const catalog: ContractCatalog = (() => {
  const result = makeContractCatalog({ version: GATEWAY_VERSION, generatedAtMs: 0 })
  if (Result.isFailure(result)) throw new Error(result.failure)
  return result.success
})()

const documentOf = (name: string) => catalog.files.get(`${name}.json`)!
const sourceOf = (schema: Schema.Top) => catalog.sources.find((source) => source.schemas.includes(schema))

/** Every schema the gateway decodes requests with, found by walking the declarations. */
const requestSchemas = (): ReadonlyArray<{ readonly use: string; readonly schema: Schema.Top }> => {
  const out: Array<{ use: string; schema: Schema.Top }> = []
  HttpApi.reflect(GatewayApi as unknown as HttpApi.HttpApi<string, HttpApiGroup.Constraint>, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      const route = `${endpoint.method} ${endpoint.path}`
      if (endpoint.params !== undefined) out.push({ use: `${route} params`, schema: endpoint.params })
      if (endpoint.query !== undefined) out.push({ use: `${route} query`, schema: endpoint.query })
      for (const [contentType, entry] of endpoint.payload) {
        if (contentType === "application/json") out.push({ use: `${route} body`, schema: entry.schemas[0] })
      }
    }
  })
  for (const message of WsMessages) out.push({ use: `ws ${message.type}`, schema: message.payload })
  return out
}

const ajv = new Ajv2020({ strict: true, allErrors: false })
ajv.addKeyword(DECODER_ONLY_KEYWORD)

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/** The instance paths of every issue the decoder reports for `input`. */
const issuePaths = (schema: Schema.Top, input: unknown): ReadonlyArray<ReadonlyArray<string>> => {
  const result = SchemaParser.decodeUnknownResult(schema as unknown as Schema.ConstraintDecoder<unknown>, { errors: "all" })(input)
  if (Result.isSuccess(result)) return []
  return formatter(result.failure).issues.map((issue) =>
    (issue.path ?? []).map((segment) => String(typeof segment === "object" ? segment.key : segment))
  )
}

/** A document without constraints (`Schema.Unknown`, e.g. the `ping` payload): every sample is valid. */
const acceptsAnything = (document: Record<string, unknown>): boolean =>
  Object.keys(document).every((key) => ["$schema", "$id", "title", "description", DECODER_ONLY_KEYWORD].includes(key))

const markSegments = (mark: DecoderOnlyCheck): ReadonlyArray<string> =>
  mark.path === "" ? [] : mark.path.slice(1).split("/").map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"))

const covers = (mark: DecoderOnlyCheck, path: ReadonlyArray<string>): boolean => {
  const segments = markSegments(mark)
  return segments.length <= path.length && segments.every((segment, i) => segment === "*" || segment === path[i])
}

describe("JSON Schema catalog", () => {
  it("is generated for the package, sorted, one document per name", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"))
    expect(catalog.catalog).toMatchObject({
      format: "svc.contracts.jsonschema.catalog.v1",
      generated_at: "1970-01-01T00:00:00.000Z",
      package: { name: pkg.name, version: pkg.version }
    })
    const names = catalog.catalog.schemas.map((entry) => entry.name)
    expect(names).toEqual([...names].sort())
    expect(new Set(names).size).toBe(names.length)
    for (const entry of catalog.catalog.schemas) {
      expect(entry.file).toBe(`${entry.name}.json`)
      expect(entry.file).toMatch(/^[A-Za-z0-9_.-]+\.json$/)
      expect(entry.$id).toBe(`https://schemas.svc-gateway.dev/${pkg.version}/${entry.name}.json`)
      expect(documentOf(entry.name)).toMatchObject({ $schema: JSON_SCHEMA_DIALECT, $id: entry.$id, title: entry.name })
    }
    // The main records are there under their identifiers.
    expect(names).toEqual(expect.arrayContaining([
      "ActionPrimitive", "Approval", "PlanRequest", "PlanResponse", "PolicyCheckRequest", "PolicyDecision",
      "WorkflowRunRequest", "WorkflowRunDetail", "Pairing", "WsRequestEnvelope", "WsConnectInitRequest"
    ]))
  })

  it("(a) holds every request schema of the HttpApi and of the WebSocket table", () => {
    const schemas = requestSchemas()
    expect(schemas.length).toBeGreaterThan(40)
    for (const { schema, use } of schemas) {
      const source = sourceOf(schema)
      expect(source, use).toBeDefined()
      expect(source!.role, use).toBe("request")
      expect(catalog.files.has(`${source!.name}.json`), use).toBe(true)
    }
    expect(sourceOf(WsMessages.find((m) => m.type === "workflow.run")!.payload)!.name).toBe("WorkflowRunRequest")
    expect(sourceOf(WsMessages.find((m) => m.type === "ping")!.payload)!.name).toBe("WsPingRequest")
  })

  it("compiles every document with a draft 2020-12 validator in strict mode", () => {
    for (const [file, document] of catalog.files) expect(() => ajv.compile(document), file).not.toThrow()
  })

  it("(b) documents accept and reject samples as the gateway's decoders do", () => {
    const problems: Array<string> = []
    let checked = 0
    let coveredDisagreements = 0
    // Every decoder: the walked declarations and the catalog's other requests (WebSocket envelopes, handshake,
    // results of gateway-initiated requests).
    const decoders = [...requestSchemas()]
    for (const source of catalog.sources) {
      if (source.role !== "request") continue
      for (const schema of source.schemas) {
        if (!decoders.some((entry) => entry.schema === schema)) decoders.push({ use: source.usedBy.join(", "), schema })
      }
    }
    for (const { schema, use } of decoders) {
      const name = sourceOf(schema)!.name
      const document = documentOf(name)
      const marks = (document[DECODER_ONLY_KEYWORD] ?? []) as ReadonlyArray<DecoderOnlyCheck>
      const validate = ajv.getSchema(document.$id as string) ?? ajv.compile(document)
      const decode = makeDecoder(schema as unknown as Schema.ConstraintDecoder<unknown>)
      const valid = [...(handWrittenSamples[name] ?? []), ...generatedSamples(schema, 8)]
      const accepted = valid.filter((sample) => Result.isSuccess(decode(sample)))
      if (accepted.length === 0) problems.push(`${name} (${use}): no valid sample (add one to handWrittenSamples)`)
      let rejected = 0
      for (const input of [...valid, ...valid.flatMap((sample) => mutations(sample))]) {
        checked++
        const byDocument = validate(input) as boolean
        const byGateway = Result.isSuccess(decode(input))
        if (!byGateway) rejected++
        if (byDocument === byGateway) continue
        const paths = byGateway ? [] : issuePaths(schema, input)
        if (!byGateway && paths.length > 0 && paths.every((path) => marks.some((mark) => covers(mark, path)))) {
          coveredDisagreements++
          continue
        }
        problems.push(
          `${name} (${use}): document ${byDocument ? "accepts" : "rejects"}, gateway ${byGateway ? "accepts" : "rejects"} ` +
            `${JSON.stringify(input).slice(0, 200)} ${JSON.stringify(validate.errors?.[0] ?? paths)}`
        )
      }
      if (rejected === 0 && !acceptsAnything(document)) problems.push(`${name} (${use}): no sample was rejected`)
    }
    expect(problems.slice(0, 10)).toEqual([])
    expect(checked).toBeGreaterThan(10_000)
    // The marks are real: some mutations are rejected only by the gateway, each under a mark.
    expect(coveredDisagreements).toBeGreaterThan(0)
  })

  it("marks only the known gaps (and every known gap still exists)", () => {
    const used = new Set<number>()
    const unknown: Array<string> = []
    let afterDecoding = 0
    for (const [file, document] of catalog.files) {
      for (const mark of (document[DECODER_ONLY_KEYWORD] ?? []) as ReadonlyArray<DecoderOnlyCheck>) {
        if (mark.reason === "after-decoding") {
          afterDecoding++
          continue
        }
        const index = KNOWN_GAPS.findIndex(([pattern]) => pattern.test(mark.check))
        if (index === -1) unknown.push(`${file} ${mark.path}: ${mark.check} (${mark.reason})`)
        else used.add(index)
      }
    }
    expect(unknown).toEqual([])
    expect(KNOWN_GAPS.filter((_, i) => !used.has(i)).map(([, reason]) => reason)).toEqual([])
    expect(afterDecoding, AFTER_DECODING_REASON).toBeGreaterThan(0)
  })

  it("describes the encoded form: query numbers are strings, optional keys are not nullable", () => {
    const query = documentOf("WorkflowListQuery") as any
    expect(query.properties.limit).toEqual({ type: "string" })
    expect(query[DECODER_ONLY_KEYWORD]).toEqual(expect.arrayContaining([
      expect.objectContaining({ path: "/limit", reason: "after-decoding" })
    ]))
    const plan = documentOf("PlanRequest") as any
    expect(plan.required).toEqual(["request_id", "trigger"])
    expect(plan.properties.locale).toEqual({ type: "string", maxLength: 64 })
    // No number anywhere accepts the JSON codec's "NaN" / "Infinity" strings: the gateway does not.
    for (const [, document] of catalog.files) expect(JSON.stringify(document)).not.toContain("\"-Infinity\"")
  })
})
