#!/bin/sh
# 128k-token contexts: Qwen2.5-72B on 8 x H100. At this length the KV read,
# not the weights, sets the step time; an fp8 KV cache halves it and doubles
# the batch that fits. The context sweep shows where the KV read takes over.
set -eu
IC=${INFCALC:-build/src/infcalc}
$IC --model qwen2.5-72b --hw h100 --chips 8 --context 131072 --sweep batch
$IC --model qwen2.5-72b --hw h100 --chips 8 --context 131072 --kv fp8 --sweep batch
$IC --model qwen2.5-72b --hw h100 --chips 8 --batch 8 --sweep context
