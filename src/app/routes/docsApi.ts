/** `GET /openapi.json` (operator.read): the OpenAPI document of the gateway's HTTP API, generated from its declaration. */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { documented } from "../../http/api/examples.ts"
import { Access, scope } from "../../http/api/access.ts"
import { Authentication, RequestErrors } from "../../http/api/security.ts"
import { AUTH_ERRORS } from "../../http/api/errors.ts"

/** API documentation. */
export const DocsApi = HttpApiGroup.make("docs")
  .add(HttpApiEndpoint.get("openapi", "/openapi.json", {
    success: Schema.Record(Schema.String, Schema.Unknown).annotate({ description: "An OpenAPI 3.1 document." }),
    error: AUTH_ERRORS
  }).annotateMerge(documented(
    "The OpenAPI 3.1 document of this HTTP API, generated from the same declarations as this reference: every " +
      "operation with its description, `x-svc-access` (what a device token needs) and its example (`x-codeSamples`).",
    { response: { openapi: "3.1.0", info: { title: "svc-gateway", version: "0.1.0" } } }
  )))
  .annotate(Access, scope("operator.read"))
  .middleware(Authentication)
  .middleware(RequestErrors)
