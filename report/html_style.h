// The HTML report's style sheet, inline in the page (it loads nothing).
// Laid out for a 1280 px window: a 1200 px column, cards whose headline
// fits in two lines, timelines as wide as their card; everything wraps, so
// no text runs out of its box (tests/report/html_chromium_test.cpp checks).
#pragma once

#include <string_view>

namespace streamcheck::report {

inline constexpr std::string_view kHtmlStyle = R"css(
:root { --error: #c62828; --warning: #ef6c00; --note: #1565c0; --ok: #2e7d32; --ink: #1f2328;
        --mute: #59636e; --line: #d0d7de; --paper: #ffffff; --page: #f4f6f8; --code: #f0f2f4; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--page); color: var(--ink);
       font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
main { max-width: 1200px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 24px; margin: 0; overflow-wrap: anywhere; }
.subtitle { color: var(--mute); margin: 2px 0 0; overflow-wrap: anywhere; }
code { font: 13px/1.4 ui-monospace, "DejaVu Sans Mono", Menlo, monospace; background: var(--code);
       padding: 0 4px; border-radius: 4px; overflow-wrap: anywhere; }
a { color: inherit; }
.overview { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 16px; margin: 20px 0 28px; }
.panel { background: var(--paper); border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; min-width: 0; }
.panel h2 { font-size: 12px; letter-spacing: .06em; text-transform: uppercase; color: var(--mute); margin: 0 0 6px; }
.big { font-size: 30px; font-weight: 700; line-height: 1.2; }
.counts { width: 100%; border-collapse: collapse; font-size: 14px; table-layout: fixed; }
.counts td { padding: 2px 0; vertical-align: top; overflow-wrap: anywhere; }
.counts td.n { width: 4.5em; text-align: right; font-variant-numeric: tabular-nums; font-weight: 600; }
.runs { font-size: 13px; color: var(--mute); margin: 4px 0 0; padding-left: 18px; overflow-wrap: anywhere; }
.card { background: var(--paper); border: 1px solid var(--line); border-left: 6px solid var(--warning);
        border-radius: 8px; padding: 18px 24px 14px; margin: 0 0 28px; min-width: 0; }
.card.error { border-left-color: var(--error); } .card.note { border-left-color: var(--note); }
.tags { display: flex; flex-wrap: wrap; gap: 6px 12px; align-items: center; font-size: 13px; color: var(--mute); }
.badge { color: #fff; background: var(--warning); border-radius: 10px; padding: 0 9px; font-weight: 700;
         font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.error .badge { background: var(--error); } .note .badge { background: var(--note); }
h2.headline { font-size: 19px; line-height: 1.4; font-weight: 650; margin: 8px 0 10px; overflow-wrap: anywhere; }
.why, .fix { margin: 6px 0; overflow-wrap: anywhere; }
.why .label, .fix .label { font-weight: 700; margin-right: 4px; }
.fix { background: #eef7ee; border-radius: 6px; padding: 6px 10px; }
.fix .label { color: var(--ok); }
.sources { display: grid; grid-template-columns: minmax(0, 1fr); gap: 10px; margin: 14px 0 6px; }
figure.source { margin: 0; border: 1px solid var(--line); border-radius: 6px; overflow: hidden; min-width: 0; }
figure.source figcaption { font-size: 13px; padding: 4px 10px; background: var(--code); overflow-wrap: anywhere; }
pre.code { margin: 0; padding: 6px 0; font: 12.5px/1.5 ui-monospace, "DejaVu Sans Mono", Menlo, monospace;
           white-space: pre-wrap; overflow-wrap: anywhere; }
pre.code .line { display: block; padding: 0 10px 0 4.5em; text-indent: -4.5em; }
pre.code .line.hit { background: #fff1c2; }
pre.code .ln { display: inline-block; width: 4.5em; padding-right: 1em; text-indent: 0; text-align: right;
               color: var(--mute); user-select: none; }
svg.timeline { display: block; width: 100%; height: auto; margin: 14px 0 8px; }
svg.timeline text { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
.lane-bg { fill: #f6f8fa; } .lane-line { stroke: #d0d7de; stroke-width: 1.5; }
.lane-label { font-size: 14px; font-weight: 700; fill: var(--ink); } .lane-origin { font-size: 12px; fill: var(--mute); }
.axis { font-size: 12px; fill: var(--mute); }
.op rect { fill: #e8f0fe; stroke: #1a73e8; stroke-width: 1.5; }
.op.sync rect { fill: #e6f4ea; stroke: var(--ok); }
.op.racing rect { fill: #fdecea; stroke: var(--error); stroke-width: 2.5; }
.op-name { font-size: 14px; font-weight: 700; fill: var(--ink); } .op-detail { font-size: 12px; fill: var(--mute); }
.sync-edge { stroke: var(--ok); stroke-width: 2; fill: none; } .sync-dot { fill: var(--ok); }
.missing-edge { stroke: var(--error); stroke-width: 2.5; stroke-dasharray: 7 5; fill: none; }
.missing-label rect { fill: #fff; stroke: var(--error); } .missing-label text { font-size: 12px; fill: var(--error); font-weight: 600; }
.legend { font-size: 12px; color: var(--mute); margin: 0 0 8px; }
details.side { border-top: 1px solid var(--line); padding: 6px 0; }
details.side > summary { cursor: pointer; overflow-wrap: anywhere; }
details.side > summary .role { font-weight: 700; }
.side-body { padding: 4px 0 4px 18px; font-size: 14px; overflow-wrap: anywhere; }
.side-body .fullname { font-size: 12px; }
ol.stack { margin: 4px 0; padding-left: 0; list-style: none; font: 12.5px/1.5 ui-monospace, "DejaVu Sans Mono", Menlo, monospace; }
ol.stack li { overflow-wrap: anywhere; }
ol.stack .folded { color: var(--mute); font-style: italic; }
.meta { color: var(--mute); font-size: 13px; margin: 8px 0 0; overflow-wrap: anywhere; }
)css";

}  // namespace streamcheck::report
