/** `GET /openapi.json`: the OpenAPI document generated from the HttpApi definition (operator.read). */
import { Effect } from "effect"
import { HttpRouter } from "effect/http"
import { openApiDocument } from "../api.ts"
import { json } from "../respond.ts"

/** Registers `GET /openapi.json`; the document is generated once, on first request. */
export const OpenApiRoutes = HttpRouter.add("GET", "/openapi.json", Effect.sync(() => json(documentOnce())))

let cached: unknown
const documentOnce = (): unknown => (cached ??= openApiDocument())
