/**
 * A local HTTP server (127.0.0.1, random port) for durability tests: it
 * counts the requests it receives and the responses it completed, per path.
 * Paths under `/block/` are held open (never answered) until `release()`;
 * after that they are answered at once. A held request whose connection dies
 * (its client was killed) is never answered, so `answered` counts only calls
 * that succeeded from the client's point of view.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/** A running counting server. */
export interface CountingServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  /** Requests received for `path`. */
  readonly requested: (path: string) => number
  /** Responses completed (written in full to a live connection) for `path`. */
  readonly answered: (path: string) => number
  /** Held `/block/` requests whose connection is still open. */
  readonly heldOpen: () => number
  /** The held `/block/` requests still open: path and the client's TCP port (to find the process that sent it). */
  readonly heldFrom: () => ReadonlyArray<{ readonly path: string; readonly clientPort: number }>
  /**
   * Stops holding `/block/` requests and answers the held ones still open, in
   * arrival order: all at once, or one every `spacingMs` milliseconds.
   */
  readonly release: (spacingMs?: number) => void
  /** Calls `listener` with the path each time a response is completed (after it is counted in `answered`). */
  readonly onAnswered: (listener: (path: string) => void) => void
  /** Every path and its counts, for failure messages. */
  readonly summary: () => Record<string, { requested: number; answered: number }>
  readonly close: () => Promise<void>
}

const isOpen = ({ res }: { res: ServerResponse }) => !res.destroyed && res.socket !== null && !res.socket.destroyed

const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1)

/** Starts a {@link CountingServer}. */
export const startCountingServer = async (): Promise<CountingServer> => {
  const requested = new Map<string, number>()
  const answered = new Map<string, number>()
  const held: Array<{ path: string; res: ServerResponse }> = []
  const listeners: Array<(path: string) => void> = []
  let blocking = true

  const answer = (path: string, res: ServerResponse) => {
    if (res.destroyed || res.socket === null || res.socket.destroyed) return
    res.on("finish", () => {
      bump(answered, path)
      for (const listener of listeners) listener(path)
    })
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ path }))
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname
    bump(requested, path)
    if (blocking && path.startsWith("/block/")) held.push({ path, res })
    else answer(path, res)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    requested: (path) => requested.get(path) ?? 0,
    answered: (path) => answered.get(path) ?? 0,
    heldOpen: () => held.filter(isOpen).length,
    heldFrom: () => held.filter(isOpen).map(({ path, res }) => ({ path, clientPort: res.socket!.remotePort! })),
    release: (spacingMs = 0) => {
      blocking = false
      for (const [i, { path, res }] of held.splice(0).entries()) {
        if (spacingMs === 0) answer(path, res)
        else setTimeout(() => answer(path, res), i * spacingMs)
      }
    },
    onAnswered: (listener) => void listeners.push(listener),
    summary: () =>
      Object.fromEntries(
        [...requested.keys()].sort().map((path) => [path, { requested: requested.get(path) ?? 0, answered: answered.get(path) ?? 0 }])
      ),
    close: () => {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(() => resolve()))
    }
  }
}
