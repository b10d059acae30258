/**
 * Model catalog handlers (transport/httpApi.ts): decode (done by the
 * declaration), one call to `Models`, the answer with `status: "ok"` and
 * the catalog's status.
 *
 * @module
 */
import { Effect } from "effect"
import { apiOf, group } from "../../../src/http/serve.ts"
import { modelsOf, summaries, summaryOf } from "../catalog.ts"
import { Models } from "../Models.ts"
import { ModelsApi } from "./httpApi.ts"

/** Model catalog handlers; need {@link Models}. */
export const ModelsHttp = group(apiOf(ModelsApi), "models", (handlers) => Effect.gen(function*() {
  const models = yield* Models
  return handlers.handleAll({
    status: () => Effect.map(models.status(), (models_dev) => ({ status: "ok" as const, models_dev })),
    refresh: () => Effect.map(models.refresh(), (models_dev) => ({ status: "ok" as const, models_dev })),
    providers: () =>
      Effect.map(models.current(), ({ catalog, status }) => ({ status: "ok" as const, models_dev: status, providers: summaries(catalog) })),
    provider: ({ params }) =>
      Effect.map(models.provider(params.id), ({ provider, status }) => ({ status: "ok" as const, models_dev: status, provider })),
    providerModels: ({ params }) =>
      Effect.map(models.provider(params.id), ({ provider, status }) => ({
        status: "ok" as const,
        models_dev: status,
        provider: summaryOf(provider),
        models: modelsOf(provider)
      }))
  })
}))
