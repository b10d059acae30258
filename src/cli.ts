/**
 * Entry point of the bundled CLI (scripts/bundle.mjs → dist/cli/main.mjs):
 * switches on Effect's Schema JIT compiler before any other module is
 * evaluated (bundled chunks would otherwise run first), then runs the CLI.
 */
import "effect/schema/SchemaJITCompiler/enable"

await import("./main.ts")
