#!/usr/bin/env bash
set -euo pipefail

MODEL=Qwen/Qwen3-8B
python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 30000 &

python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B \
  --port 30001 \
  --kv-cache-dtype fp9
