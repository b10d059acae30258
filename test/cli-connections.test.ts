/**
 * Connection hardening of `svc-gateway serve` as a real process (issue #7 §2):
 * slow bodies are never read before authentication, Node's header/request
 * timeouts and the connection cap apply, SIGTERM closes idle and slow
 * connections at once and answers keep-alive clients with `Connection: close`,
 * and a client that aborts is no server error.
 */
import { describe, expect, it } from "@effect/vitest"
import { request as httpRequest, Agent } from "node:http"
import { connect, type Socket } from "node:net"
import { home, run, type Run, started } from "./support/cli.ts"
import { eventually } from "./support/eventually.ts"

const TOKEN = "c".repeat(64)

/** A raw TCP connection to the gateway that records what it receives and when it closes. */
interface RawClient {
  readonly socket: Socket
  received: string
  readonly closed: Promise<void>
}

const rawClient = (url: string): Promise<RawClient> => {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname)
    const client: RawClient = {
      socket,
      received: "",
      closed: new Promise((done) => socket.on("close", () => done()))
    }
    socket.on("data", (d) => (client.received += d.toString()))
    socket.on("error", () => {})
    socket.once("connect", () => resolve(client))
    socket.once("error", reject)
  })
}

const serve = async (env: Record<string, string> = {}): Promise<{ r: Run; url: string }> => {
  const r = run(["serve", "--port", "0"], { SVC_HOME: home(), SVC_ADMIN_TOKEN: TOKEN, ...env })
  const info = await started(r)
  return { r, url: info.url }
}

const slowPost = (path: string, headers: string, declaredLength: number) =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${declaredLength}\r\n${headers}\r\n{`

describe("slow clients", () => {
  it("answers an unauthenticated slow body with 401 at once, and SIGTERM does not wait for it", async () => {
    const { r, url } = await serve()
    try {
      const client = await rawClient(url)
      client.socket.write(slowPost("/auth/device-tokens/issue", "", 16_000))
      const trickle = setInterval(() => client.socket.write(" "), 200)
      try {
        await eventually(() => client.received.includes("\r\n\r\n"), "the 401")
        expect(client.received).toMatch(/^HTTP\/1\.1 401 /)
        const signalled = Date.now()
        r.child.kill("SIGTERM")
        expect(await r.exited).toBe(0)
        await client.closed
        // Node's graceful shutdown waits up to 20 s for open connections; the slow one was not waited for.
        expect(Date.now() - signalled).toBeLessThan(15_000)
      } finally {
        clearInterval(trickle)
      }
    } finally {
      r.child.kill("SIGKILL")
    }
  })

  it("closes a connection that does not finish its headers within SVC_HEADERS_TIMEOUT_MS", async () => {
    const { r, url } = await serve({ SVC_HEADERS_TIMEOUT_MS: "500", SVC_REQUEST_TIMEOUT_MS: "1000" })
    try {
      const client = await rawClient(url)
      client.socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
      await client.closed
      expect(client.received).toMatch(/^HTTP\/1\.1 408 /)
    } finally {
      r.child.kill("SIGKILL")
    }
  })

  it("closes an authenticated request whose body does not arrive within SVC_REQUEST_TIMEOUT_MS", async () => {
    const { r, url } = await serve({ SVC_HEADERS_TIMEOUT_MS: "500", SVC_REQUEST_TIMEOUT_MS: "1000" })
    try {
      const client = await rawClient(url)
      client.socket.write(slowPost("/policy/check", `Authorization: Bearer ${TOKEN}\r\n`, 100))
      await client.closed
      expect(client.received).not.toMatch(/^HTTP\/1\.1 200 /)
    } finally {
      r.child.kill("SIGKILL")
    }
  })

  it("drops connections above SVC_MAX_CONNECTIONS and accepts again once one closes", async () => {
    const { r, url } = await serve({ SVC_MAX_CONNECTIONS: "2" })
    try {
      const a = await rawClient(url)
      const b = await rawClient(url)
      // Both are accepted: each answers a request.
      for (const c of [a, b]) c.socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
      await eventually(() => a.received.includes("\"ok\"") && b.received.includes("\"ok\""), "both answers")
      const third = await rawClient(url)
      third.socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
      await third.closed
      expect(third.received).toBe("")
      a.socket.destroy()
      await a.closed
      // The server frees the slot when it sees the close: retry until a new connection is served.
      const deadline = Date.now() + 5_000
      let served = false
      while (!served && Date.now() < deadline) {
        const next = await rawClient(url)
        next.socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        await next.closed
        served = next.received.includes("\"ok\"")
      }
      expect(served).toBe(true)
      b.socket.destroy()
    } finally {
      r.child.kill("SIGKILL")
    }
  })
})

describe("SIGTERM with keep-alive clients", () => {
  it("closes idle keep-alive connections at once and exits promptly", async () => {
    const { r, url } = await serve()
    try {
      const agent = new Agent({ keepAlive: true, maxSockets: 8 })
      const get = () =>
        new Promise<string | undefined>((resolve, reject) => {
          const req = httpRequest(`${url}/healthz`, { agent }, (res) => {
            res.resume()
            res.on("end", () => resolve(res.headers.connection))
          })
          req.on("error", reject)
          req.end()
        })
      const answers = await Promise.all(Array.from({ length: 8 }, get))
      expect(answers.every((c) => c === "keep-alive")).toBe(true)
      const signalled = Date.now()
      r.child.kill("SIGTERM")
      expect(await r.exited).toBe(0)
      expect(Date.now() - signalled).toBeLessThan(15_000)
      agent.destroy()
    } finally {
      r.child.kill("SIGKILL")
    }
  })
})

describe("client aborts", () => {
  it("are not logged as errors (no 500 path)", async () => {
    const { r, url } = await serve({ SVC_LOG_LEVEL: "Info" })
    try {
      for (const framing of ["Content-Length: 100\r\n", "Transfer-Encoding: chunked\r\n", "Content-Length: 40000\r\n"]) {
        const client = await rawClient(url)
        client.socket.write(`POST /policy/check HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\n${framing}\r\n`)
        client.socket.write(framing.startsWith("Transfer") ? "5\r\n{\"spe\r\n" : "{\"spe")
        await new Promise((resolve) => setTimeout(resolve, 50))
        client.socket.destroy()
        await client.closed
      }
      // The gateway still serves, and a later request flushes any log of the aborts.
      const health = await fetch(`${url}/healthz`)
      expect(health.status).toBe(200)
      r.child.kill("SIGTERM")
      expect(await r.exited).toBe(0)
      expect(r.stdout).not.toContain("\"level\":\"ERROR\"")
      expect(r.stdout).not.toContain("request failed")
    } finally {
      r.child.kill("SIGKILL")
    }
  })
})
