/**
 * A demonstration node (role `node`): advertises `demo.echo` 1.0.0, declares
 * it ready on every (re)connection, and answers gateway-initiated
 * `task.execute` requests by echoing their payload. Backs the
 * `svc-gateway node` command.
 */
import type { CapabilityDescriptor } from "../../services/ws-sessions/schema.ts"
import { type GatewayClientError, type GatewayCredentials, GatewayClient } from "./GatewayClient.ts"
import { loadOrCreateDeviceIdentity } from "./identity.ts"

/** The capability the demo node serves: `{id: "demo.echo", version: "1.0.0"}`. */
export const DEMO_ECHO_CAPABILITY: CapabilityDescriptor = { id: "demo.echo", version: "1.0.0" }

/** Options of {@link runDemoNode}. */
export interface DemoNodeOptions {
  /** Gateway address (http(s) or ws(s) base URL, or the full `/ws` URL). */
  readonly url: string
  /** Admin or device token. Never logged. */
  readonly token: string
  /** Identity file, created (mode 0600) when missing; see `loadOrCreateDeviceIdentity`. */
  readonly identityPath: string
  /** Capabilities to advertise and declare ready (default `[demo.echo 1.0.0]`); every one is served by the echo handler. */
  readonly capabilities?: ReadonlyArray<CapabilityDescriptor>
  /** Credential transport (default `bearer`). */
  readonly credentials?: GatewayCredentials
  /** Where status lines go (default `console.log`). */
  readonly log?: (line: string) => void
}

/**
 * Starts the demo node and resolves once its first handshake completed and
 * it sent `capability.ready`. It stays connected (reconnecting with backoff)
 * until `close()` is called on the returned client.
 *
 * `task.execute` is answered `ok:true` with `{result: {echoed: <payload>}}`.
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
    token: options.token,
    credentials: options.credentials ?? "bearer",
    role: "node",
    identity,
    capabilities,
    device: { label: "svc-gateway demo node", platform: process.platform, mode: "node" }
  })
  const host = new URL(client.url).host
  const ids = capabilities.map((capability) => capability.id).join(", ")

  client.onRequest("task.execute", (payload) => ({ result: { echoed: payload } }))

  const declareReady = async (): Promise<void> => {
    try {
      await client.request("capability.ready", { capabilities })
      log(`[node] capabilities ready: ${ids}`)
    } catch (error) {
      log(`[node] capability.ready failed: ${error instanceof Error ? error.message : String(error)}`)
    }
  }

  client.on("connected", (info) => {
    log(`[node] ${info.reconnected ? "reconnected" : "connected"} to ${host} as ${info.device_id} (client ${info.client_id})`)
    if (info.reconnected) void declareReady()
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
  await declareReady()
  return client
}
