#!/usr/bin/env bash
# Makes sure Deno's npm cache holds the registry metadata (registry.json) of every npm
# package deno.lock pins:  scripts/npm-metadata.sh DENO
#
# Deno keeps a package's metadata beside the package in $DENO_DIR/npm/<registry>/<name>/.
# A cache that has a package but not its metadata (filled by another tool, or copied)
# makes every run with the lock file fetch the metadata again, print
# "Download https://registry.npmjs.org/<name>" on stderr and not keep it, even offline,
# where the fetch fails and the run goes on. One fetch without the lock file keeps it.
# Nothing happens when the metadata is there or the package is not cached at all (the
# first run then fetches both and keeps them). Never fails: a fetch that cannot be made
# leaves things as they were.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
deno=${1:?usage: scripts/npm-metadata.sh DENO}
registry=${NPM_CONFIG_REGISTRY:-https://registry.npmjs.org/}
host=${registry#*://}
host=${host%%/*}
# Deno names a registry with a port HOST_PORT (localhost_4260).
cache=${DENO_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/deno}/npm/${host/:/_}
missing=0
while read -r name version; do
	[[ -d $cache/$name/$version && ! -e $cache/$name/registry.json ]] && missing=1
done < <(sed -nE 's/^    "(@?[^"@]+)@([0-9][^"]*)": \{$/\1 \2/p' "$root/deno.lock")
((missing)) || exit 0
(cd "$root" && "$deno" cache --no-lock --quiet lib/_deps.ts) >/dev/null 2>&1
exit 0
