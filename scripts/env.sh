# Sourced by the build scripts: the toolchain quirks in one place.
# emscripten 3.1.6 (Debian) needs Debian's node modules (acorn) on NODE_PATH.
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"
# Debian's chromium for playwright-core (never a downloaded browser)
export ATTNLAB_CHROMIUM="${ATTNLAB_CHROMIUM:-/usr/bin/chromium}"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
JOBS="${JOBS:-$(nproc)}"
