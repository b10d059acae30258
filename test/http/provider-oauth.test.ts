/**
 * Provider OAuth over HTTP on a real server, against a fake authorization
 * server (node:http on 127.0.0.1, port 0): authorize (S256, state, redirect),
 * the public callback (success, replayed, expired on the test clock, wrong
 * provider, provider error, missing parameters), the token endpoint's error
 * and timeout, and the composition root's wiring (no providers, auth
 * profiles off). The secret store and auth profiles are in-memory fakes.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Layer, Redacted } from "effect"
import { FetchHttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { AuthProfiles } from "../../services/auth-profiles/AuthProfiles.ts"
import { type OAuthProviderConfig, ProviderOAuthConfig } from "../../services/provider-oauth/config.ts"
import { PendingRepo } from "../../services/provider-oauth/PendingRepo.ts"
import { challengeS256 } from "../../services/provider-oauth/pkce.ts"
import { ProviderOAuth } from "../../services/provider-oauth/ProviderOAuth.ts"
import { SecretResolver, SecretStore } from "../../services/secrets/SecretStore.ts"
import { NotFound } from "../../services/shared/errors.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"

// --- the fake authorization server ----------------------------------------------------------------------------------

type Mode = "ok" | "error" | "slow" | "garbage"
interface TokenCall {
  readonly path: string
  readonly contentType: string | undefined
  readonly form: Record<string, string>
}

let auth: { server: Server; url: string; mode: Mode; calls: Array<TokenCall> }

const startAuthServer = () =>
  new Promise<typeof auth>((resolve) => {
    const state = { mode: "ok" as Mode, calls: [] as Array<TokenCall> }
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      let body = ""
      req.on("data", (chunk) => (body += chunk))
      req.on("end", () => {
        const form = Object.fromEntries(new URLSearchParams(body))
        state.calls.push({ path: req.url ?? "", contentType: req.headers["content-type"], form })
        const send = (status: number, json: unknown) => {
          res.writeHead(status, { "content-type": "application/json" })
          res.end(typeof json === "string" ? json : JSON.stringify(json))
        }
        switch (current.mode) {
          case "ok":
            return send(200, {
              access_token: `at-${form.code}`,
              refresh_token: `rt-${form.code}`,
              token_type: "Bearer",
              expires_in: 3600
            })
          case "error":
            return send(400, { error: "invalid_grant", error_description: "<b>code expired</b>" })
          case "garbage":
            return send(200, "not json")
          case "slow":
            return void setTimeout(() => send(200, { access_token: "late" }), 1_000)
        }
      })
    })
    const current = { server, url: "", ...state }
    server.listen(0, "127.0.0.1", () => {
      current.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      resolve(current)
    })
  })

// --- in-memory secret store and auth profiles -----------------------------------------------------------------------

interface Stored {
  readonly handle_id: string
  readonly scope: string
  readonly value: string
  readonly agent_id: string | undefined
}
const stored: Array<Stored> = []
const upserts: Array<Record<string, unknown>> = []
const CLIENT_SECRET_HANDLE = "sh_client"

const fakes = Layer.mergeAll(
  Layer.succeed(SecretStore, {
    store: (input: { scope: string; value?: Redacted.Redacted<string>; agent_id?: string }) =>
      Effect.sync(() => {
        const handle = { handle_id: `sh_${stored.length + 1}`, provider: "db", scope: input.scope, created_at: "2026-01-01T00:00:00.000Z" }
        stored.push({ handle_id: handle.handle_id, scope: input.scope, value: Redacted.value(input.value!), agent_id: input.agent_id })
        return handle
      }),
    get: (handleId: string) =>
      handleId === CLIENT_SECRET_HANDLE
        ? Effect.succeed({ handle_id: handleId, provider: "db", scope: "oauth:client", created_at: "2026-01-01T00:00:00.000Z" })
        : Effect.fail(new NotFound({ message: `secret handle ${handleId} not found` }))
  } as never),
  Layer.succeed(SecretResolver, {
    resolve: (handleId: string) =>
      handleId === CLIENT_SECRET_HANDLE
        ? Effect.succeed(Redacted.make("client-s3cret"))
        : Effect.fail(new NotFound({ message: `secret handle ${handleId} not found` })),
    resolveChecked: () => Effect.die("unused by provider OAuth")
  }),
  Layer.succeed(AuthProfiles, {
    upsertOAuth: (input: Record<string, unknown>) =>
      Effect.sync(() => {
        upserts.push(input)
        return { auth_profile_id: `ap_${upserts.length}`, ...input }
      })
  } as never)
)

const providers = (): ReadonlyArray<OAuthProviderConfig> => [
  {
    id: "acme",
    authorize_url: "https://auth.acme.test/authorize?audience=api",
    token_url: `${auth.url}/token`,
    client_id: "acme-client",
    client_secret_handle: CLIENT_SECRET_HANDLE,
    scopes: ["openid", "offline_access"]
  },
  { id: "public", authorize_url: "https://auth.public.test/authorize", token_url: `${auth.url}/public-token`, client_id: "pc" },
  {
    id: "nosecret",
    authorize_url: "https://auth.nosecret.test/authorize",
    token_url: `${auth.url}/token`,
    client_id: "c",
    client_secret_handle: "sh_missing"
  }
]

/**
 * ProviderOAuth over the fakes, the fake server and the gateway's own database and settings (`Layer.fresh`: the
 * gateway's own row builds `layerNoDeps` too, and layers are memoized by reference).
 */
const oauthOverride = (tokenTimeout: Duration.Input = "5 seconds") =>
  Layer.fresh(ProviderOAuth.layerNoDeps).pipe(
    Layer.provide([
      PendingRepo.layer,
      ProviderOAuthConfig.make({ providers: providers(), tokenTimeout }),
      FetchHttpClient.layer,
      fakes
    ])
  ) as unknown as Layer.Layer<any, never, never>

let gw: TestGateway
beforeAll(async () => {
  auth = await startAuthServer()
  gw = await startGateway({}, undefined, { clock: "test", override: oauthOverride() })
})
afterAll(async () => {
  await gw.close()
  await new Promise((resolve) => auth.server.close(resolve))
})

const authorize = (provider: string, body: unknown = {}, token: string | undefined = gw.adminToken) =>
  postJson(gw, `/providers/${provider}/oauth/authorize`, body, token)

const start = async (provider = "acme", body: Record<string, unknown> = { agent_id: "agent-1", public_base_url: "https://gw.example.com/base/" }) => {
  const res = await authorize(provider, body)
  expect(res.status).toBe(200)
  return readJson(res) as Promise<{ status: string; provider: string; state: string; expires_at: string; authorize_url: string }>
}

const callback = (provider: string, query: Record<string, string>) =>
  gw.fetch(`/providers/${provider}/oauth/callback?${new URLSearchParams(query)}`)

const expectPage = async (res: Response, status: number) => {
  expect(res.status).toBe(status)
  expect(res.headers.get("content-type")).toMatch(/^text\/html/)
  expect(res.headers.get("content-security-policy")).toContain("default-src 'none'")
  expect(res.headers.get("cache-control")).toBe("no-store")
  return res.text()
}

describe("POST /providers/:provider/oauth/authorize", () => {
  it("answers the authorize URL with an S256 challenge, a random state and the callback redirect", async () => {
    const body = await start()
    expect(body.status).toBe("ok")
    expect(body.provider).toBe("acme")
    expect(body.state).toMatch(/^[A-Za-z0-9_-]{43}$/)
    // The test clock starts at the epoch: 10 minutes.
    expect(body.expires_at).toBe("1970-01-01T00:10:00.000Z")
    const url = new URL(body.authorize_url)
    expect(url.origin + url.pathname).toBe("https://auth.acme.test/authorize")
    expect(Object.fromEntries(url.searchParams)).toEqual({
      audience: "api",
      response_type: "code",
      client_id: "acme-client",
      redirect_uri: "https://gw.example.com/base/providers/acme/oauth/callback",
      state: body.state,
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge_method: "S256",
      scope: "openid offline_access"
    })
    expect((await start()).state).not.toBe(body.state)
  })

  it("defaults the redirect to the gateway's own address and the agent to default", async () => {
    const body = await start("public", {})
    const redirect = new URL(body.authorize_url).searchParams.get("redirect_uri")
    expect(redirect).toBe(`http://127.0.0.1:${gw.settings.port}/providers/public/oauth/callback`)
  })

  it("answers 404 for an unconfigured provider, 400 for a bad public_base_url or a missing client secret", async () => {
    const unknown = await authorize("nope")
    expect(unknown.status).toBe(404)
    expect((await readJson(unknown)).error).toBe("not_found")
    for (const base of ["ftp://gw.example.com", "https://gw.example.com/?x=1", "https://gw.example.com/#f", "gw.example.com", "https://u:p@gw.example.com"]) {
      const res = await authorize("acme", { public_base_url: base })
      expect(res.status, base).toBe(400)
      expect((await readJson(res)).error).toBe("invalid_request")
    }
    const missing = await authorize("nosecret")
    expect(missing.status).toBe(400)
    expect((await readJson(missing)).message).toContain("sh_missing")
    expect((await authorize("acme", { agent_id: "bad agent" })).status).toBe(400)
  })

  it("needs a token", async () => {
    expect((await postJson(gw, "/providers/acme/oauth/authorize", {})).status).toBe(401)
  })
})

describe("GET /providers/:provider/oauth/callback (public)", () => {
  it("exchanges the code with the verifier, stores the tokens as secrets and upserts the oauth profile; the state is single use", async () => {
    const { authorize_url, state } = await start()
    const challenge = new URL(authorize_url).searchParams.get("code_challenge")!
    auth.mode = "ok"
    auth.calls.length = 0
    stored.length = 0
    upserts.length = 0

    const html = await expectPage(await callback("acme", { state, code: "c0de" }), 200)
    expect(html).toContain("Provider connected")
    expect(html).toContain("agent-1")
    expect(html).not.toContain("at-c0de")
    expect(html).not.toContain("rt-c0de")

    expect(auth.calls).toHaveLength(1)
    const call = auth.calls[0]
    expect(call.path).toBe("/token")
    expect(call.contentType).toMatch(/^application\/x-www-form-urlencoded/)
    expect(call.form).toEqual({
      grant_type: "authorization_code",
      code: "c0de",
      redirect_uri: "https://gw.example.com/base/providers/acme/oauth/callback",
      client_id: "acme-client",
      client_secret: "client-s3cret",
      code_verifier: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/)
    })
    expect(challengeS256(call.form.code_verifier)).toBe(challenge)

    expect(stored).toEqual([
      { handle_id: "sh_1", scope: "oauth:acme:agent-1:access", value: "at-c0de", agent_id: "agent-1" },
      { handle_id: "sh_2", scope: "oauth:acme:agent-1:refresh", value: "rt-c0de", agent_id: "agent-1" }
    ])
    expect(upserts).toEqual([{ agent_id: "agent-1", provider: "acme", access_token: "sh_1", refresh_token: "sh_2" }])

    // Replayed: 400, no second exchange.
    const replay = await expectPage(await callback("acme", { state, code: "c0de" }), 400)
    expect(replay).toContain("invalid, expired or already used")
    expect(auth.calls).toHaveLength(1)
  })

  it("a public client sends no client secret", async () => {
    const { state } = await start("public", { public_base_url: "http://localhost:1234" })
    auth.mode = "ok"
    auth.calls.length = 0
    await expectPage(await callback("public", { state, code: "p" }), 200)
    expect(auth.calls[0].path).toBe("/public-token")
    expect(auth.calls[0].form.client_secret).toBeUndefined()
  })

  it("rejects a state on another provider's callback without spending it", async () => {
    const { state } = await start()
    auth.mode = "ok"
    auth.calls.length = 0
    await expectPage(await callback("public", { state, code: "x" }), 400)
    await expectPage(await callback("unknown-provider", { state, code: "x" }), 400)
    expect(auth.calls).toHaveLength(0)
    await expectPage(await callback("acme", { state, code: "x" }), 200)
  })

  it("rejects an expired state (10 minutes, test clock)", async () => {
    const { state } = await start()
    const fresh = await start()
    await gw.run(TestClock.adjust(Duration.sum(Duration.minutes(10), Duration.millis(1))))
    auth.calls.length = 0
    await expectPage(await callback("acme", { state, code: "x" }), 400)
    await expectPage(await callback("acme", { state: fresh.state, code: "x" }), 400)
    expect(auth.calls).toHaveLength(0)
  })

  it("answers 400 for missing parameters", async () => {
    const { state } = await start()
    await expectPage(await callback("acme", { code: "x" }), 400)
    const noCode = await expectPage(await callback("acme", { state }), 400)
    expect(noCode).toContain("code parameter is missing")
    // The state was not spent by the incomplete call.
    auth.mode = "ok"
    await expectPage(await callback("acme", { state, code: "x" }), 200)
  })

  it("shows the provider's error on the failure page, escaped", async () => {
    const { state } = await start()
    auth.calls.length = 0
    const html = await expectPage(
      await callback("acme", { state, error: "access_denied", error_description: "<script>alert(1)</script>" }),
      200
    )
    expect(html).toContain("Provider connection failed")
    expect(html).toContain("access_denied")
    expect(html).not.toContain("<script>alert")
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;")
    expect(auth.calls).toHaveLength(0)
    await expectPage(await callback("acme", { state, code: "x" }), 400)
  })

  it("answers the failure page when the token endpoint rejects the code or answers garbage", async () => {
    stored.length = 0
    auth.mode = "error"
    const { state } = await start()
    const html = await expectPage(await callback("acme", { state, code: "bad" }), 200)
    expect(html).toContain("invalid_grant")
    expect(html).toContain("&lt;b&gt;code expired&lt;/b&gt;")
    expect(html).not.toContain("<b>code")
    auth.mode = "garbage"
    const second = await start()
    expect(await expectPage(await callback("acme", { state: second.state, code: "x" }), 200)).toContain("invalid_token_response")
    expect(stored).toEqual([])
    auth.mode = "ok"
  })
})

describe("token endpoint timeout", () => {
  it("answers the failure page when the token endpoint is too slow", async () => {
    const live = await startGateway({}, undefined, { override: oauthOverride("200 millis") })
    try {
      auth.mode = "slow"
      const res = await postJson(live, "/providers/acme/oauth/authorize", { public_base_url: live.url }, live.adminToken)
      const { state } = await readJson(res)
      const started = Date.now()
      const page = await live.fetch(`/providers/acme/oauth/callback?state=${state}&code=slow`)
      expect(page.status).toBe(200)
      expect(await page.text()).toContain("token_exchange_timeout")
      expect(Date.now() - started).toBeLessThan(900)
    } finally {
      auth.mode = "ok"
      await live.close()
    }
  })
})

describe("wiring (src/app/gateway.ts)", () => {
  it("authorize answers 404 with no providers configured, and when auth profiles are off", async () => {
    const plain = await startGateway()
    try {
      const res = await postJson(plain, "/providers/acme/oauth/authorize", {}, plain.adminToken)
      expect(res.status).toBe(404)
      const cb = await plain.fetch("/providers/acme/oauth/callback?state=x&code=y")
      expect(cb.status).toBe(400)
      expect(cb.headers.get("content-type")).toMatch(/^text\/html/)
    } finally {
      await plain.close()
    }
    const off = await startGateway({ authProfilesEnabled: false })
    try {
      const res = await postJson(off, "/providers/acme/oauth/authorize", {}, off.adminToken)
      expect(res.status).toBe(404)
      expect((await readJson(res)).message).toContain("auth profiles are disabled")
    } finally {
      await off.close()
    }
  })
})
