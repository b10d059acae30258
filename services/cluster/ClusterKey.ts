/**
 * The cluster's master key check (issue 27 §1): every instance of one
 * cluster must seal and open secrets with the same master key. With
 * `SVC_CLUSTER=1` the first instance to start records its key id (a digest
 * of the key: layers/secrets/crypto.ts `keyId`, never the key) in
 * `gateway_master_key`; an instance whose key id differs refuses to start
 * with {@link ClusterKeyMismatch}. The record is one conditional insert, so
 * two instances starting together agree on the first. An instance without a
 * key file joining a cluster that has a key is refused without generating one.
 *
 * @module
 */
import { Clock, Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { GatewayConfig } from "../../layers/config.ts"
import { keyId } from "../../layers/secrets/crypto.ts"
import { masterKeyPath } from "../../layers/secrets/dbProvider.ts"
import { generateKeyFile, readKeyFile } from "../../layers/secrets/masterKey.ts"
import { migrate } from "../../layers/storage/migrations.ts"
import { ClusterKeyMismatch } from "./errors.ts"
import { clusterMigrations } from "./migrations/index.ts"

/** The one row's id in `gateway_master_key`. */
const ROW_ID = "secrets_master_key"

/** The master key id this instance shares with its cluster. */
export class ClusterKey extends Context.Service<ClusterKey, {
  /** The key id recorded for the cluster (16 hex characters); `undefined` without `SVC_CLUSTER=1`. */
  readonly keyId: string | undefined
}>()("svc-gateway/cluster/ClusterKey") {
  /**
   * Needs `GatewayConfig` and a `SqlClient`. With `SVC_CLUSTER=1`: reads the
   * master key (`SVC_SECRETS_MASTER_KEY_PATH`, else `$SVC_HOME/secrets.master.key`;
   * generated when missing, as the `db` secret provider does), records its
   * id if the cluster has none, and fails with `ClusterKeyMismatch` when the
   * cluster's differs. Fails with `SecretsKeyUnreadable` for an unreadable key.
   */
  static readonly layerNoDeps = Layer.effect(
    ClusterKey,
    Effect.gen(function*() {
      const settings = yield* GatewayConfig
      if (!settings.clusterEnabled) return ClusterKey.of({ keyId: undefined })
      const sql = yield* SqlClient.SqlClient
      yield* migrate("cluster", clusterMigrations)
      const path = masterKeyPath(settings)
      const recordedKeyId = SqlSchema.findOneOption({
        Request: Schema.String,
        Result: Schema.Struct({ key_id: Schema.String }),
        execute: (id) => sql`SELECT key_id FROM gateway_master_key WHERE id = ${id}`
      })
      const read = yield* readKeyFile(path)
      if (read === "missing" || read === "empty") {
        // A cluster that has its key: generating another would only leave a wrong key file behind.
        const existing = yield* recordedKeyId(ROW_ID)
        if (Option.isSome(existing)) {
          return yield* new ClusterKeyMismatch({
            message: `secrets master key ${path} is ${read}, but this cluster's instances use key id ${existing.value.key_id}: ` +
              "every instance needs the same master key (copy the cluster's key file and point SVC_SECRETS_MASTER_KEY_PATH at it; docs/scaling.md)",
            cluster_key_id: existing.value.key_id
          })
        }
      }
      const key = read === "missing" || read === "empty" ? yield* generateKeyFile(path) : read
      const own = keyId(key)
      const now = yield* Clock.currentTimeMillis
      yield* sql`INSERT INTO gateway_master_key ${sql.insert({ id: ROW_ID, key_id: own, recorded_at: new Date(now).toISOString() })}
        ON CONFLICT (id) DO NOTHING`
      const recordedRow = yield* recordedKeyId(ROW_ID)
      const recorded = Option.match(recordedRow, { onNone: () => own, onSome: (row) => row.key_id })
      if (recorded !== own) {
        return yield* new ClusterKeyMismatch({
          message: `secrets master key ${path} has key id ${own}, but this cluster's instances use key id ${recorded}: ` +
            "every instance needs the same master key (copy the cluster's key file and point SVC_SECRETS_MASTER_KEY_PATH at it; docs/scaling.md)",
          key_id: own,
          cluster_key_id: recorded
        })
      }
      yield* Effect.logInfo("cluster master key checked").pipe(Effect.annotateLogs({ key_id: own }))
      return ClusterKey.of({ keyId: own })
    })
  )

  /** Wired for production: the same (it needs only the settings and the database). */
  static readonly layer = ClusterKey.layerNoDeps
}
