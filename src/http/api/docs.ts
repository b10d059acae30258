/** `GET /openapi.json` (operator.read): the OpenAPI document of the gateway's HTTP API, generated from its declaration. */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Access, scope } from "./access.ts"
import { AUTH_ERRORS } from "./errors.ts"

/** API documentation. */
export const DocsApi = HttpApiGroup.make("docs")
  .add(HttpApiEndpoint.get("openapi", "/openapi.json", {
    success: Schema.Record(Schema.String, Schema.Unknown).annotate({ description: "An OpenAPI 3.1 document." }),
    error: AUTH_ERRORS
  }))
  .annotate(Access, scope("operator.read"))
