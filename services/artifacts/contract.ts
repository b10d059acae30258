/**
 * The artifacts subsystem's contract (src/subsystem/Subsystem.ts): its HTTP endpoints and events — schemas only,
 * what the clients load.
 *
 * @module
 */
import { type Contract, contract } from "../../src/subsystem/contract.ts"
import { ArtifactEvents } from "./events.ts"
import { ArtifactsApi } from "./transport/httpApi.ts"

/** The artifacts subsystem's contract. */
export const ArtifactsContract: Contract<"artifacts", typeof ArtifactsApi, never, (typeof ArtifactEvents)[number]> = contract({
  name: "artifacts",
  http: [ArtifactsApi],
  events: ArtifactEvents
})
