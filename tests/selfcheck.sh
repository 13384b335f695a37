#!/bin/sh
# The self-check end to end, quick: `infcalc bench --quick` writes a hardware
# entry that the loader accepts and the calculator uses, and `infcalc
# validate --quick` times the reference kernel against it and writes its
# CSV and charts. A smoke test: no accuracy is asserted (a shared 2-core
# machine's timings are not test material; the figures live in the notes).
set -eu
ic=$1
out=$2
rm -rf "$out"
mkdir -p "$out"
# where sysfs shows no caches (some sandboxes), sysconf may report the whole
# socket's L3 (half a GiB here): a smoke test sizes its buffers for 32 MiB
llc=
[ -d /sys/devices/system/cpu/cpu0/cache ] || llc="--llc 32MiB"
"$ic" bench --quick $llc --out "$out/machine.yaml" --name test-machine > "$out/bench.txt"
grep -q "wrote $out/machine.yaml" "$out/bench.txt"
# the attention probe's reference, which validate rescales the attention by
grep -q "^  probe_attention: " "$out/machine.yaml"
"$ic" show hw "$out/machine.yaml" > "$out/show.txt"
grep -q "measured by infcalc bench" "$out/show.txt"
# the entry works as --hw, and the expected time is the default on it
"$ic" --model llama3-8b --hw "$out/machine.yaml" --weights int8 --kv bf16 --compute fp32 \
    --format json > "$out/decode.json"
grep -q '"estimate": "expected"' "$out/decode.json"
"$ic" --model llama3-8b --hw "$out/machine.yaml" --compute fp32 --estimate ideal \
    --format json | grep -q '"estimate": "ideal"'
# the default compute type (bf16) works on a benched entry without --compute
# (issue 15): every type left at its default, both estimates
"$ic" --model llama3-8b --hw "$out/machine.yaml" --format json > "$out/default.json"
grep -q '"estimate": "expected"' "$out/default.json"
grep -q '"compute": "bf16"' "$out/default.json"
"$ic" --model llama3-8b --hw "$out/machine.yaml" --estimate ideal --format json |
    grep -q '"estimate": "ideal"'
"$ic" validate --quick --hw "$out/machine.yaml" --csv "$out/validate.csv" \
    --plot-prefix "$out/validate" > "$out/validate.txt"
grep -q "median |err|" "$out/validate.txt"
# one CSV row per point, every point predicted and measured (no empty fields)
rows=$(($(wc -l < "$out/validate.csv") - 1))
[ "$rows" -ge 6 ]
if grep -q ',,' "$out/validate.csv"; then echo "empty CSV field" >&2; exit 1; fi
# every point has its attention probe (the last column, seconds per score)
head -1 "$out/validate.csv" | grep -q ',probe_attn_s$'
awk -F, 'NR > 1 && !($NF > 0 && $NF < 1e-5) { bad = 1 } END { exit bad }' "$out/validate.csv"
[ -s "$out/validate-batch.png" ] && [ -s "$out/validate-context.png" ]
# validate --model: a dense config.json's shape, every point printed with
# its probes; what the kernel cannot run (experts) refused with status 2
cat > "$out/tiny.json" <<'EOF2'
{"model_type": "llama", "hidden_size": 256, "intermediate_size": 704,
 "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
 "head_dim": 64, "vocab_size": 1000, "max_position_embeddings": 4096}
EOF2
"$ic" validate --quick --hw "$out/machine.yaml" --model "$out/tiny.json" > "$out/model.txt"
grep -q "compute probe" "$out/model.txt"
# every printed point with a positive attention probe beside it
awk '{ for (i = 2; i <= NF; i++) if ($i == "ns/score") { n++; if ($(i - 1) + 0 > 0) ok++ } }
     END { exit !(n > 0 && ok == n) }' "$out/model.txt"
# 3 weight types x batches 1 and 4 x context 256
[ "$(grep -c ' ms ' "$out/model.txt")" -eq 6 ]
set +e
"$ic" validate --quick --hw "$out/machine.yaml" --model mixtral-8x7b > /dev/null 2> "$out/moe.txt"
st=$?
set -e
[ "$st" -eq 2 ]
grep -q "routed experts" "$out/moe.txt"
echo "selfcheck: bench and validate ran; $rows points"
