/**
 * The gateway's WebSocket client for Node (gateway-api.md "WebSocket API"; reference §2.8, §5.1–5.3): the
 * transport-independent core ({@link GatewayClientCore}, `GatewayClientCore.ts`) with the `ws` package as its
 * socket factory by default (`nodeSocket.ts`: upgrade headers for bearer and cookie credentials, the HTTP
 * status of a refused upgrade). Browsers and Deno use the core through `browser.ts`.
 */
import { connectWith, GatewayClientCore } from "./GatewayClientCore.ts"
import { nodeSocketFactory } from "./nodeSocket.ts"
import type { GatewayClientOptions } from "./types.ts"

export * from "./errors.ts"
export * from "./scopedToken.ts"
export * from "./transport.ts"
export type * from "./types.ts"
export { connectWith, GatewayClientCore } from "./GatewayClientCore.ts"

/**
 * A connection to the gateway's WebSocket API (see {@link GatewayClientCore} for the methods). Create it,
 * register handlers and listeners, then `await connect()`. Sockets come from the `ws` package unless
 * `options.socket` says otherwise.
 *
 * ```ts
 * const client = new GatewayClient({ url: "http://127.0.0.1:8788", token, role: "client", identity })
 * client.on("event", (e) => console.log(e.type))
 * await client.connect()
 * await client.request("ping")
 * await client.close()
 * ```
 *
 * @throws GatewayClientError `invalid_options` (see {@link GatewayClientCore}'s constructor).
 */
export class GatewayClient extends GatewayClientCore {
  constructor(options: GatewayClientOptions) {
    super(options.socket === undefined ? { ...options, socket: nodeSocketFactory } : options)
  }
}

/**
 * Creates a {@link GatewayClient} and connects it.
 *
 * @throws the errors of {@link GatewayClient.connect} (the client is closed first).
 */
export const connectGateway = (options: GatewayClientOptions): Promise<GatewayClient> =>
  connectWith(new GatewayClient(options))
