/**
 * The cluster's start-up errors: they stop the start with one line naming
 * the problem and its fix (src/commands.ts prints `<tag>: <message>`).
 *
 * @module
 */
import { Schema } from "effect"

/**
 * This instance's secrets master key is not the one the cluster recorded:
 * it could not read what the other instances seal. `key_id` (absent when this
 * instance has no key file) and `cluster_key_id` are digests
 * (layers/secrets/crypto.ts `keyId`), never keys.
 */
export class ClusterKeyMismatch extends Schema.TaggedError<ClusterKeyMismatch>()("ClusterKeyMismatch", {
  message: Schema.String,
  key_id: Schema.optionalKey(Schema.String),
  cluster_key_id: Schema.String
}) {}

/**
 * This instance's runner port (`SVC_RUNNER_PORT`) cannot be listened on: another process holds it, or the port needs
 * privileges. Checked at start so that an `all`/`worker` instance never runs without its workflow runner.
 */
export class RunnerPortUnavailable extends Schema.TaggedError<RunnerPortUnavailable>()("RunnerPortUnavailable", {
  message: Schema.String,
  port: Schema.Number
}) {}
