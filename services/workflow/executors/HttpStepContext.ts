/**
 * What `Http` steps need from the rest of the gateway (issue 20 §3, §6):
 * the egress rules of a run (for the check of the addresses a host name
 * resolves to), and the secrets its headers reference by handle (their
 * values for the executor, their scopes for the policy gate's `secrets`
 * rule).
 *
 * @module
 */
import { Context, Data, Effect, Layer, type Redacted } from "effect"
import { PolicyBundle } from "../../policy-bundle/PolicyBundle.ts"
import type { PolicyDomain } from "../../policy-bundle/schema.ts"
import { SecretResolver } from "../../secrets/SecretStore.ts"
import { SecretsRepo } from "../../secrets/SecretsRepo.ts"
import { keyAgentId } from "../runs/keys.ts"
import { RunsRepo } from "../runs/RunsRepo.ts"

/** A secret handle a step references cannot be used; `message` names the handle, never a value. */
export class SecretUnavailable extends Data.TaggedError("SecretUnavailable")<{ readonly message: string }> {}

/** The gateway as `Http` steps see it. Storage failures are defects. */
export class HttpStepContext extends Context.Service<HttpStepContext, {
  /**
   * The `network_egress` rules `run_id` is judged by: those of its policy
   * snapshot, or of the effective bundle when the run or its snapshot is
   * missing.
   */
  readonly egressRules: (run_id: string) => Effect.Effect<PolicyDomain>
  /**
   * The scopes of `handle_ids` that are active handles of `agent_id`, for
   * the policy gate's `secrets` rule (unknown, revoked or other agents'
   * handles have none: the executor refuses them).
   */
  readonly secretScopes: (agent_id: string, handle_ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<string>>
  /**
   * The value of `handle_id` for a step of `run_id` (resolution recorded
   * with `purpose`). `SecretUnavailable` when the handle is unknown, revoked,
   * of a provider not configured, without a value, or belongs to another
   * agent than the run's (the agent its key names, `default` otherwise).
   */
  readonly resolveSecret: (
    run_id: string,
    handle_id: string,
    purpose: string
  ) => Effect.Effect<Redacted.Redacted<string>, SecretUnavailable>
}>()("svc-gateway/workflow/HttpStepContext") {
  /** Over `RunsRepo`, `PolicyBundle`, `SecretsRepo` and `SecretResolver`. */
  static readonly layerNoDeps: Layer.Layer<HttpStepContext, never, RunsRepo | PolicyBundle | SecretsRepo | SecretResolver> = Layer.effect(
    HttpStepContext,
    Effect.gen(function*() {
      const runs = yield* RunsRepo
      const policy = yield* PolicyBundle
      const secrets = yield* SecretsRepo
      const resolver = yield* SecretResolver

      return HttpStepContext.of({
        egressRules: Effect.fn("HttpStepContext.egressRules")(function*(run_id: string) {
          const run = yield* Effect.orDie(runs.getRunRecord(run_id))
          const snapshot = run?.policy_snapshot_id == null ? undefined : yield* policy.getSnapshot(run.policy_snapshot_id)
          return snapshot?.bundle.network_egress ?? (yield* policy.effective).bundle.network_egress
        }),
        secretScopes: Effect.fn("HttpStepContext.secretScopes")(function*(agent_id: string, handle_ids: ReadonlyArray<string>) {
          const scopes: Array<string> = []
          for (const handle_id of new Set(handle_ids)) {
            const row = yield* Effect.orDie(secrets.get(handle_id))
            if (row !== undefined && row.revoked_at === null && row.agent_id === agent_id) scopes.push(row.scope)
          }
          return scopes
        }),
        resolveSecret: Effect.fn("HttpStepContext.resolveSecret")(function*(run_id: string, handle_id: string, purpose: string) {
          const run = yield* Effect.orDie(runs.getRunRecord(run_id))
          const agent_id = keyAgentId(run?.key ?? "")
          const row = yield* Effect.orDie(secrets.get(handle_id))
          if (row !== undefined && row.agent_id !== agent_id) {
            return yield* new SecretUnavailable({ message: `secret handle ${handle_id} belongs to another agent than the run's (${agent_id})` })
          }
          return yield* resolver.resolve(handle_id, purpose).pipe(
            Effect.catchTag("NotFound", (e) => Effect.fail(new SecretUnavailable({ message: e.message })))
          )
        })
      })
    })
  )
}
