bash scripts/gpt2/kd/kd_medium.sh
