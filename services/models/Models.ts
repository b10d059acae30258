/**
 * The model catalog (issue 25 §5; gateway-api.md "Model catalog"; reference
 * §7.6; docs/models.md): which providers and models exist, their prices (USD
 * per 1M tokens) and limits, from models.dev.
 *
 * - **Three sources.** The catalog cached in the database (the last one
 *   fetched from `<SVC_MODELS_DEV_URL>/api.json`), else the snapshot bundled
 *   in the package (catalog.ts). Every catalog served also carries the
 *   built-in provider (`builtin/echo`, `builtin/scripted`, cost 0). Status
 *   `source`: `remote` when the cached catalog is what models.dev answered at
 *   the last refresh (200 or 304), `cache` when it is served from the
 *   database while refreshes fail or fetching is disabled, `bundled` when no
 *   catalog was ever fetched.
 * - **Refresh** ({@link Models.refresh}; `POST /models/refresh`; in the
 *   background at start and every hour unless `SVC_MODELS_DEV_DISABLE_FETCH=1`):
 *   `GET <base>/api.json` with `If-None-Match: <etag>` (a 304 keeps the
 *   cache), at most 10 s (`Clock`: `TestClock` in tests), the body decoded
 *   with the catalog schema; any failure (network, timeout, status, invalid
 *   body) becomes `last_error` and the cache is kept. One refresh at a time:
 *   concurrent calls in one process share the running one; across instances
 *   the refresh lease ({@link REFRESH_LEASE_TTL}) lets one fetch while the
 *   others answer the status they have. Start-up never waits on the network.
 * - **Reads** look at the cache row first (one small query) and reload the
 *   catalog only when its sha256 changed, so every instance serves the
 *   catalog another one fetched.
 *
 * @module
 */
import { NodeServices } from "@effect/platform-node"
import { Clock, Context, Deferred, Duration, Effect, Layer, Ref, Result } from "effect"
import { FetchHttpClient, HttpClient, type HttpClientError, HttpClientRequest } from "effect/http"
import { randomUUID } from "node:crypto"
import { GatewayConfig } from "../../layers/config.ts"
import { BackgroundJobs } from "../backplane/BackgroundJobs.ts"
import { sha256Hex } from "../shared/sha256.ts"
import { isoTime } from "../shared/time.ts"
import { type BundledCatalog, countsOf, loadBundledCatalog, parseCatalog, splitModelRef, withBuiltin } from "./catalog.ts"
import { NotFound } from "./errors.ts"
import { type ModelsDevCacheMeta, ModelsRepo, type RefreshOutcome } from "./ModelsRepo.ts"
import type { Catalog, CatalogModel, CatalogProvider, ModelCost, ModelsDevStatus } from "./schema.ts"

/** How long models.dev has to answer a refresh (headers and body). */
export const FETCH_TIMEOUT = Duration.seconds(10)
/** How often the background refresh runs. */
export const REFRESH_INTERVAL = Duration.hours(1)
/** How long a refresh holds the cross-instance lease at most (a crashed holder lets go after this). */
export const REFRESH_LEASE_TTL = Duration.seconds(60)
/** The background job's name (BackgroundJobs). */
export const REFRESH_JOB = "models.refresh"
/** The largest `api.json` body accepted, in characters. */
export const MAX_CATALOG_CHARS = 32 * 1024 * 1024
/** `last_error` of a refresh asked for while fetching is disabled. */
export const FETCH_DISABLED = "fetching the model catalog is disabled (SVC_MODELS_DEV_DISABLE_FETCH=1)"

/** An HTTP client failure in one line: its message and the innermost cause's code or message (`ECONNREFUSED`, `ENOTFOUND`). */
const describeFailure = (failure: { readonly message: string; readonly cause?: unknown }): string => {
  let inner: unknown = failure.cause
  for (let depth = 0; depth < 5 && typeof inner === "object" && inner !== null && "cause" in inner && inner.cause !== undefined; depth++) {
    inner = inner.cause
  }
  const detail = typeof inner === "object" && inner !== null
    ? ("code" in inner && typeof inner.code === "string" ? inner.code : "message" in inner && typeof inner.message === "string" ? inner.message : "")
    : ""
  return detail === "" || failure.message.includes(detail) ? failure.message : `${failure.message}: ${detail}`
}

/** The catalog's configuration, from `GatewayConfig` (`modelsDevUrl`, `modelsDevDisableFetch`). */
export class ModelsConfig extends Context.Service<ModelsConfig, {
  /** The base URL (no trailing `/`); the catalog is `<url>/api.json`. */
  readonly url: string
  /** True: never fetch (the cached or bundled catalog is served). */
  readonly disableFetch: boolean
}>()("svc-gateway/models/ModelsConfig") {
  /** From `GatewayConfig`. */
  static readonly layer = Layer.effect(
    ModelsConfig,
    Effect.gen(function*() {
      const settings = yield* GatewayConfig
      return ModelsConfig.of({ url: settings.modelsDevUrl, disableFetch: settings.modelsDevDisableFetch })
    })
  )
}

/** The catalog in use and its status. */
export interface CatalogView {
  readonly status: ModelsDevStatus
  /** Providers by id, the built-in one included. */
  readonly catalog: Catalog
}

/** The model catalog service. */
export class Models extends Context.Service<Models, {
  /** The catalog's status (answers at once, from the cache or the bundled snapshot; never waits on the network). */
  readonly status: () => Effect.Effect<ModelsDevStatus>
  /**
   * Refreshes the catalog from models.dev now and answers the status after
   * it: a failure is the status's `last_error` (the cache is kept), never an
   * error. With fetching disabled nothing is fetched and `last_error` is
   * {@link FETCH_DISABLED}. Joins a refresh already running in this process;
   * while another instance holds the lease, answers the current status.
   */
  readonly refresh: () => Effect.Effect<ModelsDevStatus>
  /** The catalog in use (the built-in provider included) and its status. */
  readonly current: () => Effect.Effect<CatalogView>
  /** The provider `id` with the status; `NotFound` (`provider '<id>' not found`) when the catalog has none. */
  readonly provider: (id: string) => Effect.Effect<{ readonly status: ModelsDevStatus; readonly provider: CatalogProvider }, NotFound>
  /**
   * The model `model` of `provider` (`get("openai", "gpt-4.1-mini")`):
   * name, limits (tokens), prices (USD per 1M tokens), capabilities;
   * `undefined` when the catalog does not know it.
   */
  readonly get: (provider: string, model: string) => Effect.Effect<CatalogModel | undefined>
  /**
   * The prices of a model reference `provider/model` (`openai/gpt-4.1-mini`),
   * USD per 1M tokens: `{input, output}` and `cache_read` / `cache_write`
   * when known; `undefined` when the model is unknown, the catalog has no
   * price for it, or the reference is not `provider/model`. `builtin/*` is 0.
   * With catalog.ts `usdMicros` it gives a turn's cost.
   */
  readonly price: (modelRef: string) => Effect.Effect<ModelCost | undefined>
}>()("svc-gateway/models/Models") {
  /**
   * Needs {@link ModelsRepo}, {@link ModelsConfig}, an `HttpClient`, a
   * `FileSystem` and `Path` (the bundled snapshot) and a `Scope` (refreshes
   * run in it, so a caller going away does not stop one). Starts nothing in
   * the background: {@link Models.layer} adds the hourly job.
   */
  static readonly layerNoDeps = Layer.effect(
    Models,
    Effect.gen(function*() {
      const repo = yield* ModelsRepo
      const config = yield* ModelsConfig
      const http = yield* HttpClient.HttpClient
      const scope = yield* Effect.scope
      const bundled: BundledCatalog = yield* loadBundledCatalog
      const bundledCounts = countsOf(bundled.catalog)
      const loaded = yield* Ref.make<{ readonly sha256: string; readonly catalog: Catalog } | undefined>(undefined)
      const inFlight = yield* Ref.make<Deferred.Deferred<ModelsDevStatus> | undefined>(undefined)
      const apiUrl = `${config.url}/api.json`

      /** The cached catalog for `meta` (reloaded only when its sha256 changed), or `undefined`. */
      const cachedCatalog = Effect.fnUntraced(function*(meta: ModelsDevCacheMeta | undefined) {
        if (meta?.sha256 == null) return undefined
        const memo = yield* Ref.get(loaded)
        if (memo !== undefined && memo.sha256 === meta.sha256) return memo.catalog
        const row = yield* repo.catalog
        if (row === undefined) return undefined
        const parsed = parseCatalog(row.json)
        if (Result.isFailure(parsed)) {
          yield* Effect.logWarning("cached model catalog does not decode; serving the bundled one").pipe(
            Effect.annotateLogs({ problem: parsed.failure })
          )
          return undefined
        }
        const catalog = withBuiltin(parsed.success)
        yield* Ref.set(loaded, { sha256: row.sha256, catalog })
        return catalog
      })

      const view = Effect.fnUntraced(function*() {
        const meta = yield* repo.meta
        const catalog = yield* cachedCatalog(meta)
        if (catalog === undefined || meta === undefined) {
          const status: ModelsDevStatus = {
            source: "bundled",
            fetched_at: null,
            updated_at: null,
            etag: null,
            sha256: bundled.sha256,
            ...bundledCounts,
            last_error: meta?.last_error ?? null
          }
          return { status, catalog: bundled.catalog }
        }
        const fresh = !config.disableFetch && meta.last_error === null && meta.fetched_at !== null
        const status: ModelsDevStatus = {
          source: fresh ? "remote" : "cache",
          fetched_at: meta.fetched_at,
          updated_at: meta.updated_at,
          etag: meta.etag,
          sha256: meta.sha256,
          ...countsOf(catalog),
          last_error: meta.last_error
        }
        return { status, catalog }
      })

      /** One request to models.dev, as the outcome to record. */
      const fetchOnce = Effect.fnUntraced(function*(at: string) {
        const meta = yield* repo.meta
        const etag = (yield* cachedCatalog(meta)) === undefined ? null : (meta?.etag ?? null)
        let request = HttpClientRequest.get(apiUrl).pipe(HttpClientRequest.acceptJson)
        if (etag !== null) request = HttpClientRequest.setHeader(request, "if-none-match", etag)
        type Answer = { readonly status: number; readonly etag: string | null; readonly text: string }
        const answer = yield* http.execute(request).pipe(
          Effect.flatMap((response): Effect.Effect<Answer, HttpClientError.HttpClientError> => {
            const etag = response.headers["etag"] ?? null
            if (response.status === 304) return Effect.succeed({ status: 304, etag, text: "" })
            if (response.status < 200 || response.status >= 300) return Effect.succeed({ status: response.status, etag: null, text: "" })
            const length = Number(response.headers["content-length"] ?? "0")
            if (length > MAX_CATALOG_CHARS) return Effect.succeed({ status: 413, etag: null, text: "" })
            return Effect.map(response.text, (text) => ({ status: response.status, etag, text }))
          }),
          Effect.timeout(FETCH_TIMEOUT),
          Effect.result
        )
        const failed = (error: string): RefreshOutcome => ({ _tag: "Failed", error, at })
        if (Result.isFailure(answer)) {
          return answer.failure._tag === "TimeoutError"
            ? failed(`${apiUrl} did not answer within ${Duration.format(FETCH_TIMEOUT)}`)
            : failed(`could not fetch ${apiUrl}: ${describeFailure(answer.failure).slice(0, 300)}`)
        }
        const { status, text } = answer.success
        if (status === 304) {
          return etag === null
            ? failed(`${apiUrl} answered 304 Not Modified to a request without If-None-Match`)
            : { _tag: "Unchanged", etag: answer.success.etag, at } satisfies RefreshOutcome
        }
        if (status === 413 || text.length > MAX_CATALOG_CHARS) return failed(`${apiUrl} is larger than ${MAX_CATALOG_CHARS} characters`)
        if (status < 200 || status >= 300) return failed(`${apiUrl} answered status ${status}`)
        const parsed = parseCatalog(text)
        if (Result.isFailure(parsed)) return failed(`invalid catalog from ${apiUrl}: ${parsed.failure}`)
        return {
          _tag: "Updated",
          catalogJson: JSON.stringify(parsed.success),
          sha256: sha256Hex(text),
          etag: answer.success.etag,
          at
        } satisfies RefreshOutcome
      })

      /** A refresh under the lease; answers the status after it. */
      const runRefresh = Effect.gen(function*() {
        if (config.disableFetch) {
          const { status } = yield* view()
          return { ...status, last_error: FETCH_DISABLED }
        }
        const owner = randomUUID()
        const now = yield* Clock.currentTimeMillis
        const taken = yield* repo.acquireLease(owner, isoTime(now), isoTime(now + Duration.toMillis(REFRESH_LEASE_TTL)))
        if (!taken) {
          yield* Effect.logDebug("model catalog refresh already running elsewhere")
          return (yield* view()).status
        }
        const outcome = yield* fetchOnce(isoTime(now)).pipe(
          Effect.tap((outcome) => repo.record(outcome)),
          Effect.ensuring(Effect.flatMap(Clock.currentTimeMillis, (end) => repo.releaseLease(owner, isoTime(end))))
        )
        const { status } = yield* view()
        if (outcome._tag === "Failed") {
          yield* Effect.logWarning("model catalog refresh failed").pipe(Effect.annotateLogs({ error: outcome.error }))
        } else {
          yield* Effect.logInfo("model catalog refreshed").pipe(Effect.annotateLogs({
            result: outcome._tag === "Updated" ? "updated" : "not modified",
            providers: status.provider_count,
            models: status.model_count
          }))
        }
        return status
      })

      const status = Effect.fn("Models.status")(function*() {
        return (yield* view()).status
      })

      const refresh = Effect.fn("Models.refresh")(function*() {
        const mine = yield* Deferred.make<ModelsDevStatus>()
        const running = yield* Ref.modify(inFlight, (current) => (current === undefined ? [undefined, mine] : [current, current]))
        if (running !== undefined) return yield* Deferred.await(running)
        // The refresh runs in the layer's scope: a caller that goes away does not cut it short for the others.
        yield* Effect.forkIn(
          runRefresh.pipe(
            Effect.exit,
            Effect.flatMap((exit) => Effect.andThen(Ref.set(inFlight, undefined), Deferred.done(mine, exit)))
          ),
          scope
        )
        return yield* Deferred.await(mine)
      })

      const current = Effect.fn("Models.current")(function*() {
        return yield* view()
      })

      const provider = Effect.fn("Models.provider")(function*(id: string) {
        const { catalog, status } = yield* view()
        const found = Object.hasOwn(catalog, id) ? catalog[id] : undefined
        if (found === undefined) return yield* new NotFound({ message: `provider '${id}' not found` })
        return { status, provider: found }
      })

      const get = Effect.fn("Models.get")(function*(providerId: string, model: string) {
        const { catalog } = yield* view()
        const found = Object.hasOwn(catalog, providerId) ? catalog[providerId] : undefined
        return found !== undefined && Object.hasOwn(found.models, model) ? found.models[model] : undefined
      })

      const price = Effect.fn("Models.price")(function*(modelRef: string) {
        const ref = splitModelRef(modelRef)
        if (ref === undefined) return undefined
        return (yield* get(ref.provider, ref.model))?.cost
      })

      return Models.of({ status, refresh, current, provider, get, price })
    })
  )

  /**
   * {@link Models.layerNoDeps} with the hourly refresh as a background job
   * (`models.refresh`, first run at once, in the background) unless fetching
   * is disabled. Same needs.
   */
  static readonly layerWithRefresh = Layer.effectDiscard(Effect.gen(function*() {
    const models = yield* Models
    const config = yield* ModelsConfig
    if (config.disableFetch) return
    const jobs = yield* BackgroundJobs
    yield* jobs.schedule({
      name: REFRESH_JOB,
      every: REFRESH_INTERVAL,
      run: models.refresh().pipe(
        Effect.asVoid,
        Effect.catchDefect((defect) => Effect.logWarning("model catalog refresh failed").pipe(Effect.annotateLogs({ cause: String(defect) })))
      )
    })
  })).pipe(Layer.provideMerge(Models.layerNoDeps))

  /**
   * Wired for the gateway: the hourly refresh, the repository, the settings'
   * configuration, `fetch` as the `HttpClient` and the platform's file
   * system. Needs `GatewayConfig` and a `SqlClient`.
   */
  static readonly layer = Models.layerWithRefresh.pipe(
    Layer.provide([ModelsRepo.layer, ModelsConfig.layer, FetchHttpClient.layer, NodeServices.layer])
  )
}
