/** The dashboard's one stylesheet, served at /assets/app.css (a module, so the build ships it). */
export const APP_CSS = `
:root {
  --fg: #1f2328; --muted: #656d76; --line: #d8dee4; --bg: #f6f8fa; --card: #fff;
  --accent: #0969da; --major: #b42318; --major-bg: #fde8e7; --moderate: #9a6700; --moderate-bg: #fff4d6;
  --minor: #57606a; --minor-bg: #eef1f4; --ok: #1a7f37; --ok-bg: #dafbe1; --bad: #b42318; --bad-bg: #fde8e7;
  --info: #0550ae; --info-bg: #ddf4ff;
  --mono: ui-monospace, SFMono-Regular, "DejaVu Sans Mono", Menlo, Consolas, monospace;
}
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; color: var(--fg); background: var(--bg); }
header.top { display: flex; align-items: center; gap: 28px; padding: 10px 28px; background: #24292f; color: #fff; }
header.top .brand { font-weight: 700; letter-spacing: .02em; font-size: 15px; }
header.top nav { display: flex; gap: 4px; }
header.top nav a { color: #d0d7de; text-decoration: none; padding: 4px 10px; border-radius: 6px; }
header.top nav a:hover { color: #fff; background: #32383f; }
header.top nav a[aria-current="page"] { color: #fff; background: #424a53; }
main { max-width: 1240px; margin: 0 auto; padding: 22px 28px 60px; }
h1 { font-size: 20px; margin: 0 0 4px; font-weight: 600; }
h2 { font-size: 16px; margin: 26px 0 10px; font-weight: 600; }
h3 { font-size: 14px; margin: 14px 0 6px; font-weight: 600; }
a { color: var(--accent); }
.muted { color: var(--muted); }
.small { font-size: 12px; }
.mono, code, pre { font-family: var(--mono); font-size: 12.5px; }
pre { margin: 0; white-space: pre-wrap; word-break: break-word; }
.card > h3:first-child, .card > h2:first-child { margin-top: 0; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 14px 18px; margin: 0 0 14px; }
.row { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; }
.grid2 { display: grid; grid-template-columns: 330px 1fr; gap: 18px; align-items: start; }
@media (max-width: 900px) { .grid2 { grid-template-columns: 1fr; } }
table { border-collapse: collapse; width: 100%; background: var(--card); }
th, td { text-align: left; padding: 7px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .03em; background: #fafbfc; }
tr:last-child td { border-bottom: none; }
td.pr, td.detail { overflow-wrap: anywhere; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.table-wrap { border: 1px solid var(--line); border-radius: 8px; overflow: hidden; background: var(--card); }
tbody tr.link { cursor: pointer; }
tbody tr.link:hover { background: #f3f6f9; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 600; white-space: nowrap; background: var(--minor-bg); color: var(--minor); }
.sev-MAJOR { background: var(--major-bg); color: var(--major); }
.sev-MODERATE { background: var(--moderate-bg); color: var(--moderate); }
.sev-MINOR { background: var(--minor-bg); color: var(--minor); }
.st-completed, .oc-clear, .ok { background: var(--ok-bg); color: var(--ok); }
.st-running, .st-queued { background: var(--info-bg); color: var(--info); }
.st-failed, .st-aborted, .st-timed_out, .st-unknown, .oc-findings, .bad { background: var(--bad-bg); color: var(--bad); }
.strike { text-decoration: line-through; opacity: .7; }
.filters { display: flex; gap: 10px; flex-wrap: wrap; align-items: end; margin: 12px 0 14px; }
.filters input, .filters select { height: 30px; }
.filters label, .field { display: flex; flex-direction: column; gap: 3px; font-size: 12px; color: var(--muted); }
input[type="text"], input[type="search"], select, textarea { font: inherit; font-size: 13px; padding: 5px 8px; border: 1px solid var(--line); border-radius: 6px; background: #fff; color: var(--fg); }
textarea { font-family: var(--mono); font-size: 12px; width: 100%; min-height: 140px; }
button { font: inherit; font-size: 13px; padding: 5px 12px; border-radius: 6px; border: 1px solid var(--line); background: #f6f8fa; cursor: pointer; }
button.primary { background: #1f883d; border-color: #1a7f37; color: #fff; }
button:hover { filter: brightness(.97); }
.kv { display: grid; grid-template-columns: max-content 1fr; gap: 3px 16px; font-size: 13px; }
.kv dt { color: var(--muted); }
.kv dd { margin: 0; }
.round { border-left: 3px solid var(--line); padding-left: 16px; margin: 0 0 22px; }
.round h2 { margin-top: 8px; }
.verdicts { display: flex; gap: 8px; flex-wrap: wrap; margin: 4px 0 10px; }
.chip { border: 1px solid var(--line); background: var(--card); border-radius: 14px; padding: 2px 10px; font-size: 12.5px; }
.finding-claim { font-weight: 500; }
.finding-extra { color: var(--muted); font-size: 12.5px; margin-top: 3px; }
.note { font-size: 12.5px; margin-top: 3px; }
details > summary { cursor: pointer; color: var(--accent); font-size: 12.5px; }
.settle-form { display: flex; gap: 6px; flex-wrap: wrap; align-items: center; margin-top: 6px; }
.settle-form input { width: 130px; }
.msg { font-size: 12.5px; margin-left: 4px; }
.diff { background: #fafbfc; border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; max-height: 420px; overflow: auto; }
.diff .add { color: #116329; background: #e6ffec; display: block; }
.diff .del { color: #82071e; background: #ffebe9; display: block; }
.diff .hunk { color: var(--info); display: block; }
.diff .meta { color: var(--muted); display: block; }
.tail { background: #fafbfc; border: 1px solid var(--line); border-radius: 6px; padding: 6px 8px; max-height: 200px; overflow: auto; margin-top: 4px; }
.slider { display: grid; grid-template-columns: 1fr 56px; gap: 2px 8px; align-items: center; margin-bottom: 8px; font-size: 12.5px; }
.slider label { grid-column: 1 / 3; color: var(--muted); }
.slider input[type="range"] { width: 100%; }
.slider output { font-variant-numeric: tabular-nums; text-align: right; font-family: var(--mono); font-size: 12px; }
.toggles { display: flex; gap: 12px; flex-wrap: wrap; margin: 6px 0 12px; font-size: 13px; }
.chart { min-height: 300px; }
.drop { border: 2px dashed var(--line); border-radius: 8px; padding: 10px; }
.drop.over { border-color: var(--accent); background: var(--info-bg); }
.error { color: var(--bad); font-size: 13px; }
.empty { padding: 26px; text-align: center; color: var(--muted); }
.legend-note { font-size: 12px; color: var(--muted); }
.uplot { font-family: inherit; }
`;
