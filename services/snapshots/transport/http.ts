/**
 * Snapshot handlers (src/http/api/snapshots.ts): export passes the `tables`
 * list to `Snapshots.exportBundle`; import answers 403 `disabled` unless
 * `SVC_SNAPSHOT_IMPORT_ENABLED=1` before reading the body, then decodes it
 * and calls `Snapshots.importBundle`.
 */
import { SnapshotsApi } from "./httpApi.ts"
import { Effect, Result } from "effect"
import { GatewayConfig } from "../../../layers/config.ts"
import { makeDecoder, parseJsonBody } from "../../shared/decode.ts"
import { InvalidRequest, SnapshotImportDisabled } from "../errors.ts"
import { SnapshotImportRequest } from "../schema.ts"
import { parseTableList, Snapshots } from "../Snapshots.ts"
import { apiOf, group, readBody } from "../../../src/http/serve.ts"

const decodeImport = makeDecoder(SnapshotImportRequest)

/** Snapshot handlers; need {@link Snapshots} and `GatewayConfig`. */
export const SnapshotsHttp = group(apiOf(SnapshotsApi), "snapshots", (handlers) => Effect.gen(function*() {
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
