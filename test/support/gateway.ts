/**
 * Starts a real gateway (node:http on 127.0.0.1, port 0) for integration
 * tests, on a fresh migrated database (in-memory SQLite by default).
 */
import { Effect, Layer, Logger, ManagedRuntime, Option, Redacted } from "effect"
import { HttpServer } from "effect/http"
import { TestClock } from "effect/testing"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  GatewayConfigLive,
  gatewayHttp,
  GatewayLive,
  gatewayServices,
  type HttpAdapter,
  LoggingLive,
  StorageMemoryTest
} from "../../src/app/gateway.ts"
import { type GatewaySettings } from "../../layers/config.ts"
import { DEFAULTS, validateSettings } from "../../src/app/settings.ts"
import type { TestDatabaseServices } from "./databases.ts"

/** A running test gateway. */
export interface TestGateway {
  readonly url: string
  readonly adminToken: string
  readonly settings: GatewaySettings
  /** `fetch` relative to `url`. */
  readonly fetch: (path: string, init?: RequestInit) => Promise<Response>
  readonly close: () => Promise<void>
  /** Runs an effect against the gateway's own services (registry, event bus, …). */
  readonly run: <A, E>(effect: Effect.Effect<A, E, any>) => Promise<A>
}

/**
 * What HTTP and WebSocket helpers need of a gateway: its base URL, its admin
 * token and `fetch` relative to the URL. An in-process {@link TestGateway}
 * and a gateway process (test/support/cluster.ts) both provide it.
 */
export type GatewayEndpoint = Pick<TestGateway, "url" | "adminToken" | "fetch">

/** Admin token used by test gateways (64 hex characters). */
export const TEST_ADMIN_TOKEN = "a".repeat(32) + "b".repeat(32)

/** Builds settings the way the CLI does (through `validateSettings`), with overrides. */
export const testSettings = (overrides: Partial<GatewaySettings> = {}): GatewaySettings => {
  const result = validateSettings({
    ...DEFAULTS,
    port: 0,
    home: Option.some(mkdtempSync(join(tmpdir(), "svc-test-"))),
    databaseUrl: Option.none(),
    adminToken: Option.some(Redacted.make(TEST_ADMIN_TOKEN)),
    auth: "on",
    logLevel: "Error",
    // Test gateways never reach models.dev in the background (tests of the catalog's refresh set a local URL).
    modelsDevFetch: "1"
  })
  if (!result.ok) throw new Error(result.problems.join("; "))
  return { ...result.settings, ...overrides }
}

/** Options of {@link startGateway}. */
export interface StartOptions {
  /**
   * `"test"`: every service of the gateway reads time from a `TestClock`
   * (starting at the epoch); move it with `gw.run(TestClock.adjust(...))`.
   */
  readonly clock?: "live" | "test"
  /** With `clock: "test"`: the `TestClock`'s time (ms since the epoch) before any service starts (default 0). */
  readonly clockStartMs?: number
  /**
   * Services that replace the gateway's own for its transports (HTTP routes
   * and the WS server), e.g. a failing `Presence` to inject a defect.
   */
  readonly override?: Layer.Layer<any, never, never>
  /** Receives every log entry (structured) instead of stdout. */
  readonly logs?: Array<StructuredLog>
}

/** A log entry as `Logger.formatStructured` renders it. */
export interface StructuredLog {
  readonly level: string
  readonly message: unknown
  readonly annotations: Record<string, unknown>
}

/**
 * `SVC_TEST_HTTP_ADAPTER=platform-node` (or `node`) serves the gateway's HTTP
 * through platform-node's `NodeHttpServer.layer` instead of the default lean
 * adapter (`gatewayHttp` in src/app/gateway.ts); `.ci/run` runs the HTTP and WS
 * suites both ways (docs/adapter-evidence.md).
 */
const adapter: HttpAdapter = ["node", "platform-node"].includes(process.env.SVC_TEST_HTTP_ADAPTER ?? "") ? "platform-node" : "lean"

/** Starts a gateway; call `close()` when done. */
export const startGateway = async (
  overrides: Partial<GatewaySettings> = {},
  storage: Layer.Layer<TestDatabaseServices, unknown> = StorageMemoryTest,
  options: StartOptions = {}
): Promise<TestGateway> => {
  const settings = testSettings(overrides)
  const logs = options.logs
  const logging = logs === undefined
    ? LoggingLive
    : Logger.layer([Logger.map(Logger.formatStructured, (entry) => void logs.push(entry))])
  const live = options.override === undefined && logs === undefined
    ? GatewayLive(settings, { storage, adapter })
    : gatewayHttp(adapter).pipe(
      Layer.provideMerge(options.override ?? Layer.empty),
      Layer.provideMerge(gatewayServices({ storage })),
      Layer.provide(logging),
      Layer.provideMerge(GatewayConfigLive(settings))
    )
  const testClock = options.clockStartMs === undefined
    ? TestClock.layer()
    : Layer.effectDiscard(TestClock.setTime(options.clockStartMs)).pipe(Layer.provideMerge(TestClock.layer()))
  const runtime = ManagedRuntime.make(options.clock === "test" ? live.pipe(Layer.provideMerge(testClock)) : live)
  const server = await runtime.runPromise(Effect.service(HttpServer.HttpServer))
  const url = HttpServer.formatAddress(server.address)
  return {
    url,
    adminToken: settings.adminToken ? Redacted.value(settings.adminToken) : "",
    settings,
    fetch: (path, init) => fetch(url + path, init),
    close: () => runtime.dispose(),
    run: (effect) => runtime.runPromise(effect as Effect.Effect<any, any, never>)
  }
}

/** JSON POST helper: `body` is sent as is when a string, else JSON-encoded. */
export const postJson = (gw: GatewayEndpoint, path: string, body: unknown, token?: string, headers: Record<string, string> = {}) =>
  gw.fetch(path, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}),
      ...headers
    },
    body: typeof body === "string" ? body : JSON.stringify(body)
  })

/** The response body as JSON, typed loosely for assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const readJson = (res: Response): Promise<any> => res.json()
