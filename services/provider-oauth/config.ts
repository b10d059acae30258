/**
 * The OAuth providers (docs/provider-oauth.md "Configuration"), loaded once at
 * start from `SVC_OAUTH_PROVIDERS_CONFIG` (setting `oauthProvidersConfig`),
 * else `$SVC_HOME/oauth-providers.yml` (then `.yaml`, `.json`) when it
 * exists:
 *
 * ```yaml
 * providers:
 *   - id: example
 *     authorize_url: https://auth.example.com/oauth/authorize
 *     token_url: https://auth.example.com/oauth/token
 *     client_id: my-client
 *     client_secret_handle: sh_…   # optional: a stored secret (confidential client)
 *     scopes: [openid, offline_access]
 * ```
 *
 * Files ending in `.json` are JSON, others YAML 1.2 (the `yaml` package, as
 * policy bundles). An explicit path that is missing, or any file that is
 * invalid (unknown keys, a non-http(s) URL, duplicate ids), fails the layer
 * with {@link OAuthProvidersConfigError}: the gateway does not start. No
 * file: no providers (authorize answers 404 for every provider).
 *
 * @module
 */
import { NodeServices } from "@effect/platform-node"
import { Context, Duration, Effect, FileSystem, Layer, Result, Schema, SchemaParser } from "effect"
import { join } from "node:path"
import { GatewayConfig } from "../../layers/config.ts"
import { parseBundleText } from "../policy-bundle/loader.ts"
import { formatIssue } from "../shared/decode.ts"
import { OAuthProvidersConfigError } from "./errors.ts"
import { ProviderId } from "./schema.ts"

/** Largest providers file read, in bytes (1 MiB). */
export const MAX_PROVIDERS_FILE_BYTES = 1_048_576

/** Provider files under `$SVC_HOME`, in lookup order. */
export const HOME_PROVIDER_FILES = ["oauth-providers.yml", "oauth-providers.yaml", "oauth-providers.json"] as const

/** How long the token endpoint may take by default (10 s). */
export const DEFAULT_TOKEN_TIMEOUT = Duration.seconds(10)

/** How long a pending authorization lives (10 minutes). */
export const PENDING_TTL = Duration.minutes(10)

const HttpUrl = Schema.String.check(
  Schema.makeFilter((s: string) => {
    try {
      const url = new URL(s)
      return (url.protocol === "https:" || url.protocol === "http:") && url.hash === ""
    } catch {
      return false
    }
  }, { expected: "an absolute http(s) URL without a fragment" })
)

const NonEmpty = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(1024))

/** One configured provider. */
export const OAuthProviderConfig = Schema.Struct({
  id: ProviderId,
  authorize_url: HttpUrl,
  token_url: HttpUrl,
  client_id: NonEmpty,
  /** A secret handle id (`POST /secrets`): the client secret of a confidential client. */
  client_secret_handle: Schema.optionalKey(NonEmpty),
  scopes: Schema.optionalKey(Schema.Array(Schema.String.check(Schema.isPattern(/^[\x21\x23-\x5B\x5D-\x7E]+$/, {
    expected: "an OAuth scope token (printable ASCII, no space, quote or backslash)"
  }))))
})
export type OAuthProviderConfig = typeof OAuthProviderConfig.Type

/** The providers file. */
export const OAuthProvidersFile = Schema.Struct({ providers: Schema.Array(OAuthProviderConfig) })
export type OAuthProvidersFile = typeof OAuthProvidersFile.Type

const decodeFile = SchemaParser.decodeUnknownResult(OAuthProvidersFile, {
  errors: "first",
  onExcessProperty: "error",
  reportInput: true
})

/** Decodes a parsed providers file strictly (unknown keys are errors); duplicate ids are errors. */
export const decodeProvidersFile = (u: unknown): Result.Result<OAuthProvidersFile, string> => {
  const decoded = decodeFile(u)
  if (Result.isFailure(decoded)) return Result.fail(formatIssue(decoded.failure, "file"))
  const seen = new Set<string>()
  for (const provider of decoded.success.providers) {
    if (seen.has(provider.id)) return Result.fail(`duplicate provider id ${provider.id}`)
    seen.add(provider.id)
  }
  return Result.succeed(decoded.success)
}

const describe = (error: unknown): string =>
  String(typeof error === "object" && error !== null && "message" in error ? (error as { message: unknown }).message : error)
    .split("\n")[0]

/** Reads, parses and decodes the providers file at `path` (fails with {@link OAuthProvidersConfigError}). */
export const readProvidersFile = Effect.fnUntraced(function*(path: string) {
  const fs = yield* FileSystem.FileSystem
  const fail = (problem: string) =>
    new OAuthProvidersConfigError({ message: `OAuth providers file ${path}: ${problem}`, path })
  const info = yield* fs.stat(path).pipe(Effect.mapError((e) => fail(`cannot read the file (${describe(e)})`)))
  if (info.type !== "File") return yield* fail("not a regular file")
  if (Number(info.size) > MAX_PROVIDERS_FILE_BYTES) return yield* fail(`larger than ${MAX_PROVIDERS_FILE_BYTES} bytes`)
  const text = yield* fs.readFileString(path).pipe(Effect.mapError((e) => fail(`cannot read the file (${describe(e)})`)))
  const parsed = parseBundleText(text, path)
  if (Result.isFailure(parsed)) return yield* fail(parsed.failure)
  const file = decodeProvidersFile(parsed.success)
  if (Result.isFailure(file)) return yield* fail(`invalid providers file: ${file.failure}`)
  return file.success
})

/** Provider OAuth settings. */
export class ProviderOAuthConfig extends Context.Service<ProviderOAuthConfig, {
  /** Configured providers by id (empty: provider OAuth is unavailable). */
  readonly providers: ReadonlyMap<string, OAuthProviderConfig>
  /** Where they came from (a path), or `undefined` when no file exists. */
  readonly source: string | undefined
  /** Time the token endpoint gets to answer (default 10 s). */
  readonly tokenTimeout: Duration.Duration
  /** Lifetime of a pending authorization (10 minutes). */
  readonly pendingTtl: Duration.Duration
}>()("svc-gateway/provider-oauth/ProviderOAuthConfig") {
  /**
   * Loads the providers: `explicitPath` (must exist), else the first of
   * {@link HOME_PROVIDER_FILES} under `home`, else none.
   */
  static readonly load = Effect.fn("ProviderOAuthConfig.load")(function*(options: {
    readonly explicitPath: string | undefined
    readonly home: string
  }) {
    const fs = yield* FileSystem.FileSystem
    let path = options.explicitPath
    if (path === undefined) {
      for (const name of HOME_PROVIDER_FILES) {
        const candidate = join(options.home, name)
        if (yield* fs.exists(candidate).pipe(Effect.orElseSucceed(() => false))) {
          path = candidate
          break
        }
      }
    }
    const file = path === undefined ? { providers: [] } : yield* readProvidersFile(path)
    return ProviderOAuthConfig.of({
      providers: new Map(file.providers.map((p) => [p.id, p])),
      source: path,
      tokenTimeout: DEFAULT_TOKEN_TIMEOUT,
      pendingTtl: PENDING_TTL
    })
  })

  /** From `GatewayConfig` (`oauthProvidersConfig`, `home`); fails with {@link OAuthProvidersConfigError}. */
  static readonly layer = Layer.effect(
    ProviderOAuthConfig,
    Effect.gen(function*() {
      const settings = yield* GatewayConfig
      return yield* ProviderOAuthConfig.load({ explicitPath: settings.oauthProvidersConfig, home: settings.home })
    })
  ).pipe(Layer.provide(NodeServices.layer))

  /** Fixed providers, for tests and embedding. */
  static readonly make = (options: {
    readonly providers: ReadonlyArray<OAuthProviderConfig>
    readonly tokenTimeout?: Duration.Input | undefined
    readonly pendingTtl?: Duration.Input | undefined
  }) =>
    Layer.succeed(ProviderOAuthConfig, {
      providers: new Map(options.providers.map((p) => [p.id, p])),
      source: undefined,
      tokenTimeout: options.tokenTimeout === undefined ? DEFAULT_TOKEN_TIMEOUT : Duration.fromInputUnsafe(options.tokenTimeout),
      pendingTtl: options.pendingTtl === undefined ? PENDING_TTL : Duration.fromInputUnsafe(options.pendingTtl)
    })
}
