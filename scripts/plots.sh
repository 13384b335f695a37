#!/bin/sh
# Regenerates the pictures in plots/ that the README shows, from a build in
# build/ (run scripts/quickstart.sh first). Usage: sh scripts/plots.sh
set -eu
cd "$(dirname "$0")/.."
IC=${INFCALC:-build/src/infcalc}
out=plots
mkdir -p "$out"
run() { echo "infcalc $*" >&2; "$IC" "$@" > /dev/null; }

# The main job: Llama-3-70B on a 16-chip TPU v5e slice.
run --model llama3-70b --hw v5e --chips 16 --sweep batch --plot "$out/decode-llama3-70b-v5e-16.png"
# Which slice size: 4, 8, 16 and 32 chips with int8 weights and KV.
run --model llama3-70b --hw v5e --chips 4,8,16,32 --weights int8 --kv int8 --sweep batch \
    --plot "$out/overlay-chips-llama3-70b-v5e.png"
# Which weight precision on one 8 x H100 node.
run --model llama3-70b --hw h100 --chips 8 --weights bf16,fp8,int4 --sweep batch \
    --plot "$out/overlay-weights-llama3-70b-h100.png"
# Which accelerator, 8 chips each, bf16.
run --model llama3-70b --hw h100,h200,b200,mi300x --chips 8 --sweep batch \
    --plot "$out/overlay-hw-llama3-70b.png"
# An MoE with MLA: DeepSeek-V3 in fp8 on 8 x H200.
run --model deepseek-v3 --hw h200 --chips 8 --weights fp8 --kv fp8 --compute fp8 --context 8192 \
    --sweep batch --plot "$out/decode-deepseek-v3-h200-8.png"
# Where the KV read overtakes the weight read: context sweeps at batch 16.
run --model qwen2.5-72b --hw h100 --chips 8 --batch 16 --sweep context \
    --plot "$out/context-qwen2.5-72b-h100-8.png"
run --model qwen2.5-72b --hw h100 --chips 8 --batch 16 --kv bf16,fp8,int4 --sweep context \
    --plot "$out/context-kv-qwen2.5-72b-h100-8.png"
# How many chips: step time and tokens/s against the tensor-parallel size,
# the largest useful one (the shortest step) marked.
run --model llama3-70b --hw h100 --sweep chips --plot "$out/chips-llama3-70b-h100.png"
# A two-axis sweep as heatmaps: step time and tokens/s per chip over batch x
# context, the edge of what fits and the bound changes outlined.
run --model qwen2.5-72b --hw h100 --chips 8 --sweep batch,context \
    --plot "$out/heatmap-qwen2.5-72b-h100-8.png"
# The serving analyses: the cheapest $/M tokens per chip type under SLOs,
# and prefill's TTFT against prompt length, fused and unfused attention.
run optimize --model llama3-70b --ttft 2s --tpot 50ms --prompt 4096 --output 512 \
    --plot "$out/optimize-llama3-70b.png"
run prefill --model llama3-70b --hw h100 --chips 8 --prompt 8192 \
    --plot "$out/prefill-llama3-70b-h100-8.png"
# The serving simulation: latency against load, throughput per chip against
# latency.
run simulate --model llama3-70b --hw h100 --chips 8 --prompt 2048 --output 300 \
    --ttft 2s --tpot 50ms --plot "$out/simulate-70b-8xh100.png"
# Predicted against published measurements (published/decode.csv).
run check-published --plot "$out/published.png"
ls -l "$out"
