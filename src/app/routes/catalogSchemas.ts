/**
 * The JSON Schema catalog (gateway-api.md "Runtime and diagnostics";
 * docs/operations.md "Contracts"): one document per named wire schema,
 * collected from the declarations that validate traffic, never from a
 * hand-written list:
 *
 * - requests: the params, query and JSON payload of every endpoint of
 *   `GatewayApi`, the payload of every handled WebSocket request type
 *   (`WsMessages`), and the WebSocket envelopes and handshake messages;
 * - responses: every named success and error body of `GatewayApi`, the named
 *   results of WebSocket requests, and the payloads and results of
 *   gateway-initiated requests;
 * - records: every named schema exported by `svc-gateway/contracts`.
 *
 * A schema is named by its `identifier` annotation; an anonymous JSON body
 * by `<Group><Endpoint>Request`, an anonymous WebSocket payload by
 * `Ws<Type>Request` (`WsPingRequest`). Path parameters and queries, string
 * maps on the wire, are always `<Group><Endpoint>Params|Query`
 * (`ApprovalsGetParams`, `WorkflowListQuery`). Two different schemas with
 * one name are a declaration error.
 *
 * @module
 */
import { type JsonSchema, Result, Schema, SchemaAST } from "effect"
import { HttpApi, type HttpApiGroup } from "effect/http-api"
import type { ContractsCatalog } from "./catalogApi.ts"
import { GatewayApi } from "../contracts.ts"
import { WsInitiatedRequests, WsMessages } from "../contracts.ts"
import * as Contracts from "../../contracts/index.ts"
import { toJsonSchemaDocument } from "../../contracts/jsonSchema.ts"

/** `format` of the catalog document. */
export const CATALOG_FORMAT: ContractsCatalog["format"] = "svc.contracts.jsonschema.catalog.v1"

/** The npm package name reported in the catalog (package.json `name`). */
export const PACKAGE_NAME = "svc-gateway"

/** Base of every document's `$id`: `<base>/<version>/<Name>.json`. An identifier, not a download location. */
export const SCHEMA_BASE_URL = "https://schemas.svc-gateway.dev"

/** What the gateway does with a schema. */
export type ContractRole = ContractsCatalog["schemas"][number]["role"]

/** One named schema of the catalog and where it is used. */
export interface ContractSource {
  readonly name: string
  readonly role: ContractRole
  /** Every schema value published under this name (they compile to the same document). */
  readonly schemas: ReadonlyArray<Schema.Top>
  /** Where it is used, e.g. `POST /plan body`, `ws workflow.run payload`; empty for a record. */
  readonly usedBy: ReadonlyArray<string>
}

const pascal = (name: string): string =>
  name.split(/[^A-Za-z0-9]+/).filter((part) => part !== "").map((part) => part[0].toUpperCase() + part.slice(1)).join("")

const identifierOf = (schema: Schema.Top): string | undefined => SchemaAST.resolveIdentifier(schema.ast)

const ROLE_RANK: Record<ContractRole, number> = { request: 0, response: 1, record: 2 }

/**
 * Every schema of the catalog, by name (sorted), with its role (the most
 * specific one when a schema is both sent and received: request, then
 * response, then record) and uses.
 */
export const contractSources = (): ReadonlyArray<ContractSource> => {
  const byName = new Map<string, { role: ContractRole; schemas: Array<Schema.Top>; usedBy: Array<string> }>()
  const add = (name: string, schema: Schema.Top, role: ContractRole, use?: string) => {
    const entry = byName.get(name) ?? { role, schemas: [], usedBy: [] }
    byName.set(name, entry)
    if (ROLE_RANK[role] < ROLE_RANK[entry.role]) entry.role = role
    if (!entry.schemas.includes(schema)) entry.schemas.push(schema)
    if (use !== undefined && !entry.usedBy.includes(use)) entry.usedBy.push(use)
  }
  const named = (schema: Schema.Top, role: ContractRole, use: string) => {
    const name = identifierOf(schema)
    if (name !== undefined) add(name, schema, role, use)
  }

  HttpApi.reflect(GatewayApi as unknown as HttpApi.HttpApi<string, HttpApiGroup.Constraint>, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, errors, group, successes }) => {
      const base = `${pascal(group.identifier)}${pascal(endpoint.identifier)}`
      const route = `${endpoint.method} ${endpoint.path}`
      // Path parameters and queries are string maps on the wire: always named after their endpoint, never after
      // the identifier of a JSON schema they reuse (its JSON form differs).
      if (endpoint.params !== undefined) add(`${base}Params`, endpoint.params, "request", `${route} path parameters`)
      if (endpoint.query !== undefined) add(`${base}Query`, endpoint.query, "request", `${route} query`)
      for (const [contentType, entry] of endpoint.payload) {
        const body = entry.schemas[0]
        if (contentType === "application/json") add(identifierOf(body) ?? `${base}Request`, body, "request", `${route} body`)
      }
      for (const [status, schemas] of successes) for (const schema of schemas) named(schema, "response", `${route} ${status}`)
      for (const [status, schemas] of errors) for (const schema of schemas) named(schema, "response", `${route} ${status}`)
    }
  })
  for (const message of WsMessages) {
    add(identifierOf(message.payload) ?? `Ws${pascal(message.type)}Request`, message.payload, "request", `ws ${message.type} payload`)
    named(message.result, "response", `ws ${message.type} result`)
  }
  // The handshake and the envelopes are decoded by the connection itself (src/ws/connection.ts).
  for (const [schema, use] of [
    [Contracts.WsRequestEnvelope, "ws request envelope"],
    [Contracts.WsResponseEnvelope, "ws response envelope (answers to gateway-initiated requests)"],
    [Contracts.WsConnectInitRequest, "ws connect.init payload"],
    [Contracts.WsConnectProofRequest, "ws connect.proof payload"]
  ] as const) named(schema, "request", use)
  for (const request of WsInitiatedRequests) {
    named(request.payload, "response", `ws ${request.type} payload (sent by the gateway)`)
    named(request.result, "request", `ws ${request.type} result (sent by the peer)`)
  }
  for (const value of Object.values(Contracts)) {
    // Records: named structures; error classes (declarations) are answered as `{error, message}` instead.
    if (Schema.isSchema(value) && value.ast._tag !== "Declaration") {
      const name = identifierOf(value)
      if (name !== undefined) add(name, value, "record")
    }
  }
  return [...byName.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, entry]) => ({ name, ...entry }))
}

/** The generated catalog: its index (`GET /contracts/jsonschema/catalog.json`) and every document by file name. */
export interface ContractCatalog {
  readonly catalog: ContractsCatalog
  readonly files: ReadonlyMap<string, JsonSchema.JsonSchema>
  readonly sources: ReadonlyArray<ContractSource>
}

/** Options of {@link makeContractCatalog}. */
export interface CatalogOptions {
  /** Package version (`GATEWAY_VERSION`): part of every `$id`. */
  readonly version: string
  /** `generated_at`, epoch milliseconds. */
  readonly generatedAtMs: number
}

/** `$id` of the document of `name` at `version`. */
export const schemaId = (version: string, name: string): string => `${SCHEMA_BASE_URL}/${version}/${name}.json`

/**
 * Generates every document of the catalog. Fails with a message naming the
 * schema when one cannot be compiled or when two different schemas share a
 * name (both are declaration errors: `contracts_unavailable`).
 */
export const makeContractCatalog = (options: CatalogOptions): Result.Result<ContractCatalog, string> => {
  let sources: ReadonlyArray<ContractSource>
  try {
    sources = contractSources()
  } catch (error) {
    return Result.fail(`collecting the wire schemas failed: ${error instanceof Error ? error.message : String(error)}`)
  }
  const files = new Map<string, JsonSchema.JsonSchema>()
  const schemas: Array<ContractsCatalog["schemas"][number]> = []
  for (const source of sources) {
    const file = `${source.name}.json`
    const $id = schemaId(options.version, source.name)
    let document: JsonSchema.JsonSchema | undefined
    for (const schema of source.schemas) {
      let generated: JsonSchema.JsonSchema
      try {
        generated = toJsonSchemaDocument(schema, { id: $id, title: source.name })
      } catch (error) {
        return Result.fail(`${source.name}: ${error instanceof Error ? error.message : String(error)}`)
      }
      if (document === undefined) document = generated
      else if (JSON.stringify(document) !== JSON.stringify(generated)) {
        return Result.fail(`${source.name}: two different schemas carry this identifier (${source.usedBy.join(", ")})`)
      }
    }
    files.set(file, document!)
    schemas.push({ name: source.name, file, $id, role: source.role, used_by: source.usedBy })
  }
  return Result.succeed({
    catalog: {
      format: CATALOG_FORMAT,
      generated_at: new Date(options.generatedAtMs).toISOString(),
      package: { name: PACKAGE_NAME, version: options.version },
      schemas
    },
    files,
    sources
  })
}
