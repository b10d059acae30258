/**
 * Where a node keeps the scoped token of its pairing (gateway-api.md "Pairing (node enrollment)";
 * reference §4), without Node built-ins: the store interface and the in-memory store. The file store
 * (Node) is in `scopedToken.ts`. A store never puts the token in an error message.
 */

/** A scoped token and what it is valid for. */
export interface StoredScopedToken {
  /** The token (`svc-node.v1.<base64url>`). Secret: never logged. */
  readonly scoped_token: string
  /** The device it was issued to: it authenticates role `node` with this device id only. */
  readonly device_id: string
  /** WebSocket URL of the gateway that issued it; the SDK sends it nowhere else. */
  readonly gateway: string
  /** The pairing it belongs to, when the `pairing.approved` event named it. */
  readonly pairing_id?: number
}

/**
 * Persistence of a node's scoped token (`fileScopedTokenStore` in Node,
 * {@link memoryScopedTokenStore}). `load` resolves `undefined` when none is
 * stored; errors must not contain the token.
 */
export interface ScopedTokenStore {
  readonly load: () => Promise<StoredScopedToken | undefined>
  readonly save: (token: StoredScopedToken) => Promise<void>
  readonly clear: () => Promise<void>
}

/** A store in memory only (the default of `GatewayClient`): the token lives as long as the client object. */
export const memoryScopedTokenStore = (initial?: StoredScopedToken): ScopedTokenStore => {
  let current = initial
  return {
    load: () => Promise.resolve(current),
    save: (token) => {
      current = token
      return Promise.resolve()
    },
    clear: () => {
      current = undefined
      return Promise.resolve()
    }
  }
}
