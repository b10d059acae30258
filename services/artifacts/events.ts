/**
 * Events of artifacts (docs/artifacts.md "Events"), to operator clients
 * holding `operator.read`, with envelope scope `{kind: "run", run_id}` for a
 * linked artifact (`{kind: "artifact", artifact_id}` otherwise):
 *
 * | Type | Payload | When |
 * |---|---|---|
 * | `artifact.created` | `{artifact, run_id?, step_id?, attempt_id?}` | a producer stored an artifact (an Http step's `http_trace`, a memory export) |
 * | `artifact.attached` | `{artifact, run_id, step_id, attempt_id}` | an attempt's record lists the artifact (node evidence) |
 * | `artifact.fetched` | `{artifact_id, run_id}` | its bytes were served through the run-scoped route |
 *
 * @module
 */
import { make, OPERATORS_READ } from "../ws-sessions/GatewayEvent.ts"
import { ArtifactEventPayload, ArtifactFetchedPayload } from "./schema.ts"

/** An artifact was stored. */
export const ArtifactCreated = make("artifact.created", { payload: ArtifactEventPayload, audience: OPERATORS_READ })

/** An artifact was attached to an attempt's record. */
export const ArtifactAttached = make("artifact.attached", { payload: ArtifactEventPayload, audience: OPERATORS_READ })

/** An artifact's bytes were served through its run. */
export const ArtifactFetched = make("artifact.fetched", { payload: ArtifactFetchedPayload, audience: OPERATORS_READ })

/** Every event type of this subsystem. */
export const ArtifactEvents = [ArtifactCreated, ArtifactAttached, ArtifactFetched] as const
