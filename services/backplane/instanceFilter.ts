/**
 * The per-instance filter of the cluster-wide listings (`GET /connections`, `GET /presence`, `GET /nodes`;
 * docs/scaling.md "What an operator sees"): `?instance=<instance_id>` keeps what that instance holds. Without it a
 * listing covers every live instance of the cluster (one instance: itself).
 *
 * @module
 */
import { Schema } from "effect"

/** Query of a cluster-wide listing: optional `instance`, an instance id of at most 128 characters (`/status` `peers[].instance_id`). */
export const InstanceQuery = {
  instance: Schema.optionalKey(Schema.NonEmptyString.check(Schema.isMaxLength(128)).annotate({
    description:
      "Only what this instance holds (an `instance_id` of `GET /status` `peers`); omitted: the whole cluster. An id no live instance has lists nothing."
  }))
}

/** The decoded query: `instance` when given. */
export interface InstanceQuery {
  readonly instance?: string | undefined
}
