#!/usr/bin/env bash
# Renders a simulation report (nodesmith simulate --report) in headless Chromium: writes a
# screenshot for a person to look at, and checks the rendered DOM holds the four charts with
# their drawn elements and the decision table.
#
# usage: tests/report_screenshot.sh REPORT.html OUT.png
#
# A sample report comes from the report's unit test:
#   NODESMITH_REPORT_SAMPLE_OUT=/tmp/report.html build/sim_test --gtest_filter='HtmlReportTest.*'
#
# Exits 0 when the page rendered with everything present; 1 when something is missing; 2 on bad
# usage; 3 when Chromium is not installed (scripts/install-deps.sh installs it).
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 REPORT.html OUT.png" >&2
  exit 2
fi
report=$1
png=$2
if [ ! -f "$report" ]; then
  echo "report_screenshot: no such file: $report" >&2
  exit 2
fi

chromium_bin=""
for candidate in chromium chromium-browser google-chrome; do
  if command -v "$candidate" >/dev/null 2>&1; then
    chromium_bin=$(command -v "$candidate")
    break
  fi
done
if [ -z "$chromium_bin" ]; then
  echo "report_screenshot: chromium not found (install the 'chromium' package)" >&2
  exit 3
fi

report_url="file://$(cd "$(dirname "$report")" && pwd)/$(basename "$report")"
case "$png" in
  /*) ;;
  *) png="$(pwd)/$png" ;;
esac

profile=$(mktemp -d)
dom=$(mktemp)
trap 'rm -rf "$profile" "$dom"' EXIT

# Flags keep the browser off the network and away from the user's profile: the report must
# render from the file alone.
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
  --disable-background-networking --disable-component-update --disable-sync
  --hide-scrollbars --user-data-dir="$profile")

rm -f "$png"
# Chromium writes progress to stderr; keep it for the failure message only.
if ! timeout 120 "$chromium_bin" "${flags[@]}" --screenshot="$png" --window-size=1400,2200 \
    "$report_url" >/dev/null 2>"$profile/screenshot.log"; then
  echo "report_screenshot: chromium failed to take the screenshot" >&2
  tail -n 20 "$profile/screenshot.log" >&2
  exit 1
fi
if [ ! -s "$png" ]; then
  echo "report_screenshot: chromium wrote no screenshot" >&2
  exit 1
fi

if ! timeout 120 "$chromium_bin" "${flags[@]}" --dump-dom "$report_url" >"$dom" 2>"$profile/dom.log"; then
  echo "report_screenshot: chromium failed to dump the DOM" >&2
  tail -n 20 "$profile/dom.log" >&2
  exit 1
fi

# Checks the rendered DOM: each chart's <svg> is present and draws data (a <path>) and hover
# columns (a <rect>) unless the report says it has no samples; the decision table is present.
python3 - "$dom" <<'EOF'
import sys
from html.parser import HTMLParser

class Collector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack = []          # open svg ids
        self.drawn = {}          # svg id -> {tag: count}
        self.nodata = set()
        self.ids = set()
        self.in_nodata = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "svg":
            self.stack.append(a.get("id", ""))
            self.drawn.setdefault(self.stack[-1], {})
        elif self.stack:
            counts = self.drawn[self.stack[-1]]
            counts[tag] = counts.get(tag, 0) + 1
            if tag == "text" and "nodata" in a.get("class", ""):
                self.nodata.add(self.stack[-1])

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag == "svg":
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag == "svg" and self.stack:
            self.stack.pop()

c = Collector()
with open(sys.argv[1], encoding="utf-8") as f:
    c.feed(f.read())

problems = []
for chart in ("chart-nodes", "chart-cost", "chart-pending", "chart-utilization"):
    if chart not in c.drawn:
        problems.append(f"{chart}: svg missing")
        continue
    counts = c.drawn[chart]
    if counts.get("line", 0) == 0:
        problems.append(f"{chart}: no gridlines or axes")
    if chart in c.nodata:
        print(f"{chart}: rendered, no samples")
        continue
    for tag in ("path", "rect"):
        if counts.get(tag, 0) == 0:
            problems.append(f"{chart}: no <{tag}> drawn")
    print(f"{chart}: " + ", ".join(f"{counts.get(t, 0)} {t}" for t in ("path", "rect", "line", "text")))
if "decision-log" not in c.ids:
    problems.append("decision-log: table missing")
for p in problems:
    print("report_screenshot: " + p, file=sys.stderr)
sys.exit(1 if problems else 0)
EOF
echo "report_screenshot: wrote $png"
