/**
 * The user journey on one gateway with the real secret store (db
 * provider, master key in $SVC_HOME), auth profiles and provider OAuth wired
 * as `serve` wires them: store a secret, create a profile that uses it,
 * rotate the secret and see the profile follow, run the OAuth flow against a
 * local authorization server and see the oauth profile created, revoke a
 * secret and see its profile disabled. No stored value ever appears in a
 * response or in the log.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { writeFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { AuthProfiles } from "../../services/auth-profiles/AuthProfiles.ts"
import { postJson, startGateway, type StructuredLog, testSettings, type TestGateway } from "../support/gateway.ts"

const VALUES = ["sk-journey-FIRST-0001", "sk-journey-SECOND-0002"]
const ACCESS = "at-journey-ACCESS-0003"
const REFRESH = "rt-journey-REFRESH-0004"

let gw: TestGateway
let authServer: Server
const logs: Array<StructuredLog> = []
const bodies: Array<string> = []

beforeAll(async () => {
  authServer = createServer((req, res) => {
    let body = ""
    req.on("data", (c) => (body += c))
    req.on("end", () => {
      const form = new URLSearchParams(body)
      res.writeHead(form.get("code") === "good-code" && form.get("code_verifier") ? 200 : 400, { "content-type": "application/json" })
      res.end(JSON.stringify({ access_token: ACCESS, refresh_token: REFRESH, token_type: "Bearer", expires_in: 3600 }))
    })
  })
  await new Promise<void>((resolve) => authServer.listen(0, "127.0.0.1", resolve))
  const port = (authServer.address() as AddressInfo).port
  const base = testSettings()
  const config = join(base.home, "oauth-providers.yml")
  writeFileSync(config, [
    "providers:",
    "  - id: testprov",
    `    authorize_url: http://127.0.0.1:${port}/authorize`,
    `    token_url: http://127.0.0.1:${port}/token`,
    "    client_id: journey-client",
    "    scopes: [profile]"
  ].join("\n"))
  // Debug: every log line the gateway can write is captured and searched for the values.
  gw = await startGateway({ home: base.home, oauthProvidersConfig: config, logLevel: "Debug" }, undefined, { logs })
})
afterAll(async () => {
  await gw.close()
  authServer.close()
})

const auth = () => ({ headers: { authorization: `Bearer ${gw.adminToken}` } })
const json = async (res: Response) => {
  const text = await res.text()
  bodies.push(text)
  return { status: res.status, body: text.startsWith("{") ? JSON.parse(text) : text }
}

describe("secrets → auth profile → rotation → OAuth", () => {
  it("follows a rotation, creates the oauth profile, disables on revoke, and never shows a value", async () => {
    const stored = await json(await postJson(gw, "/secrets", { scope: "openai-key", value: VALUES[0] }, gw.adminToken))
    expect(stored.status).toBe(201)
    const first = stored.body.handle.handle_id as string

    const created = await json(await postJson(gw, "/auth/profiles", {
      agent_id: "default",
      provider: "openai",
      type: "api_key",
      secret_handles: { api_key: first }
    }, gw.adminToken))
    expect(created.status).toBe(201)
    const profileId = created.body.profile.auth_profile_id as string

    const rotated = await json(await postJson(gw, `/secrets/${first}/rotate`, { value: VALUES[1] }, gw.adminToken))
    expect(rotated.status).toBe(201)
    expect(rotated.body.revoked).toBe(true)
    const second = rotated.body.handle.handle_id as string
    expect(second).not.toBe(first)

    const profiles = await json(await gw.fetch("/auth/profiles?provider=openai", auth()))
    const profile = profiles.body.profiles.find((p: { auth_profile_id: string }) => p.auth_profile_id === profileId)
    expect(profile).toMatchObject({ status: "active", secret_handles: { api_key: second } })
    const selected = await gw.run(Effect.flatMap(AuthProfiles, (a) => a.select("default", "session-1", "openai")))
    expect(selected && Redacted.value(selected.credential)).toBe(VALUES[1])

    // OAuth against the local authorization server.
    const authorized = await json(await postJson(gw, "/providers/testprov/oauth/authorize", { public_base_url: gw.url }, gw.adminToken))
    expect(authorized.status).toBe(200)
    const url = new URL(authorized.body.authorize_url)
    expect(url.searchParams.get("code_challenge_method")).toBe("S256")
    const state = authorized.body.state as string
    const callback = await json(await gw.fetch(`/providers/testprov/oauth/callback?state=${encodeURIComponent(state)}&code=good-code`))
    expect(callback.status).toBe(200)
    const replay = await json(await gw.fetch(`/providers/testprov/oauth/callback?state=${encodeURIComponent(state)}&code=good-code`))
    expect(replay.status).toBe(400)
    const oauthProfiles = await json(await gw.fetch("/auth/profiles?provider=testprov", auth()))
    expect(oauthProfiles.body.profiles).toHaveLength(1)
    expect(oauthProfiles.body.profiles[0]).toMatchObject({ type: "oauth", status: "active" })
    const oauthSelected = await gw.run(Effect.flatMap(AuthProfiles, (a) => a.select("default", "session-1", "testprov")))
    expect(oauthSelected && Redacted.value(oauthSelected.credential)).toBe(ACCESS)

    // Revoking the rotated handle disables the profile that uses it.
    const revoked = await json(await gw.fetch(`/secrets/${second}`, { method: "DELETE", ...auth() }))
    expect(revoked.body).toEqual({ revoked: true })
    const after = await json(await gw.fetch("/auth/profiles?provider=openai", auth()))
    expect(after.body.profiles.find((p: { auth_profile_id: string }) => p.auth_profile_id === profileId).status).toBe("disabled")

    const listed = await json(await gw.fetch("/secrets", auth()))
    expect(listed.status).toBe(200)

    expect(logs.length).toBeGreaterThan(0)
    const everything = JSON.stringify(logs) + bodies.join("\n")
    for (const value of [...VALUES, ACCESS, REFRESH]) expect(everything).not.toContain(value)
  })
})
