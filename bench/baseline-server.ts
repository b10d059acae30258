/**
 * Baseline for the HTTP benchmark: the least code a plain `node:http` server
 * needs to serve `POST /policy/check` safely. Bearer token compared in
 * constant time (401), body read with a size limit (413), `JSON.parse` (400),
 * hand-written schema checks (400), the same `evaluatePolicy`, `JSON.stringify`.
 *
 * Run as a child process by `bench/run.ts`:
 * `BASELINE_PORT=… BASELINE_TOKEN=… node dist/bench/baseline-server.js`.
 *
 * @module
 */
import { evaluatePolicy } from "../services/policy/engine.ts"
import { error, send, serveBaseline } from "./baseline-http.ts"
import { validatePolicyCheck } from "./baseline-validate.ts"

const HEALTH = JSON.stringify({ status: "ok", is_exposed: false })

serveBaseline({
  prefix: "BASELINE",
  path: "/policy/check",
  onGet: (req, res) => (req.url === "/healthz" ? send(res, 200, HEALTH) : error(res, 404, "not_found")),
  handle: (body, res) => {
    const request = validatePolicyCheck(body)
    if (request === undefined) return error(res, 400, "invalid_request")
    send(res, 200, JSON.stringify(evaluatePolicy(request)))
  }
})
