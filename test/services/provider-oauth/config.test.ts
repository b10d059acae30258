/**
 * The OAuth providers file: YAML or JSON, from SVC_OAUTH_PROVIDERS_CONFIG or
 * $SVC_HOME/oauth-providers.yml; an invalid file fails the layer (start-up
 * error); no file means no providers.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { GatewayConfig } from "../../../layers/config.ts"
import { ProviderOAuthConfig } from "../../../services/provider-oauth/config.ts"
import { testSettings } from "../../support/gateway.ts"

const home = () => mkdtempSync(join(tmpdir(), "svc-oauth-"))

const load = (settings: { home: string; oauthProvidersConfig?: string }) =>
  Effect.service(ProviderOAuthConfig).pipe(
    Effect.provide(ProviderOAuthConfig.layer.pipe(
      Layer.provide(Layer.succeed(GatewayConfig, testSettings({ ...settings, oauthProvidersConfig: settings.oauthProvidersConfig })))
    ))
  )

const YAML = `providers:
  - id: example
    authorize_url: https://auth.example.com/authorize?audience=api
    token_url: https://auth.example.com/token
    client_id: client-1
    client_secret_handle: sh_123
    scopes: [openid, offline_access]
  - id: public-client
    authorize_url: http://127.0.0.1:9000/authorize
    token_url: http://127.0.0.1:9000/token
    client_id: client-2
`

describe("ProviderOAuthConfig", () => {
  it.effect("reads $SVC_HOME/oauth-providers.yml", () =>
    Effect.gen(function*() {
      const dir = home()
      writeFileSync(join(dir, "oauth-providers.yml"), YAML)
      const config = yield* load({ home: dir })
      expect(config.source).toBe(join(dir, "oauth-providers.yml"))
      expect([...config.providers.keys()]).toEqual(["example", "public-client"])
      expect(config.providers.get("example")).toMatchObject({ client_secret_handle: "sh_123", scopes: ["openid", "offline_access"] })
    }))

  it.effect("reads a JSON file named by SVC_OAUTH_PROVIDERS_CONFIG", () =>
    Effect.gen(function*() {
      const dir = home()
      const path = join(dir, "providers.json")
      writeFileSync(path, JSON.stringify({
        providers: [{ id: "j", authorize_url: "https://a.test/auth", token_url: "https://a.test/token", client_id: "c", scopes: [] }]
      }))
      const config = yield* load({ home: dir, oauthProvidersConfig: path })
      expect(config.providers.get("j")?.client_id).toBe("c")
    }))

  it.effect("has no providers without a file", () =>
    Effect.gen(function*() {
      const config = yield* load({ home: home() })
      expect(config.providers.size).toBe(0)
      expect(config.source).toBeUndefined()
    }))

  it.effect("fails at start on an invalid or missing file", () =>
    Effect.gen(function*() {
      const dir = home()
      const cases: Array<[string, string]> = [
        ["bad.yml", "providers: [\n"],
        ["not-http.yml", "providers:\n  - {id: x, authorize_url: 'ftp://a/b', token_url: 'https://a/t', client_id: c}\n"],
        ["unknown-key.yml", "providers:\n  - {id: x, authorize_url: 'https://a/b', token_url: 'https://a/t', client_id: c, extra: 1}\n"],
        ["dup.yml", "providers:\n  - {id: x, authorize_url: 'https://a/b', token_url: 'https://a/t', client_id: c}\n  - {id: x, authorize_url: 'https://a/b', token_url: 'https://a/t', client_id: c}\n"],
        ["no-client.json", JSON.stringify({ providers: [{ id: "x", authorize_url: "https://a/b", token_url: "https://a/t" }] })]
      ]
      for (const [name, text] of cases) {
        const path = join(dir, name)
        writeFileSync(path, text)
        const error = yield* Effect.flip(load({ home: dir, oauthProvidersConfig: path }))
        expect(error._tag).toBe("OAuthProvidersConfigError")
        expect(error.message).toContain(path)
      }
      const missing = yield* Effect.flip(load({ home: dir, oauthProvidersConfig: join(dir, "absent.yml") }))
      expect(missing.message).toContain("cannot read the file")
      // An invalid file in $SVC_HOME is a start-up error too.
      writeFileSync(join(dir, "oauth-providers.yml"), "providers: 3\n")
      const inHome = yield* Effect.flip(load({ home: dir }))
      expect(inHome.message).toContain("oauth-providers.yml")
    }))
})

