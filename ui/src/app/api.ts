/**
 * The typed HTTP client of the console: the SDK's `makeGatewayHttpClient`
 * (src/client/http.ts), derived from the same declarations as the server's
 * routes, over `fetch` on the page's own origin. No token: the browser sends
 * the HttpOnly session cookie set by `POST /auth/session`, and the gateway's
 * same-origin rule accepts the state changes it makes.
 *
 * {@link call} runs one client method and turns its failure into an
 * {@link ApiError} (`status`, `error`, `message`), so pages show what the
 * gateway answered (a 403 explained, never swallowed).
 */
import { Cause, Effect, Exit } from "effect"
import { FetchHttpClient } from "effect/http"
import { type GatewayHttpClient, makeGatewayHttpClient } from "../../../src/client/http.ts"

/**
 * A failed call: the HTTP status (0 when the gateway was unreachable) and the gateway's `{error, message}`;
 * `details` is a WebSocket error's `details` (e.g. `work.transition`'s `{code, from, to, allowed}`).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
    readonly details?: unknown
  ) {
    super(message)
  }
}

let client: Promise<GatewayHttpClient> | undefined

/** The client, built once per page load. */
const gateway = (): Promise<GatewayHttpClient> =>
  client ??= Effect.runPromise(
    makeGatewayHttpClient({ baseUrl: location.origin }).pipe(Effect.provide(FetchHttpClient.layer))
  )

const STATUS_OF: Record<string, number> = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  unsupported_request: 404,
  conflict: 409,
  invalid_transition: 409,
  wip_limit_exceeded: 409,
  too_many_requests: 429,
  agent_runtime_error: 502,
  service_unavailable: 503
}

/** Listeners told when any call answers 401 (the session ended). */
const unauthorizedListeners = new Set<() => void>()

/** Calls `listener` whenever a call answers 401; returns the function that stops it. */
export const onUnauthorized = (listener: () => void): (() => void) => {
  unauthorizedListeners.add(listener)
  return () => unauthorizedListeners.delete(listener)
}

/** The HTTP status a gateway error code stands for (500 when unknown); WebSocket errors carry no status. */
export const statusOf = (code: string): number => STATUS_OF[code] ?? 500

const toApiError = (failure: unknown): ApiError => {
  if (failure instanceof ApiError) return failure
  const f = failure as { error?: unknown; message?: unknown; _tag?: unknown; response?: { status?: number }; reason?: unknown }
  if (typeof f.error === "string" && typeof f.message === "string") {
    return new ApiError(f.response?.status ?? STATUS_OF[f.error] ?? 500, f.error, f.message)
  }
  const status = f.response?.status ?? 0
  if (status === 0) return new ApiError(0, "unreachable", "the gateway did not answer; check that it is running")
  return new ApiError(status, "unexpected_response", `the gateway answered ${status}`)
}

/**
 * Runs `f` against the typed client. Resolves with its success; rejects with an {@link ApiError}.
 * A 401 also tells the session (the console returns to sign-in).
 */
export const call = async <A, E>(f: (client: GatewayHttpClient) => Effect.Effect<A, E>): Promise<A> => {
  const exit = await Effect.runPromiseExit(Effect.flatMap(Effect.promise(gateway), f))
  if (Exit.isSuccess(exit)) return exit.value
  const error = toApiError(Cause.squash(exit.cause))
  if (error.status === 401) for (const listener of unauthorizedListeners) listener()
  throw error
}

/** Explains an error for a person: what the gateway said, and for 403 why the action is not available. */
export const explain = (error: unknown): string => {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : String(error)
  if (error.status === 403) {
    return `Not allowed (403 ${error.error}): ${error.message}. Your session's token lacks the scope this action needs; ` +
      "sign in with a token that has it, or ask an administrator."
  }
  return error.status === 0 ? error.message : `${error.message} (${error.status} ${error.error})`
}
