/**
 * Stand-ins for the planner's dependencies in unit tests: an in-memory
 * `Approvals` that records what it was asked to create, and a deterministic
 * `SecureRandom` (a byte counter), so plan ids and trace ids are predictable.
 */
import { Clock, Context, Effect, Layer, Ref } from "effect"
import { SecureRandom } from "effect/crypto"
import { Approvals, type ApprovalCreateInput } from "../../../services/approvals/Approvals.ts"
import { AuditLog } from "../../../services/audit/AuditLog.ts"
import type { Approval } from "../../../services/approvals/schema.ts"
import { Planner } from "../../../services/planner/Planner.ts"
import { PlansRepo } from "../../../services/planner/PlansRepo.ts"
import { PolicyService } from "../../../services/policy/PolicyService.ts"
import type { TestDatabase } from "../../support/databases.ts"

/** The approvals created so far (in-memory stand-in). */
export class CreatedApprovals extends Context.Service<CreatedApprovals, Ref.Ref<ReadonlyArray<ApprovalCreateInput>>>()(
  "test/planner/CreatedApprovals"
) {}

const unused = () => Effect.die(new Error("not used by the planner"))

/** `Approvals` in memory: `create` only (ids from 1, expiring 86400 s after creation); the planner uses nothing else. */
export const InMemoryApprovals = Layer.effect(
  Approvals,
  Effect.gen(function*() {
    const created = yield* CreatedApprovals
    return Approvals.of({
      create: (input) =>
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          const all = yield* Ref.updateAndGet(created, (list) => [...list, input])
          const approval: Approval = {
            id: all.length,
            kind: input.kind,
            status: "pending",
            plan_id: input.plan_id,
            step_index: input.step_index,
            prompt: input.prompt,
            context: input.context,
            created_at: new Date(now).toISOString(),
            expires_at: new Date(now + 86_400_000).toISOString(),
            resolution: null
          }
          return approval
        }),
      get: unused,
      listByStatus: unused,
      list: unused,
      respond: unused,
      cancelForPlan: unused,
      cancelForRun: unused
    })
  })
).pipe(Layer.provideMerge(Layer.effect(CreatedApprovals, Ref.make<ReadonlyArray<ApprovalCreateInput>>([]))))

/** A `SecureRandom` whose n-th draw is n, big-endian, zero-padded (deterministic, distinct ids). */
export const CountingRandom = Layer.sync(SecureRandom.SecureRandom, () => {
  let draws = 0
  return SecureRandom.make((size) => {
    const bytes = new Uint8Array(size)
    new DataView(bytes.buffer).setUint32(size - 4, ++draws)
    return bytes
  })
})

/** The planner over `db`, with the in-memory approvals, the real policy engine, the audit chain and counting ids. */
export const plannerLayer = (db: TestDatabase) =>
  Planner.layerNoDeps.pipe(
    Layer.provideMerge(PlansRepo.layer),
    Layer.provideMerge(AuditLog.layer),
    Layer.provideMerge(InMemoryApprovals),
    Layer.provide(PolicyService.layer),
    Layer.provide(CountingRandom),
    Layer.provideMerge(db.make())
  )
