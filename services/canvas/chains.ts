/**
 * The audit chain of canvas decisions (docs/audit.md "Chains"; docs/canvas.md):
 * every publish appends `canvas.published` to `gateway.canvas`, whatever its
 * `plan_id` (a page's `plan_id` is a free label, not necessarily a plan of
 * this gateway, so it never joins a plan's chain).
 *
 * @module
 */
import { GATEWAY_CHAIN_PREFIX } from "../domain-events/chains.ts"

/** `gateway.canvas`: canvas pages published. */
export const CANVAS_CHAIN = `${GATEWAY_CHAIN_PREFIX}canvas`
