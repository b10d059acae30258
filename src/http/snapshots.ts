/**
 * Snapshot handlers (src/http/api/snapshots.ts): export passes the `tables`
 * list to `Snapshots.exportBundle`; import answers 403 `disabled` unless
 * `SVC_SNAPSHOT_IMPORT_ENABLED=1` before reading the body, then decodes it
 * and calls `Snapshots.importBundle`.
 */
import { Effect, Result } from "effect"
import { GatewayConfig } from "../../layers/config.ts"
import { makeDecoder, parseJsonBody } from "../../services/shared/decode.ts"
import { InvalidRequest, SnapshotImportDisabled } from "../../services/snapshots/errors.ts"
import { SnapshotImportRequest } from "../../services/snapshots/schema.ts"
import { parseTableList, Snapshots } from "../../services/snapshots/Snapshots.ts"
import { GatewayApi } from "./api/index.ts"
import { group, readBody } from "./serve.ts"

const decodeImport = makeDecoder(SnapshotImportRequest)

/** Snapshot handlers; need {@link Snapshots} and `GatewayConfig`. */
export const SnapshotsHttp = group(GatewayApi, "snapshots", (handlers) => Effect.gen(function*() {
  const snapshots = yield* Snapshots
  const settings = yield* GatewayConfig
  return handlers.handleAll({
    export: ({ query }) =>
      Effect.flatMap(
        Effect.mapError(Effect.fromResult(parseTableList(query.tables)), (message) => new InvalidRequest({ message })),
        snapshots.exportBundle
      ),
    import: ({ request }) =>
      Effect.gen(function*() {
        if (!settings.snapshotImportEnabled) {
          return yield* new SnapshotImportDisabled({ message: "snapshot import is disabled (set SVC_SNAPSHOT_IMPORT_ENABLED=1)" })
        }
        const parsed = parseJsonBody(yield* readBody(request.text))
        if (Result.isFailure(parsed)) return yield* new InvalidRequest({ message: parsed.failure })
        const decoded = decodeImport(parsed.success)
        if (Result.isFailure(decoded)) return yield* new InvalidRequest({ message: decoded.failure })
        return yield* snapshots.importBundle(decoded.success)
      })
  })
}))
