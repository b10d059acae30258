/**
 * A turn's context report (`GET /context/detail/:id`), collapsible: its
 * summary line says the model, the memory hits, the tool calls and the tokens;
 * opened, the prompt's sections, the history kept and dropped, the usage and
 * its cost (catalog prices), the tools offered and each tool call with the
 * policy's decision and its outcome.
 */
import { call } from "../../app/api.ts"
import { useResource } from "../../app/useResource.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import type { ContextReport } from "./types.ts"

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

/** The one-line summary of `report`. */
export const summaryOf = (report: ContextReport): string => {
  const hits = report.memory.keyword_hits + report.memory.semantic_hits
  return `${report.model} · ${plural(hits, "memory hit")} · ${plural(report.tool_calls.length, "tool call")} · ${report.usage.total_tokens} tokens`
}

/** The tool calls of a report, as a table. */
export const ToolCalls = ({ report, label }: { report: ContextReport; label: string }) => (
  <table class="list" aria-label={label}>
    <thead><tr><th scope="col">Tool</th><th scope="col">Policy tool id</th><th scope="col">Decision</th><th scope="col">Outcome</th></tr></thead>
    <tbody>
      {report.tool_calls.map((c, i) => (
        <tr key={i}>
          <td><code>{c.tool}</code></td>
          <td><code>{c.tool_id}</code></td>
          <td><span class={`decision decision-${c.decision}`}>{c.decision}</span></td>
          <td>{c.outcome}</td>
        </tr>
      ))}
    </tbody>
  </table>
)

/** The report of turn `turn` (1-based in the transcript), loaded at once so its summary shows while collapsed. */
export const ReportView = ({ id, turn }: { id: string; turn: number }) => {
  const loaded = useResource(() => call((c) => c.agent.contextDetail({ params: { id } })), {}, [id])
  const report = loaded.data?.report
  if (report === undefined) return <ErrorNote error={loaded.error} />
  return (
    <details class="report">
      <summary>Context report<span class="sr-only"> of turn {turn}</span>: {summaryOf(report)}</summary>
      <dl class="facts">
        <dt>Model</dt><dd><code>{report.model}</code></dd>
        <dt>Memory hits</dt><dd>{report.memory.keyword_hits} keyword, {report.memory.semantic_hits} semantic</dd>
        <dt>History</dt><dd>{plural(report.history.messages, "message")} kept, {report.history.dropped} dropped</dd>
        <dt>Usage</dt>
        <dd>
          {report.usage.input_tokens} in, {report.usage.output_tokens} out, {report.usage.total_tokens} total tokens;
          cost ${(report.usage.usd_micros / 1_000_000).toFixed(6)}
        </dd>
        <dt>System prompt</dt>
        <dd>{report.system_prompt.chars} characters: {report.system_prompt.sections.map((s) => `${s.id} (${s.chars})`).join(", ") || "no section"}</dd>
        <dt>Tools offered</dt>
        <dd>{report.selected_tools.length === 0 ? "none" : report.selected_tools.join(", ")} ({report.tool_schema_total_chars} schema characters)</dd>
        <dt>Report</dt><dd><code>{report.context_report_id}</code> at {report.generated_at}</dd>
      </dl>
      {report.tool_calls.length > 0 ? <ToolCalls report={report} label={`Tool calls of turn ${turn}`} /> : <p class="hint">No tool call.</p>}
    </details>
  )
}
