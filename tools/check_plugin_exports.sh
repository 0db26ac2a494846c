#!/usr/bin/env bash
# ctest neural_plugin_exports: the neural plug-in's dynamic symbol table defines
# the C ABI's entry (src/neural/plugin/lingcast_plugin_abi.h) and nothing else
# (src/neural/plugin/plugin.map), so no C++ symbol of the lingcast libraries
# linked into it can bind to the host's.
#   tools/check_plugin_exports.sh PLUGIN.so
set -euo pipefail
plugin="${1:?usage: check_plugin_exports.sh PLUGIN.so}"
exported="$(nm -D --defined-only "$plugin" | awk '{print $NF}' | sort)"
if [[ "$exported" != "lingcast_neural_plugin_table" ]]; then
  echo "FAIL: $plugin exports more than lingcast_neural_plugin_table:"
  echo "$exported" | head -20
  echo "($(echo "$exported" | wc -l) symbols)"
  exit 1
fi
echo "$plugin exports lingcast_neural_plugin_table only"
