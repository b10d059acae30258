/**
 * The model catalog over HTTP (gateway-api.md "Model catalog"; reference
 * §7.6; docs/models.md): device tokens need operator.read to read and
 * operator.admin to refresh. Every answer carries `status: "ok"` and the
 * catalog's status (`models_dev`); an unknown provider is 404 `not_found`.
 *
 * @module
 */
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { documented } from "../../../src/http/api/examples.ts"
import { Access, OPERATOR, scope } from "../../../src/http/api/access.ts"
import { AUTH_ERRORS, REQUEST_ERRORS, wire } from "../../../src/http/api/errors.ts"
import { Authentication, RequestErrors } from "../../../src/http/api/security.ts"
import { NotFound } from "../errors.ts"
import { ModelsStatusResponse, ProviderModelsResponse, ProviderParams, ProviderResponse, ProvidersResponse } from "../schema.ts"

/** What every example can show whether or not models.dev is reachable from where it runs. */
const STATUS_EXAMPLE = { status: "ok", models_dev: { source: "…" } }

/** `GET /models/status`, `POST /models/refresh`, `GET /models/providers`, `GET /models/providers/:id`, `GET /models/providers/:id/models`. */
export const ModelsApi = HttpApiGroup.make("models")
  .add(
    HttpApiEndpoint.get("status", "/models/status", {
      success: ModelsStatusResponse,
      error: AUTH_ERRORS
    }).annotateMerge(documented(
      "The model catalog's status: `source` (`remote`: the cached catalog models.dev confirmed at the last refresh; " +
        "`cache`: the cached one while refreshes fail or fetching is disabled; `bundled`: the snapshot shipped in the " +
        "package), `fetched_at`, `updated_at`, `etag`, `sha256`, `provider_count`, `model_count`, `last_error` (`null` " +
        "where unknown). Answers at once; never waits on the network.",
      { response: STATUS_EXAMPLE }
    )),
    HttpApiEndpoint.post("refresh", "/models/refresh", {
      success: ModelsStatusResponse,
      error: AUTH_ERRORS
    }).annotate(Access, scope("operator.admin")).annotateMerge(documented(
      "Fetches `<SVC_MODELS_DEV_URL>/api.json` now (`If-None-Match` with the stored ETag, 10 s timeout) and answers " +
        "the status after it. A failure (unreachable, timeout, a status other than 200/304, an invalid catalog) is " +
        "the status's `last_error` and the cached catalog is kept; with `SVC_MODELS_DEV_DISABLE_FETCH=1` nothing is " +
        "fetched and `last_error` says so. No request body.",
      { response: STATUS_EXAMPLE }
    )),
    HttpApiEndpoint.get("providers", "/models/providers", {
      success: ProvidersResponse,
      error: AUTH_ERRORS
    }).annotateMerge(documented(
      "Every provider of the catalog, by id: `{id, name, npm, api, env, doc, model_count}` (`npm`, `api`, `doc` " +
        "`null` when the catalog has none). The built-in provider (`builtin`: `echo`, `scripted`) is always there.",
      {
        response: {
          status: "ok",
          providers: [
            { id: "anthropic", name: "Anthropic", npm: "@ai-sdk/anthropic", env: ["ANTHROPIC_API_KEY"] },
            { id: "builtin", model_count: 2 },
            { id: "openai", name: "OpenAI", env: ["OPENAI_API_KEY"] }
          ]
        }
      }
    )),
    HttpApiEndpoint.get("provider", "/models/providers/:id", {
      params: ProviderParams,
      success: ProviderResponse,
      error: [...REQUEST_ERRORS, wire(NotFound)]
    }).annotateMerge(documented(
      "One provider as the catalog has it, its models by id (prices `cost` in USD per 1M tokens, `limit` in " +
        "tokens). 404 `not_found` for an unknown provider.",
      { path: "/models/providers/openai", response: { status: "ok", provider: { id: "openai", name: "OpenAI", env: ["OPENAI_API_KEY"] } } }
    )),
    HttpApiEndpoint.get("providerModels", "/models/providers/:id/models", {
      params: ProviderParams,
      success: ProviderModelsResponse,
      error: [...REQUEST_ERRORS, wire(NotFound)]
    }).annotateMerge(documented(
      "A provider's summary and its models as a list, by id. 404 `not_found` for an unknown provider.",
      {
        path: "/models/providers/builtin/models",
        response: { status: "ok", provider: { id: "builtin", model_count: 2 }, models: [{ id: "echo", cost: { input: 0, output: 0 } }] }
      }
    ))
  )
  .annotate(Access, OPERATOR)
  .middleware(Authentication)
  .middleware(RequestErrors)
