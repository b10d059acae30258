/**
 * The Node transport of the client: a {@link GatewaySocketFactory} over the `ws` package, which can send
 * upgrade headers (bearer and cookie credentials, `Origin`), reports the HTTP status of a refused upgrade
 * and drops a connection at once (`terminate`). The default of Node's `GatewayClient`.
 */
import WebSocket, { type RawData } from "ws"
import type { GatewaySocketFactory } from "./socket.ts"

const rawToString = (data: RawData): string =>
  Buffer.isBuffer(data)
    ? data.toString("utf8")
    : Array.isArray(data)
      ? Buffer.concat(data).toString("utf8")
      : Buffer.from(data).toString("utf8")

/** Sockets from the `ws` package (headers, `origin`, `handshakeTimeout`, upgrade status, terminate). */
export const nodeSocketFactory: GatewaySocketFactory = {
  headers: true,
  open: (request, listeners) => {
    const socket = new WebSocket(request.url, [...request.protocols], {
      headers: { ...request.headers },
      ...(request.origin === undefined ? {} : { origin: request.origin }),
      handshakeTimeout: request.handshakeTimeoutMs
    })
    let httpStatus: number | undefined
    let lastError: Error | undefined
    socket.on("unexpected-response", (_request, response) => {
      httpStatus = response.statusCode
      response.resume()
      socket.terminate()
    })
    socket.on("error", (error) => {
      lastError = error
    })
    socket.on("open", () => listeners.open())
    socket.on("message", (data) => listeners.message(rawToString(data)))
    socket.on("close", (code, reason) =>
      listeners.close({ code, reason: reason.toString("utf8"), httpStatus, error: lastError })
    )
    return {
      isOpen: () => socket.readyState === WebSocket.OPEN,
      protocol: () => socket.protocol,
      send: (text, onError) =>
        socket.send(text, (error) => {
          if (error !== undefined && error !== null) onError(error)
        }),
      close: (code, reason) => socket.close(code, reason),
      terminate: () => socket.terminate()
    }
  }
}
