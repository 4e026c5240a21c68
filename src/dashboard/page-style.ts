/**
 * The page's style sheet (inline, allowed by the page's nonce). Numbers are
 * right-aligned under right-aligned headers (`td.n`, `th.n`) in tabular
 * figures; a state that needs attention is coloured and labelled in words.
 */
export const PAGE_STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d2330;background:#f5f6f8}
header{background:#1d2330;color:#fff;padding:10px 20px;display:flex;gap:16px;align-items:baseline;flex-wrap:wrap}
header h1{font-size:18px;margin:0}header a{color:#9cc4ff}header .meta{color:#b8bfcc}
nav.pages{display:flex;gap:4px}nav.pages a{padding:2px 10px;border-radius:4px;text-decoration:none}
nav.pages a[aria-current=page]{background:#34405a;color:#fff}
#live{margin-left:auto;color:#b8bfcc;font-size:13px}#live.stale{color:#1d2330;background:#ffd38a;padding:1px 8px;border-radius:4px;font-weight:600}
main{padding:8px 20px 40px}section{background:#fff;border:1px solid #dde1e7;border-radius:6px;padding:8px 14px;margin:12px 0}
body.stale main{opacity:.6}
h2{font-size:15px;margin:6px 0 8px}.badge{background:#e4e8ee;border-radius:9px;padding:0 7px;font-size:12px}
table{border-collapse:collapse;width:100%;font-size:13px;font-variant-numeric:tabular-nums}th,td{text-align:left;padding:4px 6px;border-bottom:1px solid #eceff3;vertical-align:top}
th{color:#5b6475;font-weight:600}td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
.error{color:#a3261b;max-width:28em;overflow-wrap:anywhere}.note,.empty{color:#5b6475}.ok-text{color:#1f7a3a}
.warn-text{color:#8a5300;font-weight:600}tr.attention td{background:#fdecea}tr.warn td{background:#fff4e0}
pre.payload{white-space:pre-wrap;overflow-wrap:anywhere;max-width:40em;background:#f5f6f8;padding:6px;margin:4px 0}
dl.counts{display:flex;flex-wrap:wrap;gap:10px;margin:0 0 8px}dl.counts div{background:#f5f6f8;border-radius:6px;padding:6px 12px;min-width:7em}
dt{color:#5b6475;font-size:12px}dd{margin:0;font-size:20px;font-weight:600;font-variant-numeric:tabular-nums}
dd.changed{color:#1a56b8}
#attention ul{margin:4px 0;padding:0;list-style:none}#attention li{padding:4px 10px;margin:4px 0;border-radius:4px;border-left:4px solid}
#attention li.attention{background:#fdecea;border-color:#a3261b;color:#6d1710}#attention li.warn{background:#fff4e0;border-color:#c77700;color:#5c3800}
.label{font-size:11px;font-weight:700;letter-spacing:.04em;text-transform:uppercase;margin-right:6px}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(400px,1fr));gap:12px}.chart h3{font-size:13px;margin:4px 0}
button{font:inherit;font-size:12px;padding:2px 8px;border:1px solid #b9c1cd;border-radius:4px;background:#fff;cursor:pointer}
button:hover{background:#eef2f8}.actions{white-space:nowrap}form.filter{margin:6px 0;display:flex;gap:8px;flex-wrap:wrap;align-items:center}
input,select{font:inherit;font-size:12px}.bulk{display:flex;gap:8px;margin-bottom:4px}
.unavailable{font-weight:600}#status{min-height:1.4em;padding:4px 20px;font-size:13px}#status.ok{color:#1f7a3a}#status.failed{color:#a3261b}
`;
