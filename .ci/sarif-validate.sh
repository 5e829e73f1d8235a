#!/usr/bin/env bash
# Second opinion on agentready's SARIF: Microsoft's SARIF multitool validates
# the demo's SARIF (conformant and broken) against the SARIF 2.1.0 rules and
# GitHub's ingestion rules, and this script fails on any error it reports.
#
# The multitool exits 0 whatever it finds (its findings are in the SARIF log
# it writes), so the log is read here. Its npm wrapper runs the binary through
# a shell, which would split "Gh;Sarif" at the semicolon, so the platform
# binary is called directly.
#
# Usage: .ci/sarif-validate.sh   (needs go, node and npm; installs the
# multitool into $SARIF_MULTITOOL_DIR, by default a directory under $TMPDIR)
set -euo pipefail
cd "$(dirname "$0")/.."

version=5.7.0
tooldir=${SARIF_MULTITOOL_DIR:-${TMPDIR:-/tmp}/agentready-sarif-multitool-$version}
if [ ! -d "$tooldir/node_modules/@microsoft/sarif-multitool" ]; then
  mkdir -p "$tooldir"
  npm install --prefix "$tooldir" --no-save --no-audit --no-fund --loglevel=error "@microsoft/sarif-multitool@$version"
fi
platform=$(node -p 'process.platform')
bin=$(node -p "require(process.argv[1])" "$tooldir/node_modules/@microsoft/sarif-multitool-$platform")
# npm may skip the package's install script that marks it executable.
chmod u+x "$bin"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
go build -o "$out/agentready" ./cmd/agentready
"$out/agentready" demo -q --fail-on none -o sarif="$out/demo.sarif"
"$out/agentready" demo -q --fail-on none --defect no-vary-accept --defect head-content-length -o sarif="$out/demo-broken.sarif"

status=0
for name in demo demo-broken; do
  # The multitool wants paths that start with ./ (microsoft/sarif-sdk#2055).
  (cd "$out" && "$bin" validate "./$name.sarif" --output "./$name.validation.sarif" \
    --log ForceOverwrite --rule-kind "Gh;Sarif" >/dev/null)
  node - "$out/$name.validation.sarif" "$name.sarif" <<'JS' || status=1
const [file, label] = process.argv.slice(2);
const log = JSON.parse(require("fs").readFileSync(file, "utf8"));
const results = (log.runs || []).flatMap((run) => run.results || []);
const notes = (log.runs || []).flatMap((run) => (run.invocations || []).flatMap((i) => i.toolExecutionNotifications || []));
let errors = 0;
for (const r of results) {
  // A result without a level is a warning (SARIF §3.27.10).
  const level = r.level || "warning";
  const where = ((r.locations || [])[0] || {}).physicalLocation || {};
  const region = where.region || {};
  const args = (r.message && r.message.arguments) || [];
  console.log(`${label}: ${level} ${r.ruleId} at ${region.startLine || "?"}:${region.startColumn || "?"} ${args.join(" | ")}`);
  if (level === "error") errors++;
}
for (const n of notes) {
  console.log(`${label}: tool ${n.level || "warning"}: ${(n.message && n.message.text) || ""}`);
  if ((n.level || "warning") === "error") errors++;
}
console.log(`${label}: ${results.length} multitool results, ${errors} errors`);
process.exit(errors > 0 ? 1 : 0);
JS
done
exit $status
