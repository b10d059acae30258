/**
 * The agent's secret handles and who uses them: `GET /secrets` and
 * `GET /auth/profiles` of the same agent, so a page can show which auth
 * profiles name a handle (after a rotation they name the new one). With auth
 * profiles switched off (`SVC_AUTH_PROFILES=off`: 404) `profiles` is
 * `undefined`. Used by the secrets and auth-profiles pages.
 */
import type { AuthProfile } from "../../../services/auth-profiles/schema.ts"
import type { SecretHandle } from "../../../services/secrets/schema.ts"
import { ApiError, call } from "../app/api.ts"

/** The agent's active handles, oldest first. */
export const loadHandles = (agent: string): Promise<ReadonlyArray<SecretHandle>> =>
  call((c) => c.secrets.list({ query: { agent_id: agent } })).then((answer) => answer.handles)

/** The agent's auth profiles; `undefined` when the gateway serves none (404). */
export const loadProfiles = (agent: string): Promise<ReadonlyArray<AuthProfile> | undefined> =>
  call((c) => c.authProfiles.list({ query: { agent_id: agent } })).then(
    (answer) => answer.profiles,
    (error: unknown) => {
      if (error instanceof ApiError && error.status === 404) return undefined
      throw error
    }
  )

/** The secret-handle fields of a profile with the handle each names (`api_key`, `access_token`, `refresh_token`). */
export const handlesOf = (profile: AuthProfile): Array<readonly [string, string]> =>
  Object.entries(profile.secret_handles).flatMap(([name, id]) => (typeof id === "string" ? [[name, id] as const] : []))

/** The profiles naming `handleId`, with the field that names it. */
export const usersOf = (profiles: ReadonlyArray<AuthProfile>, handleId: string): Array<{ profile: AuthProfile; field: string }> =>
  profiles.flatMap((profile) => handlesOf(profile).filter(([, id]) => id === handleId).map(([field]) => ({ profile, field })))
