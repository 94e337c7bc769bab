#!/usr/bin/env bash
# Install size and time of the README's set-up command (`pip install .`) at each given commit,
# in a fresh virtual environment without pip's cache; prints one table row per commit.
#   bash benchmarks/install_size.sh a09a990 HEAD
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'git -C "$repo" worktree prune; rm -rf "$work"' EXIT
echo "| commit | packages | seconds | venv MB |"
echo "|---|---|---|---|"
for rev in "$@"; do
    git -C "$repo" worktree add -q --detach "$work/src_$rev" "$rev"
    python3 -m venv "$work/venv_$rev"
    start=$(date +%s.%N)
    "$work/venv_$rev/bin/python" -m pip install -q --no-cache-dir "$work/src_$rev" >/dev/null 2>&1
    end=$(date +%s.%N)
    packages=$("$work/venv_$rev/bin/python" -m pip list --format=freeze 2>/dev/null \
        | grep -v -E '^(pip|setuptools)==' | wc -l)
    echo "| $rev | $packages | $(echo "$end - $start" | bc) | $(du -sm "$work/venv_$rev" | cut -f1) |"
    git -C "$repo" worktree remove --force "$work/src_$rev"
done
