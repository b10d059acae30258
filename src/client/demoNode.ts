/**
 * A demonstration node (role `node`): advertises `demo.echo` 1.0.0, waits
 * for an operator to approve its pairing, then declares it ready on every
 * connection made with its scoped token, and answers gateway-initiated
 * `task.execute` requests by echoing their payload (after sending
 * `attempt.evidence` for the attempt). Backs the `svc-gateway node` command.
 */
import type { CapabilityDescriptor } from "../../services/ws-sessions/schema.ts"
import {
  type ConnectedInfo,
  type GatewayClientError,
  type GatewayCredentials,
  GatewayClient,
  type ReconnectOptions
} from "./GatewayClient.ts"
import { loadOrCreateDeviceIdentity } from "./identity.ts"
import { fileScopedTokenStore, scopedTokenPathFor } from "./scopedToken.ts"

/** The capability the demo node serves: `{id: "demo.echo", version: "1.0.0"}`. */
export const DEMO_ECHO_CAPABILITY: CapabilityDescriptor = { id: "demo.echo", version: "1.0.0" }

/** Options of {@link runDemoNode}. */
export interface DemoNodeOptions {
  /** Gateway address (http(s) or ws(s) base URL, or the full `/ws` URL). */
  readonly url: string
  /**
   * Bootstrap credential (admin token, or a device token issued for role node and this device): used until the
   * node is paired and again after its scoped token is refused. May be omitted once a scoped token is stored.
   * Never logged.
   */
  readonly token?: string | undefined
  /** Identity file, created (mode 0600) when missing; see `loadOrCreateDeviceIdentity`. */
  readonly identityPath: string
  /** Where the scoped token is kept (default `<identityPath>.token`, mode 0600; see `fileScopedTokenStore`). */
  readonly scopedTokenPath?: string
  /** Capabilities to advertise and declare ready (default `[demo.echo 1.0.0]`); every one is served by the echo handler. */
  readonly capabilities?: ReadonlyArray<CapabilityDescriptor>
  /** Credential transport (default `bearer`). */
  readonly credentials?: GatewayCredentials
  /** Reconnect policy (default: the client's). */
  readonly reconnect?: ReconnectOptions
  /** Where status lines go (default `console.log`). */
  readonly log?: (line: string) => void
}

const describeError = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** The attempt `task.execute` names, when it names one (`run_id`, `step_id`, `attempt_id`). */
const attemptOf = (payload: unknown) => {
  const p = (typeof payload === "object" && payload !== null ? payload : {}) as Record<string, unknown>
  const { run_id, step_id, attempt_id } = p
  return typeof run_id === "string" && typeof step_id === "string" && typeof attempt_id === "string"
    ? { run_id, step_id, attempt_id }
    : undefined
}

/**
 * Starts the demo node and resolves once its first handshake completed (and, when it connected with a stored
 * scoped token, once it sent `capability.ready`). It stays connected (reconnecting with backoff) until
 * `close()` is called on the returned client.
 *
 * - Connected with the bootstrap token: the gateway holds a pending pairing; it logs
 *   `pending operator approval` and waits for `pairing.approved`, whose scoped token the SDK stores at
 *   `scopedTokenPath` and reconnects with.
 * - Connected with the scoped token (paired): it declares its capabilities ready.
 * - `task.execute`: sends `attempt.evidence {run_id, step_id, attempt_id, evidence: {echoed_at}}` (a failure is
 *   logged), then answers `ok:true` with `{result: {echoed: <payload>}}`.
 *
 * @throws DeviceIdentityError for a corrupt identity file; the errors of
 *   `GatewayClient.connect` when the first connection fails.
 */
export const runDemoNode = async (options: DemoNodeOptions): Promise<GatewayClient> => {
  const log = options.log ?? ((line: string) => console.log(line))
  const capabilities = options.capabilities ?? [DEMO_ECHO_CAPABILITY]
  const identity = await loadOrCreateDeviceIdentity(options.identityPath)
  const client = new GatewayClient({
    url: options.url,
    ...(options.token === undefined ? {} : { token: options.token }),
    credentials: options.credentials ?? "bearer",
    role: "node",
    identity,
    capabilities,
    device: { label: "svc-gateway demo node", platform: process.platform, mode: "node" },
    scopedTokens: fileScopedTokenStore(options.scopedTokenPath ?? scopedTokenPathFor(options.identityPath)),
    ...(options.reconnect === undefined ? {} : { reconnect: options.reconnect })
  })
  const host = new URL(client.url).host
  const ids = capabilities.map((capability) => capability.id).join(", ")

  client.onRequest("task.execute", async (payload) => {
    const attempt = attemptOf(payload)
    if (attempt !== undefined) {
      try {
        await client.request("attempt.evidence", { ...attempt, evidence: { echoed_at: new Date().toISOString() } })
      } catch (error) {
        log(`[node] attempt.evidence failed: ${describeError(error)}`)
      }
    }
    return { result: { echoed: payload } }
  })

  const onSession = async (info: ConnectedInfo): Promise<void> => {
    if (!info.paired) {
      log(`[node] pending operator approval: pairing requested for ${info.device_id} (see GET /pairings)`)
      return
    }
    try {
      await client.request("capability.ready", { capabilities })
      log(`[node] capabilities ready: ${ids}`)
    } catch (error) {
      log(`[node] capability.ready failed: ${describeError(error)}`)
    }
  }

  let first: Promise<void> | undefined
  client.on("connected", (info) => {
    const how = info.paired ? "with its scoped token" : "with the bootstrap token"
    log(`[node] ${info.reconnected ? "reconnected" : "connected"} to ${host} as ${info.device_id} ${how} (client ${info.client_id})`)
    const ready = onSession(info)
    first ??= ready
  })
  client.on("paired", ({ pairing, stored }) =>
    log(
      `[node] paired: pairing ${pairing.pairing_id} approved (trust ${pairing.trust_level ?? "?"})` +
        `${stored ? "" : ", scoped token NOT stored"}; reconnecting with the scoped token`
    ))
  client.on("unpaired", (info) => {
    const why = info.httpStatus !== undefined
      ? `HTTP ${info.httpStatus}`
      : `code ${info.closeCode}${info.closeReason ? ` ${info.closeReason}` : ""}`
    log(
      `[node] scoped token refused (${why}); ${
        info.fallback ? "back to the bootstrap token (pending approval again)" : "no bootstrap token to fall back to"
      }`
    )
  })
  client.on("disconnected", (info) => {
    const why = info.reason === "" ? `code ${info.code}` : `code ${info.code} ${info.reason}`
    log(`[node] disconnected (${why})${info.willReconnect ? ", reconnecting" : ""}`)
  })
  client.on("reconnecting", (info) => log(`[node] reconnect attempt ${info.attempt} in ${info.delayMs} ms`))
  client.on("error", (error) => {
    const fatal = (error as Partial<GatewayClientError>).fatal === true
    log(`[node] ${fatal ? "fatal: " : ""}${error.message}`)
  })

  try {
    await client.connect()
  } catch (error) {
    await client.close()
    throw error
  }
  await first
  return client
}
