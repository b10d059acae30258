/**
 * Webhook watchers as `SecretReferences` (docs/watchers.md "Secrets"): when
 * a secret is rotated, every webhook watcher whose `trigger_config.secret_handle`
 * names the old handle is pointed at the new one, inside the secret store's
 * transaction (so both roll back together). A revoked handle changes
 * nothing here: the watcher's calls answer 503 `misconfigured` until it is
 * replaced. Storage failures are defects.
 *
 * @module
 */
import { Clock, Effect } from "effect"
import { SecretReferences } from "../secrets/SecretStore.ts"
import { isoTime } from "../shared/time.ts"
import { WatchersRepo } from "./WatchersRepo.ts"

/** The watchers' `SecretReferences`; needs `WatchersRepo`. */
export const makeWatcherSecretReferences = Effect.gen(function*() {
  const repo = yield* WatchersRepo
  return SecretReferences.of({
    repoint: Effect.fn("SecretReferences.repoint")((oldHandleId, newHandleId) =>
      Effect.flatMap(Clock.currentTimeMillis, (at) => repo.repointSecret(oldHandleId, newHandleId, isoTime(at)))),
    handleRevoked: Effect.fn("SecretReferences.handleRevoked")(() => Effect.succeed(0))
  })
})
