/**
 * The signed-in principal of the console, from `GET /auth/session` (never the
 * token: the HttpOnly cookie holds it and script never sees it). Pages ask
 * {@link can} before showing an action, so a device token with limited scopes
 * sees only what it may do; the gateway still checks every call.
 */
import { createContext } from "preact"
import { useContext } from "preact/hooks"
import { ApiError, call } from "./api.ts"

/** Operator scopes (gateway-api.md "Scopes"). */
export type OperatorScope = "operator.read" | "operator.write" | "operator.approvals" | "operator.pairing" | "operator.admin"

/** Who the console acts as: `admin` (every scope), `device` (its scopes) or `open` (gateway auth disabled). */
export interface Principal {
  readonly tokenKind: "admin" | "device" | "open"
  readonly scopes: ReadonlyArray<string>
  readonly deviceId?: string | undefined
}

/** True when `principal` may use what needs `scope` (the admin token and an open gateway pass every check). */
export const can = (principal: Principal, scope: OperatorScope): boolean =>
  principal.tokenKind !== "device" || principal.scopes.includes("*") || principal.scopes.includes(scope)

/**
 * Reads the principal of the session cookie: `undefined` when there is none (401). A gateway without auth
 * has no `/auth/*` routes (404): everything is open.
 */
export const loadPrincipal = async (): Promise<Principal | undefined> => {
  try {
    const session = await call((c) => c.auth.sessionInfo())
    return { tokenKind: session.token_kind, scopes: session.scopes, deviceId: session.device_id }
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return undefined
    if (error instanceof ApiError && error.status === 404) return { tokenKind: "open", scopes: ["*"] }
    throw error
  }
}

/** Signs in: `POST /auth/session {token}` sets the cookie; the token is not kept anywhere. */
export const signIn = async (token: string): Promise<Principal> => {
  await call((c) => c.auth.session({ payload: { token } }))
  const principal = await loadPrincipal()
  if (principal === undefined) throw new ApiError(401, "unauthorized", "the gateway did not keep the session")
  return principal
}

/** Signs out: `POST /auth/logout` clears the cookie. */
export const signOut = (): Promise<void> => call((c) => c.auth.logout())

/** The principal of the signed-in console, for pages. */
export const PrincipalContext = createContext<Principal>({ tokenKind: "device", scopes: [] })

/** The signed-in principal. */
export const usePrincipal = (): Principal => useContext(PrincipalContext)

/** True when the signed-in principal holds `scope`. */
export const useCan = (scope: OperatorScope): boolean => can(usePrincipal(), scope)
