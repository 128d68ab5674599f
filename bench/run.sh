#!/usr/bin/env bash
# napkin's speed figures, measured side by side in one run:
#   1. Google Benchmark: per-evaluation cost of each calculator (number only, and with the
#      itemized ResultSet), one CSV sweep row, one table render (medians of 5 repetitions);
#   2. hyperfine: one cold CLI invocation (median of 300 runs) and a 1,000,000-row CSV sweep;
#   3. peak RSS of 1M- and 10M-row sweeps (GNU time): constant memory means equal figures.
# Usage: bench/run.sh [BUILD_DIR]   (default build-bench; configures and builds it)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-bench}
for p in hyperfine time; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || apt-get install -y "$p" > /dev/null
done
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DNAPKIN_TESTS=OFF > /dev/null
cmake --build "$build" -j"$(nproc)" --target napkin napkin_bench > /dev/null
napkin="$build/napkin"

echo "== calculators (Google Benchmark, median of 5)"
"$build/bench/napkin_bench" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true 2>/dev/null \
  | grep -E "^(Benchmark|BM_.*_median)"

echo
echo "== cold CLI invocation (hyperfine, 300 runs each, side by side with /bin/true as the"
echo "   machine's process start-up floor)"
hyperfine -N --warmup 20 --runs 300 --export-json /tmp/napkin_cold.json \
  -n "/bin/true" -n "napkin energy (seed example)" -n "napkin memory llama-3.1-8b (preset JSON parsed)" \
  "/bin/true" \
  "$napkin energy --flops 1e18 --throughput 100TFLOP/s --power 1kW --pue 1.2" \
  "$napkin memory llama-3.1-8b --batch 32 --context 8Ki" > /dev/null
jq -r '.results[] | "\(.command): median \(.median * 1e6 | round / 1000) ms, min \(.min * 1e6 | round / 1000) ms"' /tmp/napkin_cold.json

echo
echo "== 1,000,000-row sweeps to CSV (hyperfine, 5 runs each)"
hyperfine --warmup 1 --runs 5 --export-json /tmp/napkin_sweep.json \
  -n "flops matmul" -n "memory llama-3.1-8b (inference ledger)" \
  "$napkin flops matmul --m 1..1000000:+1 --k 8 --n 8 --csv > /dev/null" \
  "$napkin memory llama-3.1-8b --batch 1..1000000:+1 --context 8Ki --csv > /dev/null" > /dev/null
jq -r '.results[] | "\(.command): median \(.median * 1000 | round) ms -> \(1000000 / .median | round) rows/s"' \
  /tmp/napkin_sweep.json

echo
echo "== peak RSS (GNU time)"
for n in 1000000 10000000; do
  rss=$( { /usr/bin/time -f "%M" "$napkin" memory llama-3.1-8b --batch "1..$n:+1" --context 8Ki --csv > /dev/null; } 2>&1 )
  echo "memory sweep, $n rows: ${rss} KiB"
done
