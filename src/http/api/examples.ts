/**
 * The reference documentation of an HTTP endpoint, declared next to it
 * (`.annotateMerge(documented(description, example))`): its description
 * (OpenAPI `description`) and ONE working example. `docs/api.md` is generated
 * from them (`npm run docs:api`), `GET /openapi.json` carries them (the
 * operation's `description`, `x-codeSamples` and the request and response
 * `example`), and test/docs/api-examples.test.ts runs every example, in the
 * order docs/api.md lists them, against one gateway set up as docs/api.md
 * "Setup" says.
 *
 * An example is a curl command generated from `method`, `path`, `query` and
 * `body` (or a whole `shell` command), plus the answer it gets.
 */
import { Context, type Schema } from "effect"
import { HttpApi, type HttpApiEndpoint, type HttpApiGroup, OpenApi } from "effect/http-api"
import { Access, requiredScope, type RouteAccess } from "./access.ts"

/** One working example of an endpoint. */
export interface HttpExample {
  /** The concrete path, parameters filled in (default: the declared path). May use shell variables (`$RUN_ID`). */
  readonly path?: string | undefined
  /** The query string, without `?`. */
  readonly query?: string | undefined
  /**
   * The JSON body, sent with `content-type: application/json`. A string is sent as is (shell variables such as
   * `$TOKEN` inside it are expanded); anything else is JSON-encoded.
   */
  readonly body?: unknown
  /** Extra request headers (name → value). */
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** Shell lines run first, typically to set a variable from an earlier answer (`RUN_ID=$(curl … | jq -r …)`). */
  readonly setup?: string | undefined
  /** A whole shell command instead of the generated curl (e.g. the webhook signing recipe). */
  readonly shell?: string | undefined
  /** The status the example gets (default: the endpoint's success status). */
  readonly status?: number | undefined
  /**
   * The JSON answer, or the part of it that matters: every key shown is in the answer with this value; a string
   * with `…` matches any text in its place; an array's elements are among the answer's, in that order.
   */
  readonly response?: unknown
  /** A text answer (instead of `response`): the answer starts with it; `…` matches any text. */
  readonly text?: string | undefined
  /** What has to exist first, in words, when the examples before it do not provide it. */
  readonly needs?: string | undefined
}

/** The example annotation of an endpoint. */
export const Example = Context.Reference<HttpExample | undefined>("svc-gateway/http/Example", {
  defaultValue: () => undefined
})

/** The annotations of a documented endpoint: its OpenAPI description and its example. */
export const documented = (description: string, example: HttpExample): Context.Context<never> =>
  Context.add(Context.make(OpenApi.Description, description), Example, example) as Context.Context<never>

/** How a route's access reads in docs/api.md and in the OpenAPI `x-svc-access` field. */
export const accessLabel = (access: RouteAccess, method: string): string => {
  const scope = requiredScope(access, method)
  if (scope !== undefined) return scope
  return access.kind
}

/** A sentence saying who may call a route. */
export const accessSentence = (access: RouteAccess, method: string): string => {
  const scope = requiredScope(access, method)
  if (scope !== undefined) return `any token; device tokens need \`${scope}\` (the admin token always passes)`
  switch (access.kind) {
    case "public":
      return "public: no token"
    case "admin-token":
      return "the admin token only (device tokens get 403 `admin token required`)"
    default:
      return "any valid token, whatever its scopes"
  }
}

/** Single-quotes `text` for a POSIX shell. */
const quote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`
/** Double-quotes `text` for a POSIX shell, leaving `$NAME` to expand. */
const doubleQuote = (text: string): string => `"${text.replace(/["\\`]/g, (c) => `\\${c}`)}"`

/**
 * The example's command: its `shell`, else a curl of `method` and the example's path, query, headers and body with
 * `$GW` as the base URL and, unless the route is public, `Authorization: Bearer $TOKEN`.
 */
export const exampleCommand = (method: string, declaredPath: string, access: RouteAccess, example: HttpExample): string => {
  if (example.shell !== undefined) return example.shell
  const path = example.path ?? declaredPath
  const url = `$GW${path}${example.query === undefined ? "" : `?${example.query}`}`
  const parts = ["curl -s"]
  if (method !== "GET" && !(method === "POST" && example.body !== undefined)) parts.push(`-X ${method}`)
  parts.push(doubleQuote(url))
  if (access.kind !== "public") parts.push(`-H "authorization: Bearer $TOKEN"`)
  for (const [name, value] of Object.entries(example.headers ?? {})) parts.push(`-H ${doubleQuote(`${name}: ${value}`)}`)
  if (example.body !== undefined) {
    const json = typeof example.body === "string" ? example.body : JSON.stringify(example.body)
    parts.push("-H 'content-type: application/json'", `-d ${json.includes("$") ? doubleQuote(json) : quote(json)}`)
  }
  return parts.join(" ")
}

/** One documented endpoint, as the docs generator, the OpenAPI document and the example test read it. */
export interface DocumentedEndpoint {
  readonly group: string
  readonly name: string
  readonly method: string
  readonly path: string
  readonly access: RouteAccess
  readonly description: string | undefined
  readonly example: HttpExample | undefined
  /** The declared success status (200 when none is declared). */
  readonly successStatus: number
  /** The declared success schemas by status, and error schemas by status. */
  readonly successes: ReadonlyMap<number, ReadonlyArray<Schema.Top>>
  readonly errors: ReadonlyMap<number, ReadonlyArray<Schema.Top>>
  readonly endpoint: HttpApiEndpoint.Top
}

/** Every endpoint of `api` with its access, description and example, in declaration order. */
export const documentedEndpoints = (api: HttpApi.HttpApi<string, any>): ReadonlyArray<DocumentedEndpoint> => {
  const out: Array<DocumentedEndpoint> = []
  HttpApi.reflect(api as HttpApi.HttpApi<string, HttpApiGroup.Constraint>, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, errors, group, mergedAnnotations, successes }) => {
      const access = mergedAnnotations.mapUnsafe.get(Access.key) as RouteAccess | undefined
      if (access === undefined) throw new Error(`HTTP endpoint ${group.identifier}.${endpoint.identifier} declares no Access`)
      const description = Context.getOption(endpoint.annotations, OpenApi.Description)
      out.push({
        group: group.identifier,
        name: endpoint.identifier,
        method: endpoint.method,
        path: endpoint.path,
        access,
        description: description._tag === "Some" ? description.value : undefined,
        example: endpoint.annotations.mapUnsafe.get(Example.key) as HttpExample | undefined,
        successStatus: successes.keys().next().value ?? 200,
        successes: successes as ReadonlyMap<number, ReadonlyArray<Schema.Top>>,
        errors: errors as ReadonlyMap<number, ReadonlyArray<Schema.Top>>,
        endpoint
      })
    }
  })
  return out
}
