/** WebSocket transport settings (docs/websocket.md). */
import { Context, Duration, Effect, Layer } from "effect"
import { GatewayConfig } from "../../layers/config.ts"

/** Limits and timers of the WS transport; every value is configurable. */
export interface WsSettings {
  /** Time from upgrade to a verified `connect.proof` before closing 4002 (default 10 s). */
  readonly handshakeTimeout: Duration.Duration
  /** Interval of WS ping frames (default 5 s). */
  readonly pingInterval: Duration.Duration
  /** A peer silent (no pong, no message) for this long is terminated (default 10 s). */
  readonly pongTimeout: Duration.Duration
  /** Largest accepted message in bytes; larger closes with 1009 (default 1 MiB). */
  readonly maxPayloadBytes: number
  /** Outbound mailbox capacity in messages; overflow closes with 1013 (default 1024). */
  readonly mailboxCapacity: number
  /** Bytes buffered in the socket above which the peer counts as a slow consumer (default 4 MiB). */
  readonly maxBufferedBytes: number
}

/** Defaults of {@link WsSettings}. */
export const defaultWsSettings: WsSettings = {
  handshakeTimeout: Duration.seconds(10),
  pingInterval: Duration.seconds(5),
  pongTimeout: Duration.seconds(10),
  maxPayloadBytes: 1_048_576,
  mailboxCapacity: 1024,
  maxBufferedBytes: 4 * 1_048_576
}

/** The WS settings in force. */
export class WsConfig extends Context.Service<WsConfig, WsSettings>()("svc-gateway/ws/WsConfig") {
  /** From `GatewayConfig` (`SVC_WS_*`); mailbox limits at their defaults. */
  static readonly layer = Layer.effect(
    WsConfig,
    Effect.map(GatewayConfig, (s): WsSettings => ({
      ...defaultWsSettings,
      handshakeTimeout: Duration.millis(s.wsHandshakeTimeoutMs),
      pingInterval: Duration.millis(s.wsPingIntervalMs),
      pongTimeout: Duration.millis(s.wsPongTimeoutMs),
      maxPayloadBytes: s.wsMaxMessageBytes
    }))
  )
}
