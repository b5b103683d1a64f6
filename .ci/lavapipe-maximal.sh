#!/usr/bin/env bash
# A Vulkan driver with VK_KHR_shader_maximal_reconvergence for the tests that need one:
# Mesa 25's lavapipe from Debian's bookworm-backports (built against Debian 12's LLVM 15
# and C library, so it loads beside the system's Mesa 22), unpacked -- not installed --
# into a cache folder. Prints the path of its ICD file, or nothing when it cannot be had
# (the tests that need it then skip, saying so).
set -uo pipefail
cache="${XDG_CACHE_HOME:-$HOME/.cache}/difftest/mesa-bookworm-backports"
icd="$cache/lvp_icd.json"
if [ -f "$icd" ]; then echo "$icd"; exit 0; fi
command -v apt-get >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1 || exit 0
mkdir -p "$cache/lists/partial" "$cache/archives/partial" || exit 0
echo "deb http://deb.debian.org/debian bookworm-backports main" > "$cache/sources.list"
opts=(-o "Dir::Etc::SourceList=$cache/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
      -o "Dir::State::Lists=$cache/lists" -o "Dir::Cache=$cache"
      -o "Dir::Cache::archives=$cache/archives" -o "APT::Sandbox::User=$(id -un)")
apt-get "${opts[@]}" -q update >/dev/null 2>&1 || exit 0
(cd "$cache" && apt-get "${opts[@]}" -q download mesa-vulkan-drivers >/dev/null 2>&1) || exit 0
deb=$(ls "$cache"/mesa-vulkan-drivers_*bpo*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || exit 0
dpkg-deb -x "$deb" "$cache/root" || exit 0
lib=$(find "$cache/root" -name libvulkan_lvp.so | head -1)
[ -n "$lib" ] || exit 0
printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "%s", "api_version": "1.3.0"}}\n' \
  "$lib" > "$icd"
echo "$icd"
