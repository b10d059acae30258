/**
 * The JSON Schema catalog over HTTP (gateway-api.md "Runtime and
 * diagnostics"; docs/operations.md "Contracts"), operator.read:
 * `GET /contracts/jsonschema/catalog.json` lists one draft 2020-12 document
 * per wire schema, `GET /contracts/jsonschema/:file` serves one. Generated
 * from the schemas that validate requests (src/contracts/catalog.ts).
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { NotFound } from "../../../services/shared/errors.ts"
import { documented } from "../../http/api/examples.ts"
import { Access, scope } from "../../http/api/access.ts"
import { Authentication, RequestErrors } from "../../http/api/security.ts"
import { AUTH_ERRORS, wire } from "../../http/api/errors.ts"

/** 500 `contracts_unavailable`: the documents could not be generated (a declaration error; `message` names the schema). */
export class ContractsUnavailable extends Schema.TaggedError<ContractsUnavailable>()(
  "ContractsUnavailable",
  { message: Schema.String },
  { httpApiStatus: 500, errorCode: "contracts_unavailable" }
) {}

/** One document of the catalog. */
export const ContractsCatalogEntry = Schema.Struct({
  name: Schema.String.annotate({ description: "The schema's name (its identifier)." }),
  file: Schema.String.annotate({ description: "Basename to fetch at /contracts/jsonschema/<file>." }),
  $id: Schema.String.annotate({ description: "The document's `$id`: https://schemas.svc-gateway.dev/<version>/<name>.json" }),
  role: Schema.Literals(["request", "response", "record"]).annotate({
    description: "request: decoded by the gateway; response: sent by it; record: a named part of other messages."
  }),
  used_by: Schema.Array(Schema.String).annotate({
    description: "Where the gateway decodes or sends it, e.g. `POST /plan body`, `ws workflow.run payload`."
  })
}).annotate({ identifier: "ContractsCatalogEntry" })

/** `GET /contracts/jsonschema/catalog.json`. */
export const ContractsCatalog = Schema.Struct({
  format: Schema.Literal("svc.contracts.jsonschema.catalog.v1"),
  generated_at: Schema.String.annotate({ description: "ISO 8601 UTC time the documents were generated." }),
  package: Schema.Struct({ name: Schema.String, version: Schema.String }),
  schemas: Schema.Array(ContractsCatalogEntry).annotate({ description: "Sorted by name." })
}).annotate({ identifier: "ContractsCatalog" })
export type ContractsCatalog = typeof ContractsCatalog.Type

/** A JSON Schema document (draft 2020-12). */
export const JsonSchemaDocument = Schema.Record(Schema.String, Schema.Unknown).annotate({
  description: "A JSON Schema draft 2020-12 document with $schema, $id and title; x-decoder-only lists the checks it cannot express."
})

/** `GET /contracts/jsonschema/catalog.json`, `GET /contracts/jsonschema/:file`. */
export const ContractsApi = HttpApiGroup.make("contracts")
  .add(
    HttpApiEndpoint.get("catalog", "/contracts/jsonschema/catalog.json", {
      success: ContractsCatalog,
      error: [...AUTH_ERRORS, wire(ContractsUnavailable)]
    }).annotateMerge(documented(
      "The catalog of JSON Schema (draft 2020-12) documents of every wire type, generated from the schemas that " +
        "validate requests: name, file, `$id`, role and where each is used.",
      {
        response: {
          format: "svc.contracts.jsonschema.catalog.v1",
          package: { name: "svc-gateway", version: "0.1.0" },
          schemas: [{ name: "…", file: "….json" }]
        }
      }
    )),
    HttpApiEndpoint.get("file", "/contracts/jsonschema/:file", {
      params: { file: Schema.String.annotate({ description: "A catalog file name such as PlanRequest.json." }) },
      success: JsonSchemaDocument,
      error: [...AUTH_ERRORS, wire(NotFound), wire(ContractsUnavailable)]
    }).annotateMerge(documented(
      "One document of the catalog by file name; 404 for any other name.",
      {
        path: "/contracts/jsonschema/PlanRequest.json",
        response: { $schema: "https://json-schema.org/draft/2020-12/schema", $id: "https://schemas.svc-gateway.dev/0.1.0/PlanRequest.json", title: "PlanRequest" }
      }
    ))
  )
  .annotate(Access, scope("operator.read"))
  .middleware(Authentication)
  .middleware(RequestErrors)
