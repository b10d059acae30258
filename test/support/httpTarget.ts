/**
 * A local HTTP server for workflow steps to call (Http steps, playbooks,
 * watchers): it answers every request 200 with a JSON body and records
 * `"<METHOD> <path>"` of each, in order.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

/** A running {@link startHttpTarget} server. */
export interface HttpTarget {
  /** `http://127.0.0.1:<port>/` (with the trailing slash). */
  readonly url: string
  /** `"<METHOD> <path>"` of every request so far, oldest first. */
  readonly calls: Array<string>
  readonly close: () => Promise<void>
}

/** Starts a target on 127.0.0.1, port 0; `body(n)` is the JSON answered to the n-th request (1-based; default `{ok: true}`). */
export const startHttpTarget = async (body: (n: number) => unknown = () => ({ ok: true })): Promise<HttpTarget> => {
  const calls: Array<string> = []
  const server = createServer((req, res) => {
    calls.push(`${req.method} ${req.url}`)
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body(calls.length)))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
