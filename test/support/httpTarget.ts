/**
 * A local HTTP server for workflow steps to call (Http steps, playbooks,
 * watchers): it answers every request 200 with a JSON body and records
 * `"<METHOD> <path>"` of each, in order, and each request's headers.
 */
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"

/** A running {@link startHttpTarget} server. */
export interface HttpTarget {
  /** `http://127.0.0.1:<port>/` (with the trailing slash). */
  readonly url: string
  /** `"<METHOD> <path>"` of every request so far, oldest first. */
  readonly calls: Array<string>
  /** The headers of every request so far (lower-case names, as Node gives them), oldest first. */
  readonly headers: Array<IncomingHttpHeaders>
  readonly close: () => Promise<void>
}

/**
 * Starts a target on 127.0.0.1, port 0; `body(n)` is the JSON answered to the
 * n-th request (1-based; default `{ok: true}`), with `responseHeaders` besides
 * `content-type`.
 */
export const startHttpTarget = async (
  body: (n: number) => unknown = () => ({ ok: true }),
  responseHeaders: Readonly<Record<string, string>> = {}
): Promise<HttpTarget> => {
  const calls: Array<string> = []
  const headers: Array<IncomingHttpHeaders> = []
  const server = createServer((req, res) => {
    calls.push(`${req.method} ${req.url}`)
    headers.push(req.headers)
    res.writeHead(200, { ...responseHeaders, "content-type": "application/json" }).end(JSON.stringify(body(calls.length)))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    calls,
    headers,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
