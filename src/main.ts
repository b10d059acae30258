/**
 * `svc-gateway` CLI entry point (src/commands.ts holds the commands).
 * `svc-gateway serve` validates settings (flags > environment > defaults,
 * see `config.ts`), checks `SVC_HOME`, starts the gateway and logs where it
 * listens, which database it uses and where the admin token is (never the
 * token). Every problem is one line on stderr and exit code 1. SIGINT/SIGTERM
 * drain in-flight requests, close the database, log `svc-gateway stopped`
 * and exit 0.
 */
// Must come first: schemas built after this import decode through Effect's JIT
// compiler (about twice as fast as the interpreter; see docs/performance.md).
import "effect/schema/SchemaJITCompiler/enable"
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Cause, Effect, Exit } from "effect"
import { runCli } from "./commands.ts"
import { tolerateClosedOutput } from "./stdio.ts"

tolerateClosedOutput()

runCli(process.argv.slice(2)).pipe(
  Effect.provide(NodeServices.layer),
  (effect) =>
    NodeRuntime.runMain(effect, {
      disableErrorReporting: true,
      // A signal-driven shutdown (interrupt only) is a clean exit: 0. Failures exit 1.
      teardown: (exit, onExit) => onExit(Exit.isFailure(exit) && !Cause.hasInterruptsOnly(exit.cause) ? 1 : 0)
    })
)
