/**
 * `GET /policy/bundle` and the override routes (src/http/api/policyBundle.ts):
 * the decoded request to one `PolicyBundle` / `PolicyOverrides` call.
 * Over HTTP, `created_by` defaults to and `revoked_by` is `{kind: "http"}`
 * (never a token).
 */
import { PolicyBundleApi } from "./httpApi.ts"
import { Clock, Effect } from "effect"
import { PolicyBundle } from "../PolicyBundle.ts"
import { PolicyOverrides } from "../PolicyOverrides.ts"
import { apiOf, group } from "../../../src/http/serve.ts"

const HTTP_ACTOR = { kind: "http" } as const

/** Policy-bundle handlers; need {@link PolicyBundle} and {@link PolicyOverrides}. */
export const PolicyBundleHttp = group(apiOf(PolicyBundleApi), "policyBundle", (handlers) => Effect.gen(function*() {
  const policy = yield* PolicyBundle
  const overrides = yield* PolicyOverrides
  return handlers.handleAll({
    bundle: () =>
      Effect.gen(function*() {
        const { bundle, sha256, sources } = yield* policy.effective
        const now = yield* Clock.currentTimeMillis
        return { status: "ok", generated_at: new Date(now).toISOString(), effective: { sha256, bundle, sources } } as const
      }),
    listOverrides: ({ query }) => overrides.list(query),
    createOverride: ({ payload }) =>
      Effect.map(overrides.create({ ...payload, created_by: payload.created_by ?? HTTP_ACTOR }), (override) => ({ override })),
    revokeOverride: ({ payload }) =>
      Effect.map(overrides.revoke({ ...payload, revoked_by: HTTP_ACTOR }), (override) => ({ override }))
  })
}))
